/**
 * What one runtime knows besides the persisted goal state (pure): effective settings, the running
 * token total of the branch and which contract revision the context window holds. These change
 * by events too (`settings`, `tokens`, `window`), so the controller has no setters; every other
 * event goes to the goal state machine with facts read from here.
 */
import { type ContractDetails, contractMessage, type GoalMessage } from "./contract.js";
import type { GoalEffect, GoalEvent, GoalFacts, Transition } from "./goal-events.js";
import { EMPTY_STATE, reduceGoal } from "./goal-machine.js";
import { DEFAULT_SETTINGS, type GoalRecord, type GoalSettings, type GoalState } from "./types.js";

/** The runtime's state: the goal (persisted) and what the runtime knows about the session. */
export interface GoalRuntime {
	/** The goal state (written to the session). */
	readonly goal: GoalState;
	/** Effective settings. */
	readonly settings: GoalSettings;
	/** Running token total of the branch. */
	readonly branchTotal: number;
	/** The assistant message counted last, until it is seen on the branch (Pi persists it after message_end). */
	readonly lastCounted?: { readonly leafBefore: string | null; readonly tokens: number };
	/** The contract revision the current context window is known to hold (-1: none). */
	readonly windowRevision: number;
	/** The last goal removed by clear, for its inactive contract revision. */
	readonly cleared?: GoalRecord;
}

/** Events about the runtime itself; every other event is a goal event. */
export type RuntimeEvent =
	| GoalEvent
	/** Effective settings were loaded or changed; `changed` names the key the user changed. */
	| { readonly type: "settings"; readonly settings: GoalSettings; readonly changed?: keyof GoalSettings }
	/** One assistant message's tokens (message_end, before Pi persists it; `leafBefore` is the leaf then). */
	| { readonly type: "tokens"; readonly tokens: number; readonly leafBefore?: string | null }
	/** A contract revision entered the window (-1: the window lost its messages). */
	| { readonly type: "window"; readonly revision: number };

/** Effects of runtime events besides the goal's. */
export type RuntimeEffect =
	| GoalEffect
	/** The footer follows (settings change what it shows). */
	| { readonly type: "refreshFooter" }
	/** The window's revision moved: the context fallback and the boundaries re-arm. */
	| { readonly type: "followWindow" };

/** Result of one runtime transition. */
export interface RuntimeTransition {
	readonly runtime: GoalRuntime;
	readonly effects: readonly RuntimeEffect[];
	readonly error?: string;
}

/** A runtime before any session is bound. */
export const EMPTY_RUNTIME: GoalRuntime = Object.freeze({
	goal: EMPTY_STATE,
	settings: DEFAULT_SETTINGS,
	branchTotal: 0,
	windowRevision: -1,
});

/** What the reducer reads besides the runtime: the clock and the lazy host facts. */
export type HostFacts = Omit<GoalFacts, "branchTotal" | "settings">;

/** The goal machine's facts in this runtime. */
export function goalFacts(runtime: GoalRuntime, host: HostFacts): GoalFacts {
	return { ...host, branchTotal: runtime.branchTotal, settings: runtime.settings };
}

function withGoal(runtime: GoalRuntime, transition: Transition, event: GoalEvent): RuntimeTransition {
	if (transition.error) return { runtime, effects: [], error: transition.error };
	const before = runtime.goal.goal;
	const cleared =
		event.type === "clear" && before && transition.state !== runtime.goal ? before : runtime.cleared;
	const next =
		transition.state === runtime.goal && cleared === runtime.cleared
			? runtime
			: { ...runtime, goal: transition.state, ...(cleared ? { cleared } : {}) };
	return { runtime: next, effects: transition.effects };
}

/** One transition of the runtime. */
export function reduceRuntime(runtime: GoalRuntime, event: RuntimeEvent, host: HostFacts): RuntimeTransition {
	switch (event.type) {
		case "settings": {
			const next = { ...runtime, settings: event.settings };
			const goal = next.goal.goal;
			const wait = goal?.status === "active" ? goal.wait : undefined;
			// Rule: turning retryUsageLimits off stops a pending usage-limit wait as usage_limited
			// (turning it on never restarts a stopped goal).
			if (
				event.changed === "retryUsageLimits" &&
				!event.settings.retryUsageLimits &&
				wait?.kind === "usage_limit"
			) {
				const stop = { type: "usage_limited", detail: "usage-limit recovery was turned off" } as const;
				const stopped = withGoal(next, reduceGoal(next.goal, stop, goalFacts(next, host)), stop);
				return { ...stopped, effects: [...stopped.effects, { type: "refreshFooter" }] };
			}
			return { runtime: next, effects: [{ type: "refreshFooter" }] };
		}
		case "tokens": {
			if (event.tokens <= 0) return { runtime, effects: [] };
			const lastCounted =
				event.leafBefore === undefined
					? runtime.lastCounted
					: { leafBefore: event.leafBefore, tokens: event.tokens };
			const next = { ...runtime, branchTotal: runtime.branchTotal + event.tokens };
			return { runtime: lastCounted ? { ...next, lastCounted } : next, effects: [] };
		}
		case "window":
			if (runtime.windowRevision === event.revision) return { runtime, effects: [] };
			return { runtime: { ...runtime, windowRevision: event.revision }, effects: [{ type: "followWindow" }] };
		default:
			return withGoal(runtime, reduceGoal(runtime.goal, event, goalFacts(runtime, host)), event);
	}
}

/**
 * The contract message the window is missing, if any: the current revision of an active goal,
 * or one inactive revision after a stop when the window held an earlier revision.
 */
export function pendingContract(runtime: GoalRuntime): GoalMessage<ContractDetails> | undefined {
	const { goal, revision } = runtime.goal;
	if (runtime.windowRevision === revision) return undefined;
	if (goal?.status === "active") return contractMessage(goal, revision);
	if (runtime.windowRevision < 0) return undefined;
	if (goal) return contractMessage(goal, revision);
	return runtime.cleared ? contractMessage(runtime.cleared, revision, "cleared") : undefined;
}
