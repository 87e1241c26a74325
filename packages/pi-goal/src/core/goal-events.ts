/**
 * The vocabulary of the goal state machine (types only): the events adapters dispatch, the facts
 * a transition may read and the named effects the controller's one effect runner executes.
 */
import type { ContinuationDetails } from "./contract.js";
import type { RunFacts, SettleOutcome } from "./outcome.js";
import type { TurnFacts } from "./safety.js";
import type { GoalSettings, GoalState, GoalStatus, PauseReason, UsageLimitScope, WaitKind } from "./types.js";

/** The selected model as scope checks read it. */
export interface ModelRef {
	readonly provider: string;
	readonly id: string;
	readonly name?: string;
	readonly api?: unknown;
}

/** Facts every transition may read; the lazy ones are read only by the rules that need them. */
export interface GoalFacts {
	/** Epoch ms. */
	readonly now: number;
	/** Running token total of the current branch. */
	readonly branchTotal: number;
	/** Effective settings. */
	readonly settings: GoalSettings;
	/** Whether goal_complete and goal_blocked are active tools (lazy; absent: available). */
	readonly helpersAvailable?: () => boolean;
	/** The selected model (lazy; absent: none known). */
	readonly model?: () => ModelRef | undefined;
}

/** Why a goal prompt is sent from idle. */
export type WakeKind = ContinuationDetails["kind"];

/** Inputs to the state machine. */
export type GoalEvent =
	| {
			readonly type: "start";
			readonly id: string;
			readonly objective: string;
			readonly tokenBudget: number | null;
			readonly runId?: string;
			/** Money limit in US dollars, or absent for none. */
			readonly costLimit?: number;
	  }
	| { readonly type: "pause"; readonly reason: PauseReason; readonly detail?: string }
	| { readonly type: "resume"; readonly newId: string }
	| {
			readonly type: "edit";
			readonly newId: string;
			readonly objective: string;
			readonly tokenBudget?: number | null;
			/** A new money limit (US dollars); null removes it; absent keeps the current one. */
			readonly costLimit?: number | null;
	  }
	| { readonly type: "clear"; readonly reason?: "user" | "cancelled"; readonly detail?: string }
	/** `byResponse`: called by the model (goal_complete/goal_blocked), in a response not counted yet. */
	| { readonly type: "complete"; readonly summary: string; readonly byResponse?: true }
	| { readonly type: "blocked"; readonly reason: string; readonly byResponse?: true }
	| {
			readonly type: "wait";
			readonly reason: string;
			readonly resumeAt: number | null;
			readonly kind?: WaitKind;
			readonly usageLimit?: UsageLimitScope;
	  }
	| { readonly type: "usage_limited"; readonly detail: string }
	| { readonly type: "reschedule"; readonly from: number; readonly to: number }
	/** A user's message or a non-goal run ends the wait (no wake-up is requested: that run works). */
	| { readonly type: "wake" }
	/** The wait deadline `resumeAt` passed (its timer fired). */
	| { readonly type: "deadline"; readonly resumeAt: number }
	/** The selected model may have changed (model_select, a due usage-limit wait). */
	| { readonly type: "model_check"; readonly model: ModelRef | undefined }
	| { readonly type: "continued" }
	/** One response's reported cost (US dollars; 0 when the model reports none) and its tokens. */
	| { readonly type: "cost"; readonly cost: number; readonly tokens: number }
	/** A tool other than the goal tools ran for the active goal (once per goal). */
	| { readonly type: "tool_work" }
	| { readonly type: "turn"; readonly turn: TurnFacts }
	| { readonly type: "budget_check" }
	/**
	 * A run settled (agent_settled). `run.aborted` is the user's abort; `staleAbort` says pi-goal
	 * aborted the run itself (a stale goal prompt). `owned`: the goal belongs to this runtime.
	 */
	| {
			readonly type: "settled";
			readonly run: RunFacts;
			readonly staleAbort: boolean;
			readonly owned: boolean;
	  }
	/** A user's or another extension's run starts: it supersedes a queued or unstarted goal prompt. */
	| { readonly type: "foreign_run" }
	/** Pi gave up (or the user cancelled) length/overflow compaction recovery of this run. */
	| { readonly type: "recovery_failed" }
	/** A manual compaction finished without a retry (Pi emits no agent_settled after it). */
	| { readonly type: "manual_compaction" }
	/** The goal was restored from the branch (session_start, session_tree) and bound to the session. */
	| { readonly type: "restored" }
	/**
	 * Pi is about to settle a run (agent_before_settle): may the goal continue inside it? The host
	 * facts: Pi's outcome and the run's facts, whether the goal belongs to this runtime, whether user
	 * work is queued or the run's signal aborted, and whether a usage-limit recovery is queued.
	 */
	| {
			readonly type: "before_settle";
			readonly outcome: SettleOutcome;
			readonly run: Omit<RunFacts, "aborted">;
			readonly owned: boolean;
			readonly queuedWork: boolean;
			readonly aborted: boolean;
			readonly recoveryQueued: boolean;
	  }
	/** An idle goal prompt of `kind` is about to be sent (the dispatcher found Pi idle). */
	| { readonly type: "prompt_due"; readonly kind: WakeKind }
	/**
	 * A compaction finished; the window now holds contract `revision` (-1: none). `afterRun`: it is
	 * Pi's post-run threshold check (between agent_end and the next agent_start).
	 */
	| {
			readonly type: "compacted";
			readonly revision: number;
			readonly manual: boolean;
			readonly willRetry: boolean;
			readonly afterRun: boolean;
	  }
	/** Before a compaction and at shutdown: the running goal's time is folded in and written. */
	| { readonly type: "checkpoint" };

/** Terminal statuses a managed run can end with. */
export type TerminalStatus = GoalStatus | "cleared" | "cancelled" | "replaced";

/** Named effects, executed in order by the controller's effect runner. */
export type GoalEffect =
	/** Write the new state as a session entry (a change a restore must see). */
	| { readonly type: "persist" }
	/** Tell a managed run's owner that its goal started (before the kickoff: the owner can still cancel). */
	| { readonly type: "runStarted"; readonly runId: string; readonly goalId: string }
	/** Abort the run under way (when Pi is not idle). */
	| { readonly type: "abort" }
	/** Tell a managed run's owner its one terminal state. */
	| {
			readonly type: "terminal";
			readonly runId: string;
			readonly goalId: string;
			readonly status: TerminalStatus;
			readonly detail?: string;
			readonly tokens: number;
	  }
	/** Drop the queued wake-up and invalidate a delivered but unstarted goal prompt. */
	| { readonly type: "cancelWake" }
	/** Append a missing contract revision now if Pi is idle (no run is started). */
	| { readonly type: "publishContract" }
	/**
	 * Queue an idle goal prompt and try to send it: `now`, or `afterHandlers` (once the current
	 * handler chain returned: inside agent_settled and a restore Pi becomes idle only then).
	 */
	| { readonly type: "requestWake"; readonly kind: WakeKind; readonly when: "now" | "afterHandlers" }
	/** Ask usage:query:v1 for a reset hint for the new usage-limit wait. */
	| { readonly type: "queryUsage" }
	/**
	 * Continue inside the settling run (agent_before_settle): the boundary proposes a goal prompt of
	 * `kind` with `continue: true`, and the run ahead counts as automatic work (a recovery: exempt).
	 */
	| { readonly type: "continueInRun"; readonly kind: "continuation" | "recovery" }
	/** Queue a missing contract revision as a steering message if a run is under way (after a compaction). */
	| { readonly type: "steerContract" };

/** Result of one transition. */
export interface Transition {
	/** Next state (the same object when nothing changed). */
	readonly state: GoalState;
	/** Effects to apply, in order. */
	readonly effects: readonly GoalEffect[];
	/** Why the event was rejected (state unchanged). */
	readonly error?: string;
}
