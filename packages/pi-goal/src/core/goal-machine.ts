/**
 * The goal state machine (pure). `reduceGoal` takes the state, one event and the facts it needs
 * and returns the next state plus the named effects, in the order the controller's effect runner
 * executes them. Each rule that follows from an event is written here, where unit tests see it:
 * what an edit re-checks, the settlement order (budget → safety limits → helpers → the wait), what
 * a restore re-checks, what a deadline wakes, what a model change stops. It never touches Pi.
 */
import { foldClock } from "./accounting.js";
import type { GoalEffect, GoalEvent, GoalFacts, ModelRef, Transition } from "./goal-events.js";
import { beforeSettle, checkpoint, compacted, promptDue } from "./goal-host-rules.js";
import { andThen, reduceStep, unchanged, wake, withEffects, working } from "./goal-transitions.js";
import { classifySettlement, LOCAL_FAULT_REASON } from "./outcome.js";
import { persistWorthy } from "./persistence.js";
import { limitDetailOf, limitReached } from "./safety.js";
import {
	type GoalRecord,
	type GoalSafety,
	type GoalState,
	USAGE_FALLBACK_MS,
	type UsageLimitScope,
} from "./types.js";

export type {
	GoalEffect,
	GoalEvent,
	GoalFacts,
	ModelRef,
	TerminalStatus,
	Transition,
	WakeKind,
} from "./goal-events.js";
export { activates, EMPTY_STATE, offlineTimeDropped } from "./goal-transitions.js";

/** The pause of a limit reached, with its reason in plain words. */
function pauseFor(limit: "automatic-turns" | "no-progress" | "stuck", safety: GoalSafety) {
	const detail = limitDetailOf(limit, safety);
	return { type: "pause" as const, reason: limit, ...(detail ? { detail } : {}) };
}

/** Whether the selected model is the one a usage limit rejected. */
export function sameScope(model: ModelRef | undefined, scope: UsageLimitScope): boolean {
	return model !== undefined && model.provider === scope.provider && model.id === scope.model;
}

/** Rule: a usage-limit wait whose model is no longer selected cannot recover by waiting; it stops. */
function stopOnModelMismatch(start: Transition, model: ModelRef | undefined, facts: GoalFacts): Transition {
	const goal = start.state.goal;
	const wait = goal?.status === "active" ? goal.wait : undefined;
	if (wait?.kind !== "usage_limit" || !wait.usageLimit) return start;
	if (sameScope(model, wait.usageLimit)) return start;
	const scope = wait.usageLimit;
	const to = model ? `${model.provider}/${model.id}` : "no model";
	const detail = `usage limit of ${scope.provider}/${scope.model}; the model changed to ${to}`;
	return andThen(start, { type: "usage_limited", detail }, facts);
}

/**
 * Rule: before a settled run's wait is published, the budget, then the safety limits, then the
 * helper tools are rechecked (native post-run work can change them); the first that fails stops.
 */
function recheckBeforeWait(state: GoalState, facts: GoalFacts): Transition {
	const checked = reduceStep(state, { type: "budget_check" }, facts);
	const goal = checked.state.goal;
	if (goal?.status !== "active") return checked;
	const limit = limitReached(goal.safety, facts.settings);
	if (limit) return andThen(checked, pauseFor(limit, goal.safety), facts);
	if (facts.helpersAvailable && !facts.helpersAvailable())
		return andThen(checked, { type: "pause", reason: "helpers-unavailable" }, facts);
	return checked;
}

/** Rule: a settled run's facts become one goal outcome (outcome.ts classifies). */
function settleGoal(state: GoalState, event: Extract<GoalEvent, { type: "settled" }>, facts: GoalFacts) {
	const goal = state.goal;
	if (goal?.status !== "active" || !event.owned) return unchanged(state);
	const run = event.run;
	// An error that arrived for an earlier goal never moves a replacement goal.
	const settledRun =
		run.error?.goalId !== undefined && run.error.goalId !== goal.id ? { ...run, error: undefined } : run;
	const settlement = classifySettlement(settledRun, {
		waiting: goal.wait ? (goal.wait.kind ?? "explicit") : undefined,
		retryUsageLimits: facts.settings.retryUsageLimits,
	});
	const start = unchanged(state);
	switch (settlement.kind) {
		case "pause":
			// Also when the aborted batch accepted goal_wait: its wait and timer must not wake the goal
			// by itself later. (A wait from before the run was already woken when the run started.)
			return andThen(start, { type: "pause", reason: "interrupted" }, facts);
		case "blocked":
			return andThen(start, { type: "blocked", reason: settlement.reason }, facts);
		case "usage_limited":
			return andThen(start, { type: "usage_limited", detail: settlement.detail }, facts);
		case "provider_wait": {
			const checked = recheckBeforeWait(state, facts);
			if (!working(checked.state)) return checked;
			const reason = settlement.localFault
				? `${LOCAL_FAULT_REASON}${settlement.localFault}`
				: `provider error: ${settlement.detail}`;
			return andThen(checked, { type: "wait", kind: settlement.wait, reason, resumeAt: null }, facts);
		}
		case "usage_wait": {
			const checked = recheckBeforeWait(state, facts);
			if (!working(checked.state)) return checked;
			const model = facts.model?.();
			const scope =
				settledRun.error?.scope ??
				(model ? { provider: model.provider, model: model.id, api: String(model.api) } : undefined);
			if (!scope) return andThen(checked, { type: "usage_limited", detail: settlement.detail }, facts);
			// Rule: retries are bounded; past usageRetries in a row the goal stops as usage_limited.
			const retries = (goal.usageRetries ?? 0) + 1;
			const bound = facts.settings.usageRetries;
			if (bound !== null && retries > bound) {
				const detail = `${settlement.detail} (still limited after ${bound} retries; /goal resume tries again)`;
				return andThen(checked, { type: "usage_limited", detail }, facts);
			}
			const counted = {
				...checked,
				state: { ...checked.state, goal: { ...(checked.state.goal as GoalRecord), usageRetries: retries } },
			};
			const usageLimit = { type: "wait" as const, kind: "usage_limit" as const, usageLimit: scope };
			const reason = `usage limit: ${settlement.detail}`;
			const resumeAt = facts.now + USAGE_FALLBACK_MS;
			const waiting = andThen(counted, { ...usageLimit, reason, resumeAt }, facts);
			const scoped = stopOnModelMismatch(waiting, model, facts);
			return scoped === waiting ? withEffects(waiting, { type: "queryUsage" }) : scoped;
		}
		case "keep":
		case "none":
			return start;
	}
}

/** Rule: a restored goal rechecks its budget, its helper tools, then its safety limits, and wakes. */
function restoreGoal(state: GoalState, facts: GoalFacts): Transition {
	let result = reduceStep(state, { type: "budget_check" }, facts);
	// A restored goal needs goal_complete and goal_blocked; the allowlist is never widened for it.
	if (result.state.goal?.status === "active" && facts.helpersAvailable && !facts.helpersAvailable())
		result = andThen(result, { type: "pause", reason: "helpers-unavailable" }, facts);
	// Settings may have lowered a limit below the current count: stop instead of idling "active".
	const goal = result.state.goal;
	const limit = goal?.status === "active" ? limitReached(goal.safety, facts.settings) : undefined;
	if (goal && limit) result = andThen(result, pauseFor(limit, goal.safety), facts);
	const current = result.state.goal;
	if (!current || !working(result.state)) return result;
	// A restart or branch switch leaves no trace the replay could read: persisting here restarts the
	// replayed clock now, so offline time (or another branch's) never counts after a later crash.
	const checkpoint = { ...current, clock: foldClock(current.clock, facts.now) };
	return {
		state: { ...result.state, goal: checkpoint },
		effects: [...result.effects, { type: "persist" }, wake("wake", "afterHandlers")],
	};
}

/** Rule: a passed deadline wakes the goal with one request (a usage-limit wait: one recovery request). */
function deadline(state: GoalState, resumeAt: number, facts: GoalFacts): Transition {
	const wait = state.goal?.status === "active" ? state.goal.wait : undefined;
	if (wait?.resumeAt !== resumeAt) return unchanged(state);
	const recovery = wait.kind === "usage_limit";
	if (recovery) {
		const scoped = stopOnModelMismatch(unchanged(state), facts.model?.(), facts);
		if (scoped.state !== state) return scoped;
	}
	const woken = reduceStep(state, { type: "wake" }, facts);
	return withEffects(woken, wake(recovery ? "recovery" : "wake", "now"));
}

/** The composed rules, before persist is added. */
function reduceRules(state: GoalState, event: GoalEvent, facts: GoalFacts): Transition {
	switch (event.type) {
		case "settled": {
			const settled = settleGoal(state, event, facts);
			// Rule: an active goal that got no continuation at its boundary starts again from idle,
			// unless the user aborted the run; pi-goal's own abort of a stale prompt publishes nothing.
			const publish: GoalEffect[] = event.staleAbort ? [] : [{ type: "publishContract" }];
			const again =
				working(settled.state) && !event.run.aborted ? [wake("continuation", "afterHandlers")] : [];
			return withEffects(settled, ...publish, ...again);
		}
		case "restored":
			return restoreGoal(state, facts);
		case "deadline":
			return deadline(state, event.resumeAt, facts);
		case "foreign_run": {
			// Rule: a newer user or extension run supersedes a queued or delivered-but-unstarted goal
			// prompt, and wakes quiet provider-error waiting (same goal id).
			const kind = state.goal?.status === "active" ? state.goal.wait?.kind : undefined;
			const providerWait = kind === "provider_error" || kind === "provider_retry";
			const woken = providerWait ? reduceStep(state, { type: "wake" }, facts) : unchanged(state);
			return withEffects(woken, { type: "cancelWake" });
		}
		case "recovery_failed":
			// Rule: a failed or cancelled length/overflow recovery cancels a pending ordinary continuation.
			return withEffects(unchanged(state), { type: "cancelWake" });
		case "manual_compaction":
			// Rule: manual compaction emits no agent_settled: at most one fresh intent, through the idle gates.
			return working(state)
				? withEffects(unchanged(state), wake("continuation", "afterHandlers"))
				: unchanged(state);
		case "before_settle":
			return beforeSettle(state, event, facts);
		case "prompt_due":
			return promptDue(state, event.kind, facts);
		case "compacted":
			return compacted(state, event);
		case "checkpoint":
			return checkpoint(state, facts);
		case "model_check":
			return stopOnModelMismatch(unchanged(state), event.model, facts);
		case "edit": {
			const edited = reduceStep(state, event, facts);
			if (edited.error) return edited;
			// Rule: an edit re-checks the budget at once (a lowered budget already used up stops the goal).
			const checked = andThen(edited, { type: "budget_check" }, facts);
			const kickoff = working(checked.state) ? [wake("kickoff", "now")] : [];
			// The kickoff first: a run it starts carries the contract (before_agent_start), else it is appended.
			return withEffects(checked, ...kickoff, { type: "publishContract" });
		}
		case "start": {
			const started = reduceStep(state, event, facts);
			if (started.error) return started;
			const goalId = event.id;
			const owner: GoalEffect[] = event.runId ? [{ type: "runStarted", runId: event.runId, goalId }] : [];
			return withEffects(started, ...owner, wake("kickoff", "now"));
		}
		case "resume": {
			const resumed = reduceStep(state, event, facts);
			if (resumed.error || !working(resumed.state)) return resumed;
			return withEffects(resumed, wake("resume", "now"));
		}
		case "pause":
		case "clear": {
			const stopped = reduceStep(state, event, facts);
			// Rule: the user's pause or clear publishes the inactive contract while idle.
			// A managed run's cancel publishes nothing (as its cancel did when it cleared): its runner decides.
			const byUser = event.type === "pause" ? event.reason === "user" : event.reason !== "cancelled";
			return stopped.error || !byUser ? stopped : withEffects(stopped, { type: "publishContract" });
		}
		default:
			return reduceStep(state, event, facts);
	}
}

/** One transition of the goal state machine: the rules, with `persist` first when an entry is due. */
export function reduceGoal(state: GoalState, event: GoalEvent, facts: GoalFacts): Transition {
	const result = reduceRules(state, event, facts);
	if (result.error || result.state === state) return result;
	if (!persistWorthy(state, result.state) || result.effects.some((effect) => effect.type === "persist"))
		return result;
	return { ...result, effects: [{ type: "persist" }, ...result.effects] };
}
