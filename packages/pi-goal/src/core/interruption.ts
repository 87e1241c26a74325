/**
 * Rule: an abort Pi makes to compact is not an interruption (pure). `ctx.compact()` (any
 * extension's: Pi's trigger-compact example, an auto-compacting extension) aborts the run under way
 * first; Pi's order is abort → agent_settled(aborted) → session_before_compact →
 * session_compact | session_compact_failed (dist/core/agent-session.js, compact()). So an aborted
 * settle of the goal's run is held undecided until it is known whether a compaction follows at once:
 * one that succeeds leaves the goal active (it continues in the same goal id, goal-host-rules.ts
 * `compacted`); one that is cancelled or fails, or none at all (the user's Escape), settles the held
 * run as aborted: paused (interrupted). This refines seed 002's "a user pause or aborted turn
 * produces paused" (docs/pi-goal-lifecycle.md).
 */

/** What the judge says about a held aborted run. */
export type HeldVerdict<F> =
	| { readonly kind: "interrupted"; readonly settled: F } // settle it as aborted now
	| { readonly kind: "compaction" } // Pi's compaction abort: the goal stays active
	| { readonly kind: "undecided" };

const UNDECIDED = { kind: "undecided" } as const;

/** Holds at most one aborted settle of the goal's run until a compaction follows it, or none does. */
export class AbortedRunJudge<F> {
	#held: F | undefined;
	#compacting = false;

	/** Whether an aborted run waits for the verdict. */
	get holding(): boolean {
		return this.#held !== undefined;
	}

	/** The goal's run settled aborted: hold it. */
	hold(settled: F): void {
		this.#held = settled;
		this.#compacting = false;
	}

	/** Pi started a compaction: a held run was aborted for it. */
	compactionStarted(): void {
		if (this.#held !== undefined) this.#compacting = true;
	}

	/** The compaction succeeded: the held run was Pi's compaction abort; the goal stays active. */
	compactionSucceeded(): HeldVerdict<F> {
		if (this.#held === undefined) return UNDECIDED;
		this.#held = undefined;
		this.#compacting = false;
		return { kind: "compaction" };
	}

	/** The compaction was cancelled or failed: the held run was interrupted after all. */
	compactionFailed(): HeldVerdict<F> {
		return this.#release();
	}

	/**
	 * The moment a compaction would have started has passed (the settle handlers ran): without one
	 * (`compactionUnderWay` false and none started) the abort was the user's.
	 */
	windowClosed(compactionUnderWay: boolean): HeldVerdict<F> {
		if (this.#held === undefined || this.#compacting) return UNDECIDED;
		if (compactionUnderWay) {
			this.#compacting = true;
			return UNDECIDED;
		}
		return this.#release();
	}

	/** Something else happened first (a new run, shutdown): the held run was interrupted. */
	flush(): HeldVerdict<F> {
		return this.#release();
	}

	#release(): HeldVerdict<F> {
		const held = this.#held;
		this.#held = undefined;
		this.#compacting = false;
		return held === undefined ? UNDECIDED : { kind: "interrupted", settled: held };
	}
}
