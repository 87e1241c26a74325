/**
 * The goal rules at Pi's host boundaries (pure): whether a settling run continues inside itself
 * (agent_before_settle), what an idle goal prompt checks before it is sent, what a compaction
 * republishes, and the checkpoint. Pi needs some answers synchronously (the boundary proposal, the
 * send): the adapter gathers the host facts into one event and reads the decision from the state
 * and the named effects; goal-machine.ts dispatches here.
 */
import { foldClock } from "./accounting.js";
import type { GoalEffect, GoalEvent, GoalFacts, Transition, WakeKind } from "./goal-events.js";
import { andThen, reduceStep, unchanged, wake, withEffects, working } from "./goal-transitions.js";
import { mayContinue } from "./outcome.js";
import { automaticAllowed } from "./safety.js";
import type { GoalState } from "./types.js";

/**
 * Rule: at agent_before_settle a completed run of a working goal this runtime owns rechecks the
 * budget, then the helper tools (hidden after the goal started, it could never finish), and
 * continues inside the same run when no user work is queued, the run was not aborted and the
 * safety limits allow automatic work (a queued usage-limit recovery keeps its kind and exemption).
 */
export function beforeSettle(
	state: GoalState,
	event: Extract<GoalEvent, { type: "before_settle" }>,
	facts: GoalFacts,
): Transition {
	if (!working(state) || !event.owned || !mayContinue(event.outcome, event.run)) return unchanged(state);
	let result = reduceStep(state, { type: "budget_check" }, facts);
	if (working(result.state) && facts.helpersAvailable && !facts.helpersAvailable())
		result = andThen(result, { type: "pause", reason: "helpers-unavailable" }, facts);
	const goal = result.state.goal;
	if (!goal || !working(result.state) || event.queuedWork || event.aborted) return result;
	if (!automaticAllowed(goal.safety, facts.settings)) return result;
	const kind = event.recoveryQueued ? "recovery" : "continuation";
	return withEffects(
		andThen(result, { type: "continued" }, facts),
		{ type: "cancelWake" },
		{ type: "continueInRun", kind },
	);
}

/**
 * Rule: before an idle goal prompt is sent, hidden helper tools stop the goal (it could never
 * finish; nothing is sent); an automatic prompt counts as a continuation.
 */
export function promptDue(state: GoalState, kind: WakeKind, facts: GoalFacts): Transition {
	if (facts.helpersAvailable && !facts.helpersAvailable())
		return reduceStep(state, { type: "pause", reason: "helpers-unavailable" }, facts);
	const automatic = kind === "continuation" || kind === "wake" || kind === "recovery";
	return automatic ? reduceStep(state, { type: "continued" }, facts) : unchanged(state);
}

/**
 * Rule: after a compaction a missing contract revision is appended while idle, or queued as a
 * steering message inside a run (a threshold compaction between turns, an overflow retry), so it
 * precedes the next request; never after Pi's post-run check without a retry (a steering message
 * would start an extra request). A manual compaction (no agent_settled follows) wakes a working goal.
 */
export function compacted(state: GoalState, event: Extract<GoalEvent, { type: "compacted" }>): Transition {
	const effects: GoalEffect[] = [{ type: "publishContract" }];
	if (working(state) && (!event.afterRun || event.willRetry)) effects.push({ type: "steerContract" });
	if (working(state) && event.manual && !event.willRetry) effects.push(wake("continuation", "afterHandlers"));
	return withEffects(unchanged(state), ...effects);
}

/** Rule: a checkpoint (before compaction, at shutdown) folds the running goal's time in and persists it. */
export function checkpoint(state: GoalState, facts: GoalFacts): Transition {
	const goal = state.goal;
	if (goal?.status !== "active") return unchanged(state);
	const next = { ...state, goal: { ...goal, clock: foldClock(goal.clock, facts.now) } };
	return { state: next, effects: [{ type: "persist" }] };
}
