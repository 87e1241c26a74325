/** Footer text for status key `pi-goal` (pure). */
import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import { elapsedMs, formatCost, formatDuration, formatTokens, goalTokens } from "./accounting.js";
import { shortPauseWords } from "./goal-words.js";
import { LOCAL_FAULT_REASON } from "./outcome.js";
import type { GoalRecord, GoalSettings } from "./types.js";

function budget(goal: GoalRecord, branchTotal: number): string | undefined {
	if (goal.tokenBudget === null) return undefined;
	return `budget ${formatTokens(goalTokens(goal.usage, branchTotal))}/${formatTokens(goal.tokenBudget)}`;
}

/** Responses used of the goal's response limit ("12/25"); the glossary's word is "responses". */
function responses(goal: GoalRecord, settings: GoalSettings): string {
	const cap = settings.automaticTurns === null ? "∞" : String(settings.automaticTurns);
	return `${goal.safety.automaticTurns}/${cap}`;
}

function waitText(goal: GoalRecord, now: number): string {
	const wait = goal.wait;
	if (!wait) return "";
	if (wait.kind === "usage_limit") {
		const left =
			wait.resumeAt === null ? "" : ` · retry in ${formatDuration(Math.max(0, wait.resumeAt - now))}`;
		return `waiting usage limit${left}`;
	}
	if (wait.kind === "provider_error" || wait.kind === "provider_retry")
		return wait.reason.startsWith(LOCAL_FAULT_REASON) ? "waiting local fault" : "waiting provider error";
	return cutText(`waiting ${wait.reason}`, 60);
}

/** What the user can do next in the goal's state (for /goal status), or undefined. */
export function nextStep(goal: GoalRecord): string | undefined {
	if (goal.status === "active") {
		switch (goal.wait?.kind) {
			case undefined:
				return goal.wait ? "wait, send a message, or /goal resume to continue now." : undefined;
			case "explicit":
				return goal.wait.resumeAt === null
					? "send a message or /goal resume when the awaited thing is done."
					: "it wakes by itself at the deadline; a message or /goal resume wakes it now.";
			case "provider_error":
			case "provider_retry":
				if (goal.wait.reason.startsWith(LOCAL_FAULT_REASON))
					return "fix the local fault named above, then send any message or /goal resume; the goal keeps its id.";
				return "fix the cause if needed (key, model, network), then send any message or /goal resume; the goal keeps its id.";
			case "usage_limit":
				return "it retries once by itself at the time shown; /goal resume retries now, /goal pause or /goal clear stops it.";
		}
	}
	switch (goal.status) {
		case "paused":
			return "/goal resume continues with a new goal id; /goal clear removes it.";
		case "usage_limited":
			return "wait for the provider limit to reset (or switch model), then /goal resume; /goal retry-usage-limits on waits automatically next time.";
		case "blocked":
			return "remove the blocker, then /goal resume, or /goal edit the objective.";
		case "budget_limited":
			return "/goal edit --tokens N <objective> raises the budget; /goal clear removes the goal.";
		case "complete":
			return "start a new goal with /goal <objective>.";
		default:
			return undefined;
	}
}

/**
 * Short footer text, or undefined when there is no goal. The grammar is shared with pi-reset and
 * pi-jscpd: `<noun>: <state>[ · <detail>]`. Pi joins the statuses of all extensions with a single
 * space, so the name and colon mark where each one starts.
 */
export function footerText(
	goal: GoalRecord | null,
	facts: { now: number; branchTotal: number; settings: GoalSettings },
): string | undefined {
	if (!goal) return undefined;
	const spend = budget(goal, facts.branchTotal);
	const parts: string[] = [];
	switch (goal.status) {
		case "active":
			if (goal.wait) parts.push(waitText(goal, facts.now));
			else
				parts.push(
					`active ${formatDuration(elapsedMs(goal.clock, facts.now))}`,
					`${responses(goal, facts.settings)} responses`,
				);
			break;
		case "paused":
			parts.push("paused");
			if (goal.pauseReason === "automatic-turns") parts.push(`limit ${responses(goal, facts.settings)}`);
			else if (goal.pauseReason && goal.pauseReason !== "user") parts.push(shortPauseWords(goal.pauseReason));
			break;
		case "budget_limited":
			if (goal.costLimit !== undefined && (goal.costSpent ?? 0) >= goal.costLimit)
				return `goal: cost limit ${formatCost(goal.costLimit)}`;
			return `goal: ${spend ?? "budget exhausted"}`;
		case "usage_limited":
			parts.push("usage limited");
			break;
		default:
			parts.push(goal.status);
	}
	if (spend) parts.push(spend);
	if (goal.costLimit !== undefined)
		parts.push(
			goal.costUnreported
				? "cost not reported"
				: `cost ${formatCost(goal.costSpent ?? 0)}/${formatCost(goal.costLimit)}`,
		);
	return `goal: ${parts.join(" · ")}`;
}
