/**
 * Settlement classification (pure). The adapters collect facts about one run (the final assistant
 * error as Pi's native helpers classified it, compaction recovery events, the settled abort flag)
 * and this module decides what the goal does. Pi owns recovery: nothing here retries or vetoes a
 * retry; it only picks the goal's state after Pi finished.
 */
import type { UsageLimitScope, WaitKind } from "./types.js";

/** What Pi reports about the final attempt (`agent_before_settle.outcome`). */
export type SettleOutcome = "completed" | "aborted" | "error";

/** The final assistant error of a run, classified once (errors.ts). */
export interface ErrorFacts {
	/** Sanitised, bounded error text for display. */
	readonly detail: string;
	/** Pi's `isRetryableAssistantError()` accepted it (native retry eligible). */
	readonly nativeRetryable: boolean;
	/** Pi's `isContextOverflow()` accepted it (native compaction recovery eligible). */
	readonly nativeOverflow: boolean;
	/** Recognised usage limit: usage wording and not native-eligible (never vetoes a native retry). */
	readonly usageLimit: boolean;
	/**
	 * The text reads as a usage limit even though Pi retried it natively. Once Pi's retries are
	 * over, the final such error follows the usage-limit policy, not an indefinite provider wait.
	 */
	readonly usageWording?: boolean;
	/** Provider, model and API that rejected the request (from the assistant message). */
	readonly scope?: UsageLimitScope;
	/** Goal id that was current when the error arrived (a later replacement goal ignores it). */
	readonly goalId?: string;
	/** A local fault (read-only or full session folder, …), named with its next step: not the provider's. */
	readonly localFault?: string;
}

/** How a wait on a local fault starts its reason (the footer and the next step read it). */
export const LOCAL_FAULT_REASON = "local fault: ";

/** What one run left behind at settlement. */
export interface RunFacts {
	/** `agent_settled.aborted`: a full session abort (Escape, /goal pause, ctx.abort()). */
	readonly aborted: boolean;
	/** A `session_compact_failed` with `aborted: true` happened during the run. */
	readonly compactionCancelled: boolean;
	/** Pi gave up length/overflow compaction recovery (`session_compact_failed`, not aborted). */
	readonly compactionRecoveryFailed: boolean;
	/** The final assistant message was an error (undefined otherwise). */
	readonly error?: ErrorFacts;
}

/** The goal's state at the time of settlement. */
export interface GoalFactsAtSettle {
	/** Kind of the wait the goal already has, if any. */
	readonly waiting?: WaitKind;
	/** Effective `retryUsageLimits`. */
	readonly retryUsageLimits: boolean;
}

/** What the goal does with a settled run. */
export type Settlement =
	| { readonly kind: "pause" } // cancelled: paused (interrupted)
	| { readonly kind: "blocked"; readonly reason: string } // compaction recovery failed
	| { readonly kind: "usage_limited"; readonly detail: string } // stopped
	| { readonly kind: "usage_wait"; readonly detail: string } // scheduled recovery (retryUsageLimits)
	| {
			readonly kind: "provider_wait";
			readonly wait: "provider_error" | "provider_retry";
			readonly detail: string;
			readonly localFault?: string;
	  }
	| { readonly kind: "keep" } // an explicit wait accepted earlier stays as it is
	| { readonly kind: "none" }; // nothing to do (completed runs continue at the boundary)

/** Whether a run's final boundary may propose an ordinary continuation. */
export function mayContinue(outcome: SettleOutcome, run: Omit<RunFacts, "aborted">): boolean {
	return outcome === "completed" && !run.error && !run.compactionCancelled && !run.compactionRecoveryFailed;
}

/**
 * Classifies a settled run. Cancellation wins over everything; failed compaction recovery blocks;
 * a recognised usage limit follows the quota policy; any other error waits quietly (an explicit
 * wait already accepted keeps its reason and deadline).
 */
export function classifySettlement(run: RunFacts, goal: GoalFactsAtSettle): Settlement {
	if (run.aborted || run.compactionCancelled) return { kind: "pause" };
	if (run.compactionRecoveryFailed)
		return {
			kind: "blocked",
			reason: "Pi's context compaction recovery failed; no usable response followed.",
		};
	const error = run.error;
	if (!error) return { kind: "none" };
	if (error.usageLimit || (error.usageWording && !error.nativeOverflow))
		return goal.retryUsageLimits
			? { kind: "usage_wait", detail: error.detail }
			: { kind: "usage_limited", detail: error.detail };
	if (goal.waiting === "explicit") return { kind: "keep" };
	const wait = error.nativeRetryable || error.nativeOverflow ? "provider_retry" : "provider_error";
	return {
		kind: "provider_wait",
		wait,
		detail: error.detail,
		...(error.localFault ? { localFault: error.localFault } : {}),
	};
}
