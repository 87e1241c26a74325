/**
 * Shared types and public names of pi-goal. Pure: nothing here imports Pi at runtime.
 */
import type { StuckStep } from "./stuck-facts.js";

/** Session entry type for persisted goal state. */
export const STATE_ENTRY = "pi-goal/state";
/** Custom message type of the hidden, versioned goal contract. */
export const CONTRACT_MESSAGE = "pi-goal/contract";
/** Custom message type of a goal-owned continuation prompt (hidden). */
export const CONTINUATION_MESSAGE = "pi-goal/continuation";
/**
 * The owner mark on every entry and message pi-goal writes (`owner` in their data/details). Other
 * goal extensions write entries and messages of the same `pi-goal/*` types; ours carry this mark
 * (entries of earlier versions of ours carry none and are told apart by their fields, ownership.ts).
 */
export const GOAL_OWNER = "pi-lifecycle/pi-goal" as const;
/** Footer status key. */
export const STATUS_KEY = "pi-goal";
/** Tool names (public, DESIGN.md §3). */
export const TOOL_NAMES = ["goal_complete", "goal_blocked", "goal_wait"] as const;

/** Canonical goal status. Waiting is `active` with a {@link GoalWait}. */
export type GoalStatus = "active" | "paused" | "complete" | "blocked" | "budget_limited" | "usage_limited";

/** Every status (persistence validates against it). */
export const GOAL_STATUSES: readonly GoalStatus[] = [
	"active",
	"paused",
	"complete",
	"blocked",
	"budget_limited",
	"usage_limited",
];

/** Why a goal is paused. */
export type PauseReason =
	| "user" // /goal pause
	| "interrupted" // the run was aborted (Escape) while the goal was active
	| "cancelled" // a managed run's pi-goal:cancel (the peer's protocol pauses)
	| "automatic-turns" // automaticTurns cap reached
	| "no-progress" // noProgressTurns identical tool-free replies
	| "stuck" // the stuck detector: the same action, error or cycle repeated (stuck.ts)
	| "workflow-busy" // another workflow holds workflow:mutex:v1 on restore
	| "helpers-unavailable"; // goal_complete or goal_blocked is not an active tool

/**
 * Why a goal waits. `explicit`: goal_wait. `provider_error`: a native-ineligible assistant error
 * (no retry was attempted). `provider_retry`: a native-eligible error whose recovery did not
 * produce a usable response (retries exhausted or disabled). `usage_limit`: a recognised usage
 * limit with `retryUsageLimits` on (scheduled recovery).
 */
export type WaitKind = "explicit" | "provider_error" | "provider_retry" | "usage_limit";

/** The model a usage-limit wait belongs to (from the rejected assistant message). */
export interface UsageLimitScope {
	/** Provider id, e.g. `openai`. */
	readonly provider: string;
	/** Model id, e.g. `gpt-5`. */
	readonly model: string;
	/** API id, e.g. `openai-responses`. */
	readonly api: string;
}

/** A wait: goal_wait, quiet provider-error waiting, or usage-limit recovery. */
export interface GoalWait {
	/** What the goal waits for (shown in the footer; bounded and sanitised). */
	readonly reason: string;
	/** Absolute deadline (epoch ms), or null for "until the user resumes or writes". */
	readonly resumeAt: number | null;
	/** Why it waits; absent in records written before issue 5 (= explicit). */
	readonly kind?: WaitKind;
	/** Present only on usage-limit recovery waits. */
	readonly usageLimit?: UsageLimitScope;
}

/** Token accounting of one goal, in branch-total units. */
export interface GoalUsage {
	/** Tokens counted during earlier active periods. */
	readonly spent: number;
	/** Branch token total when the current active period began; null when not active. */
	readonly baseline: number | null;
}

/** Active elapsed time. */
export interface GoalClock {
	/** Milliseconds accumulated in earlier active, non-waiting periods. */
	readonly activeMs: number;
	/** Start of the current active, non-waiting period (epoch ms), or null. */
	readonly since: number | null;
}

/** Automatic-work safety counters; they survive reload and compaction. */
export interface GoalSafety {
	/** Moves on every user-control boundary that resets the counters. */
	readonly epoch: number;
	/** Responses (turns) of automatic goal work in this epoch. */
	readonly automaticTurns: number;
	/** Consecutive identical tool-free replies. */
	readonly noProgress: number;
	/** Fixed-size fingerprint of the last tool-free reply, or null. */
	readonly fingerprint: string | null;
	/**
	 * The stuck detector's recent steps (fingerprints and short labels, at most 8). Written with
	 * each state entry and rebuilt by the restore's replay from the responses after it, so a reload
	 * or a restart in the middle of stuck work does not restart the count.
	 */
	readonly recent?: readonly StuckStep[];
}

/** One goal. */
export interface GoalRecord {
	/** Current goal id; rotates on edit and on resume from a stopped state. */
	readonly id: string;
	/** What the user asked for (1–4000 characters). */
	readonly objective: string;
	/** Token budget, or null for none. */
	readonly tokenBudget: number | null;
	/** Canonical status. */
	readonly status: GoalStatus;
	/** Why the goal is paused (status paused). */
	readonly pauseReason?: PauseReason;
	/** The pause's reason in plain words, with what to do next (a safety pause; shown to the user). */
	readonly pauseDetail?: string;
	/** Summary (complete) or reason (blocked) given by the model. */
	readonly outcome?: string;
	/** Present while waiting (status stays active). */
	readonly wait?: GoalWait;
	/** Continuations sent for this goal id. */
	readonly iteration: number;
	/** Token accounting. */
	readonly usage: GoalUsage;
	/** Active elapsed time. */
	readonly clock: GoalClock;
	/** Safety counters. */
	readonly safety: GoalSafety;
	/** Managed-run id when another extension started the goal over the bus. */
	readonly runId?: string;
	/** Money limit in US dollars (`/goal --cost 2.50`), from the cost Pi reports with each response. */
	readonly costLimit?: number;
	/** Dollars the goal's responses cost so far (per response; re-derived on restore like tokens). */
	readonly costSpent?: number;
	/** The model reported no cost (0 or absent with tokens > 0) while a money limit was set: said once. */
	readonly costUnreported?: true;
	/** A tool other than the goal tools ran for this goal (goal_complete's guard; kept across resume). */
	readonly toolWork?: true;
	/** Usage-limit waits in a row without a usable response (retryUsageLimits; bounded by usageRetries). */
	readonly usageRetries?: number;
}

/** Whole persisted state of pi-goal on a branch. */
export interface GoalState {
	/** The goal, or null when none (never started or cleared). */
	readonly goal: GoalRecord | null;
	/** Contract revision: moves on every contract-relevant transition. */
	readonly revision: number;
}

/** Effective settings. */
export interface GoalSettings {
	/** Cap on automatic responses per safety epoch; null = unlimited. */
	readonly automaticTurns: number | null;
	/** Identical tool-free replies that pause the goal; null = off. */
	readonly noProgressTurns: number | null;
	/** Stuck detector: the same tool call with the same result this many responses in a row; null = off. */
	readonly repeatedActions: number | null;
	/** Stuck detector: the same error this many responses in a row; null = off. */
	readonly repeatedErrors: number | null;
	/** Stuck detector: the last this-many responses cycle between two or three actions; null = off. */
	readonly cycleActions: number | null;
	/** Wait for a recognised usage limit (scheduled recovery) instead of stopping as usage_limited. */
	readonly retryUsageLimits: boolean;
	/** Usage-limit retries in a row before the goal stops as usage_limited; null = unlimited. */
	readonly usageRetries: number | null;
	/** Cooperate with the managed-run channels (`pi-goal:start`/`cancel`); off by default, as the peer's `rpc.enabled`. */
	readonly managedRuns: boolean;
}

/** Frozen defaults. */
export const DEFAULT_SETTINGS: GoalSettings = Object.freeze({
	automaticTurns: 25,
	noProgressTurns: 3,
	repeatedActions: 4,
	repeatedErrors: 4,
	cycleActions: 6,
	retryUsageLimits: false,
	usageRetries: 5,
	managedRuns: false,
});

/** Shortest goal_wait, in ms. */
export const MIN_WAIT_MS = 10_000;
/** Longest objective, in characters. */
export const MAX_OBJECTIVE = 4000;

/** Fallback delay of usage-limit recovery when no usable reset hint exists (15 minutes). */
export const USAGE_FALLBACK_MS = 15 * 60 * 1000;
/** Longest displayed error detail, in characters. */
export const MAX_DETAIL = 160;

/** Whether a status is stopped (not active). */
export function isStopped(status: GoalStatus): boolean {
	return status !== "active";
}

/** Whether a goal is unfinished (a new goal must ask before replacing it). */
export function isUnfinished(goal: GoalRecord | null): boolean {
	return (
		goal !== null && (goal.status === "active" || goal.status === "paused" || goal.status === "usage_limited")
	);
}
