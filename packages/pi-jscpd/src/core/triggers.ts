/**
 * When an automatic check may start (pure).
 *
 * - `agent_settled`: Pi is idle.
 * - A boundary continuation: an `agent_start` that is not the first of its run and follows an
 *   attempt that ended with a final answer (`stopReason: "stop"`): a goal continuing at
 *   `agent_before_settle`. There the tree is at rest — every tool of the previous attempt finished,
 *   the next request is not answered yet — although Pi is not idle. Detected from the kit's run
 *   counter, so it does not depend on the order in which extensions' handlers run.
 * - Never at an auto-retry or a compaction retry (seed 004: nothing runs during recovery): those
 *   follow an attempt that ended with an error or a length stop ({@link endsInRecovery}). Steering
 *   and follow-ups are delivered inside the attempt (no `agent_start`), so they never trigger.
 */
import type { IdentitySnapshot } from "@pi-lifecycle/lifecycle-kit";

/**
 * Whether an `agent_start` (seen after identity moved) continues the run whose first `agent_start`
 * was seen as `lastRun`. The caller stores `snapshot.run` as the next `lastRun`.
 */
export function isContinuationStart(lastRun: number, snapshot: IdentitySnapshot): boolean {
	return snapshot.active && snapshot.running && snapshot.run === lastRun;
}

/**
 * Whether the attempt that `agent_end` closed may be followed by a retry or a compaction retry
 * (its last assistant message did not stop normally). Pi's own `willRetry` is not given to
 * extensions, and a continuation after an exhausted retry is skipped too (the settle checks).
 */
export function endsInRecovery(messages: readonly unknown[]): boolean {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as { role?: unknown; stopReason?: unknown } | undefined;
		if (message?.role === "assistant") return message.stopReason !== "stop";
	}
	return false;
}

/** The facts {@link blockReason} reads. */
export interface BlockFacts {
	/** The runtime is shutting down. */
	readonly shutdown: boolean;
	/** The checkpoint setting. */
	readonly enabled: boolean;
	/** The baseline status (only `accepted` allows checks). */
	readonly baseline: string;
	/** The capability status (`available` allows checks). */
	readonly capability: string | undefined;
	/** The lifecycle identity is active and a context exists. */
	readonly active: boolean;
	/** `ctx.isIdle()`; undefined when the context is stale. */
	readonly idle: () => boolean | undefined;
	/** The caller is at rest inside a run (a boundary continuation). */
	readonly atRest: boolean;
}

/** Why an automatic check may not start now, or undefined. Reads `idle` only when needed. */
export function blockReason(facts: BlockFacts): string | undefined {
	if (facts.shutdown) return "shut down";
	if (!facts.enabled) return "disabled";
	if (facts.baseline !== "accepted") return `baseline ${facts.baseline}`;
	if (facts.capability !== "available") return "jscpd unavailable";
	if (!facts.active) return "inactive";
	if (facts.atRest) return undefined;
	const idle = facts.idle();
	if (idle === undefined) return "inactive";
	return idle ? undefined : "busy";
}
