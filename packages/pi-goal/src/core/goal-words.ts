/**
 * A goal's state in plain words, for everything people read (status, dialogs, notices, the
 * headless report): no status identifiers, no field names (pure).
 */
import { LOCAL_FAULT_REASON } from "./outcome.js";
import type { GoalRecord, PauseReason } from "./types.js";

/** Why a goal is paused, in plain words ("it used its 25 responses"). */
export function pauseReasonWords(reason: PauseReason | string | undefined, limit: number | null): string {
	switch (reason) {
		case undefined:
		case "user":
			return "you paused it";
		case "interrupted":
			return "the run was interrupted";
		case "cancelled":
			return "the extension that started it cancelled it";
		case "automatic-turns":
			if (limit === null) return "it reached its response limit";
			return limit === 1 ? "it used its 1 response" : `it used its ${limit} responses`;
		case "no-progress":
			return "its last replies repeated without progress";
		case "stuck":
			return "its work repeated itself";
		case "workflow-busy":
			return "another workflow is running in this session";
		case "helpers-unavailable":
			return "goal_complete or goal_blocked is not an active tool";
		default:
			return reason.replace(/[-_]+/g, " ");
	}
}

/** The state in one or two words, for the menu title ("active", "waiting", "budget used up"). */
export function shortStateWords(goal: GoalRecord): string {
	if (goal.wait) return "waiting";
	switch (goal.status) {
		case "budget_limited":
			return "budget used up";
		case "usage_limited":
			return "usage limit reached";
		default:
			return String(goal.status).replace(/[-_]+/g, " ");
	}
}

/** Why a goal is paused, in a few words for the footer ("no progress", "tools hidden"). */
export function shortPauseWords(reason: PauseReason | string): string {
	switch (reason) {
		case "no-progress":
			return "no progress";
		case "workflow-busy":
			return "another workflow";
		case "helpers-unavailable":
			return "goal tools hidden";
		default:
			return reason.replace(/[-_]+/g, " ");
	}
}

/** What a wait is for, in plain words. */
function waitWords(goal: GoalRecord): string {
	const wait = goal.wait;
	switch (wait?.kind) {
		case "usage_limit":
			return "waiting for the provider's usage limit to reset";
		case "provider_error":
		case "provider_retry":
			// A session folder that is read-only or full is this machine's fault, not the provider's.
			return wait.reason.startsWith(LOCAL_FAULT_REASON)
				? "waiting after a local fault"
				: "waiting after a provider error";
		default:
			return `waiting: ${wait?.reason ?? "for something outside"}`;
	}
}

/**
 * The state in plain words: "active" (working on it), "waiting: …", "paused: it used its 25 responses",
 * "complete", "blocked", "stopped: its token budget is used up", "stopped: the provider's usage
 * limit was reached". `limit` is the response cap (null: none).
 */
export function describeGoalState(goal: GoalRecord, limit: number | null): string {
	switch (goal.status) {
		case "active":
			return goal.wait ? waitWords(goal) : "active";
		case "paused":
			return `paused: ${pauseReasonWords(goal.pauseReason, limit)}`;
		case "complete":
			return "complete";
		case "blocked":
			return "blocked";
		case "budget_limited":
			return "stopped: its token budget is used up";
		case "usage_limited":
			return "stopped: the provider's usage limit was reached";
		default:
			return `stopped: ${String(goal.status).replace(/[-_]+/g, " ")}`;
	}
}

/**
 * The one transcript line for a goal that just paused or stopped on its own (a limit, a wait, a
 * blocker, completion), with what to do next; undefined when there is nothing to announce: no
 * goal, still working, a restore or another goal id (before), or the user's own pause or clear,
 * which their command already answered.
 */
export function stopNotice(
	before: GoalRecord | null,
	after: GoalRecord | null,
	limit: number | null,
	next: (goal: GoalRecord) => string | undefined,
): string | undefined {
	if (!before || !after || before.id !== after.id) return undefined;
	if (after.status === "active" && !after.wait) return undefined;
	if (after.status === "paused" && (after.pauseReason ?? "user") === "user") return undefined;
	const was = describeGoalState(before, limit);
	const now = describeGoalState(after, limit);
	if (was === now) return undefined;
	// The stuck detector and the no-progress breaker name what repeated and what to do about it.
	const repeated =
		after.status === "paused" && (after.pauseReason === "stuck" || after.pauseReason === "no-progress")
			? after.pauseDetail
			: undefined;
	if (repeated) return `Goal ${after.id} ${now}. ${repeated}`;
	const step = next(after);
	return `Goal ${after.id} ${now.startsWith("waiting") || now === "complete" || now === "blocked" ? "is " : ""}${now}.${step ? ` Next: ${step}` : ""}`;
}
