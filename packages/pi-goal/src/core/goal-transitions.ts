/**
 * The primitive goal transitions (pure): one event changes the goal record, with the effects that
 * belong to that change alone (abort, terminal, cancelWake). goal-machine.ts composes them into
 * the rules adapters dispatch (what follows an edit, a settled run, a restore, a deadline) and adds
 * persist and the outward effects. Invalid transitions return `error` and the unchanged state.
 */
import { budgetExhausted, costExhausted, formatCost, startClock, stopClock } from "./accounting.js";
import type { GoalEffect, GoalEvent, GoalFacts, Transition, WakeKind } from "./goal-events.js";
import { activate, deactivate, terminal } from "./goal-record-steps.js";
import { countTurn, freshSafety } from "./safety.js";
import { type GoalRecord, type GoalState, type GoalStatus, MIN_WAIT_MS } from "./types.js";

/** The events a primitive transition handles (the composed ones are goal-machine.ts's). */
export type StepEvent = Exclude<
	GoalEvent,
	{
		type:
			| "settled"
			| "restored"
			| "deadline"
			| "model_check"
			| "foreign_run"
			| "recovery_failed"
			| "manual_compaction"
			| "before_settle"
			| "prompt_due"
			| "compacted"
			| "checkpoint";
	}
>;

/** The empty state. */
export const EMPTY_STATE: GoalState = Object.freeze({ goal: null, revision: 0 });

export function unchanged(state: GoalState, error?: string): Transition {
	return error === undefined ? { state, effects: [] } : { state, effects: [], error };
}

/** Stops an active goal with a stopped status. */
/** A managed run's terminal reason for a pause: a cancel echoes the caller's reason (the peer's protocol). */
function runReason(extra: Partial<GoalRecord>): string | undefined {
	if (extra.pauseReason !== "cancelled") return extra.pauseReason;
	return extra.pauseDetail ?? "cancelled by pi-goal:cancel";
}

function stop(
	state: GoalState,
	goal: GoalRecord,
	status: GoalStatus,
	facts: GoalFacts,
	extra: Partial<GoalRecord>,
	abort: boolean,
): Transition {
	const stopped: GoalRecord = { ...deactivate(goal, facts, status), ...extra };
	const effects: GoalEffect[] = abort ? [{ type: "abort" }] : [];
	effects.push(...terminal(stopped, status, facts, extra.outcome ?? runReason(extra)));
	// Stopped: no goal prompt of this goal may start any more (seed: stops cancel delivery intent).
	effects.push({ type: "cancelWake" });
	// A managed run gets exactly one terminal event: a later resume is no longer managed.
	const { runId: _runId, ...next } = stopped;
	return { state: { goal: next, revision: state.revision + 1 }, effects };
}

/** One primitive transition. */
export function reduceStep(state: GoalState, event: StepEvent, facts: GoalFacts): Transition {
	const goal = state.goal;
	switch (event.type) {
		case "start": {
			const effects: GoalEffect[] = goal?.status === "active" ? terminal(goal, "replaced", facts) : [];
			const fresh: GoalRecord = {
				id: event.id,
				objective: event.objective,
				tokenBudget: event.tokenBudget,
				status: "active",
				iteration: 0,
				usage: { spent: 0, baseline: facts.branchTotal },
				clock: { activeMs: 0, since: facts.now },
				safety: freshSafety((goal?.safety.epoch ?? 0) + 1),
				...(event.runId ? { runId: event.runId } : {}),
				...(event.costLimit !== undefined ? { costLimit: event.costLimit } : {}),
			};
			return { state: { goal: fresh, revision: state.revision + 1 }, effects };
		}
		case "pause": {
			if (goal?.status !== "active") return unchanged(state, "No active goal to pause.");
			const detail = event.detail ? { pauseDetail: event.detail } : {};
			// The user's pause and a managed run's cancel stop a run under way; other pauses come at a boundary.
			const abort = event.reason === "user" || event.reason === "cancelled";
			return stop(state, goal, "paused", facts, { pauseReason: event.reason, ...detail }, abort);
		}
		case "resume": {
			if (!goal) return unchanged(state, "No goal to resume. Start one with /goal <objective>.");
			if (goal.status === "active") {
				if (!goal.wait) return unchanged(state, "The goal is already active.");
				const { wait: _wait, ...rest } = goal;
				return {
					state: { ...state, goal: { ...rest, clock: startClock(goal.clock, facts.now) } },
					effects: [],
				};
			}
			if (costExhausted(goal))
				return unchanged(state, "The money limit is reached. Raise it with /goal edit --cost X <objective>.");
			if (budgetExhausted(goal, facts.branchTotal))
				return unchanged(
					state,
					"The token budget is exhausted. Raise it with /goal edit --tokens N <objective>.",
				);
			const resumed: GoalRecord = {
				...activate(goal, facts),
				id: event.newId,
				iteration: 0,
				safety: freshSafety(goal.safety.epoch + 1),
			};
			return { state: { goal: resumed, revision: state.revision + 1 }, effects: [] };
		}
		case "edit": {
			if (!goal) return unchanged(state, "No goal to edit. Start one with /goal <objective>.");
			const tokenBudget = event.tokenBudget === undefined ? goal.tokenBudget : event.tokenBudget;
			const { costLimit: _limit, ...kept } = goal;
			const limited =
				event.costLimit === undefined
					? goal
					: event.costLimit === null
						? kept
						: { ...goal, costLimit: event.costLimit };
			const base: GoalRecord = {
				...limited,
				id: event.newId,
				objective: event.objective,
				tokenBudget,
				iteration: 0,
				safety: freshSafety(goal.safety.epoch + 1),
			};
			let edited: GoalRecord = base;
			if (goal.status === "active") edited = activate(base, facts);
			else if (goal.status === "budget_limited" && !budgetExhausted(base, facts.branchTotal))
				edited = activate(base, facts);
			return { state: { goal: edited, revision: state.revision + 1 }, effects: [] };
		}
		case "clear": {
			if (!goal) return unchanged(state, "No goal to clear.");
			const status = event.reason === "cancelled" ? "cancelled" : "cleared";
			const effects = goal.status === "active" ? terminal(goal, status, facts, event.detail) : [];
			effects.push({ type: "cancelWake" });
			return { state: { goal: null, revision: state.revision + 1 }, effects };
		}
		case "complete": {
			if (goal?.status !== "active") return unchanged(state, "No active goal.");
			const counted = withFinishingResponse(goal, event.byResponse);
			return stop(state, counted, "complete", facts, { outcome: event.summary }, false);
		}
		case "blocked": {
			if (goal?.status !== "active") return unchanged(state, "No active goal.");
			const counted = withFinishingResponse(goal, event.byResponse);
			return stop(state, counted, "blocked", facts, { outcome: event.reason }, false);
		}
		case "wait": {
			if (goal?.status !== "active") return unchanged(state, "No active goal.");
			const waiting: GoalRecord = {
				...goal,
				wait: {
					reason: event.reason,
					resumeAt: event.resumeAt,
					kind: event.kind ?? "explicit",
					...(event.usageLimit ? { usageLimit: event.usageLimit } : {}),
				},
				clock: stopClock(goal.clock, facts.now),
			};
			return { state: { ...state, goal: waiting }, effects: [] };
		}
		case "usage_limited": {
			if (goal?.status !== "active") return unchanged(state, "No active goal.");
			return stop(state, goal, "usage_limited", facts, { outcome: event.detail }, false);
		}
		case "reschedule": {
			// Only the usage-limit wait whose deadline is still `from` moves (a stale hint changes nothing).
			const wait = goal?.status === "active" ? goal.wait : undefined;
			if (!goal || wait?.kind !== "usage_limit" || wait.resumeAt !== event.from) return unchanged(state);
			// Rule: retries are at least the goal_wait floor apart, whatever the usage service says
			// ("resets in 200 ms" must not become five requests a second).
			const to = Math.max(event.to, facts.now + MIN_WAIT_MS);
			if (to === event.from) return unchanged(state);
			return { state: { ...state, goal: { ...goal, wait: { ...wait, resumeAt: to } } }, effects: [] };
		}
		case "wake": {
			if (goal?.status !== "active" || !goal.wait) return unchanged(state);
			const { wait: _wait, ...rest } = goal;
			return {
				state: { ...state, goal: { ...rest, clock: startClock(goal.clock, facts.now) } },
				effects: [],
			};
		}
		case "cost": {
			if (goal?.status !== "active") return unchanged(state);
			// Rule: a model that reports no cost while a money limit is set is said once (the limit
			// cannot work); the goal keeps working within its other limits.
			const unreported =
				goal.costLimit !== undefined && event.cost <= 0 && event.tokens > 0 && !goal.costUnreported;
			if (event.cost <= 0 && !unreported) return unchanged(state);
			// Rule: a reported cost (another model chosen) makes the limit apply again: no longer "unreported".
			const { costUnreported: _was, ...rest } = goal;
			const next: GoalRecord = {
				...(event.cost > 0 ? rest : goal),
				...(event.cost > 0 ? { costSpent: (goal.costSpent ?? 0) + event.cost } : {}),
				...(unreported ? { costUnreported: true as const } : {}),
			};
			return { state: { ...state, goal: next }, effects: [] };
		}
		case "tool_work": {
			if (goal?.status !== "active" || goal.toolWork) return unchanged(state);
			return { state: { ...state, goal: { ...goal, toolWork: true } }, effects: [] };
		}
		case "continued": {
			if (goal?.status !== "active") return unchanged(state);
			return { state: { ...state, goal: { ...goal, iteration: goal.iteration + 1 } }, effects: [] };
		}
		case "turn": {
			if (goal?.status !== "active") return unchanged(state);
			const counted = countTurn(goal.safety, event.turn, facts.settings);
			// A usable response ends a run of usage-limit retries.
			const { usageRetries: _retries, ...rest } = goal;
			const updated: GoalRecord = { ...(event.turn.error ? goal : rest), safety: counted.safety };
			if (!counted.trip) return { state: { ...state, goal: updated }, effects: [] };
			const detail = counted.detail ? { pauseDetail: counted.detail } : {};
			return stop(state, updated, "paused", facts, { pauseReason: counted.trip, ...detail }, false);
		}
		case "budget_check": {
			if (goal?.status !== "active" || !budgetExhausted(goal, facts.branchTotal)) return unchanged(state);
			// A money limit reached says so (a token budget's stop shows its counts in the footer).
			const outcome =
				costExhausted(goal) && goal.costLimit !== undefined
					? `cost limit ${formatCost(goal.costLimit)} reached (${formatCost(goal.costSpent ?? 0)} spent). Raise it with /goal edit --cost X <objective>, or /goal clear.`
					: undefined;
			return stop(state, goal, "budget_limited", facts, outcome ? { outcome } : {}, true);
		}
	}
}

/**
 * Rule: the response that ends the goal counts (issue 30: every response of the goal counts, and
 * the count is what the user sees). A response with tool calls is counted once its tools ran
 * (boundary.ts); its goal_complete or goal_blocked ends the goal first, so the stop counts it,
 * without the breakers, in the one entry the stop writes.
 */
export function withFinishingResponse(goal: GoalRecord, byResponse: boolean | undefined): GoalRecord {
	if (!byResponse) return goal;
	return { ...goal, safety: { ...goal.safety, automaticTurns: goal.safety.automaticTurns + 1 } };
}

/** Whether the goal is active and not waiting (it works, so automatic prompts may follow). */
export function working(state: GoalState): boolean {
	return state.goal?.status === "active" && !state.goal.wait;
}

/** Runs `event` after `first`; a rejected or empty second step leaves `first` as it was. */
export function andThen(first: Transition, event: StepEvent, facts: GoalFacts): Transition {
	const next = reduceStep(first.state, event, facts);
	if (next.error || next.state === first.state) return first;
	return { state: next.state, effects: [...first.effects, ...next.effects] };
}

/** Appends effects to a transition. */
export function withEffects(transition: Transition, ...effects: GoalEffect[]): Transition {
	return effects.length === 0 ? transition : { ...transition, effects: [...transition.effects, ...effects] };
}

/** A wake-up request. */
export function wake(kind: WakeKind, when: "now" | "afterHandlers"): GoalEffect {
	return { type: "requestWake", kind, when };
}

/** Rule: offline time never counts; a restored working goal's clock restarts `now`, any other stands. */
export function offlineTimeDropped(state: GoalState, now: number): GoalState {
	const goal = state.goal;
	if (!goal) return state;
	const since = goal.status === "active" && !goal.wait ? now : null;
	return { ...state, goal: { ...goal, clock: { activeMs: goal.clock.activeMs, since } } };
}

/** Whether a transition moves the goal into the active status (admission needs the mutex). */
export function activates(before: GoalState, after: GoalState): boolean {
	return (
		after.goal?.status === "active" && (before.goal?.status !== "active" || before.goal.id !== after.goal.id)
	);
}
