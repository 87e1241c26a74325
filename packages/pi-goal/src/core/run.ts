/**
 * What the current run is and what it left behind (no Pi imports). Pi has no run id: a run starts
 * at before_agent_start, native retries and compaction retries are further attempts of the same
 * run (agent_start without before_agent_start) and keep its manual or automatic origin, and the run
 * ends at agent_settled. The facts collected here feed the settlement classifier (outcome.ts).
 */
import type { ErrorFacts, RunFacts } from "./outcome.js";

/** A `session_compact_failed` as the tracker reads it. */
export interface CompactFailure {
	/** Compaction reason. */
	readonly reason: string;
	/** The compaction was cancelled (abort or an extension's cancel). */
	readonly aborted: boolean;
}

/**
 * Ownership and recovery facts of the current run. Every change is a method named after what
 * happened (a run or an attempt started, a response ended, a compaction started or failed, the
 * goal proposed a continuation, the run settled); adapters read the facts, never write them.
 */
export class RunOwnership {
	#automatic = false;
	#nextAutomatic = false;
	#nextRecovery = false;
	#goalOwned = false;
	#recovery = false;
	#responses = 0;
	#running = false;
	#error: ErrorFacts | undefined;
	#lengthCandidate = false;
	#recoveryConfirmed = false;
	#compactionRecoveryFailed = false;
	#compactionCancelled = false;
	#stale = false;

	/** Whether the current attempt is automatic goal work (a continuation, wake or recovery). */
	get automatic(): boolean {
		return this.#automatic;
	}
	/** The run was started by a goal prompt (kickoff, resume, continuation, wake, recovery). */
	get goalOwned(): boolean {
		return this.#goalOwned;
	}
	/** The run was started by a scheduled usage-limit recovery prompt. */
	get recovery(): boolean {
		return this.#recovery;
	}
	/** Assistant responses so far in this run (a recovery request is work-free only on its first). */
	get responses(): number {
		return this.#responses;
	}
	/** Whether a run is under way (before_agent_start/agent_start … agent_settled). */
	get running(): boolean {
		return this.#running;
	}
	/** The final assistant error so far (cleared by a later non-error response). */
	get error(): ErrorFacts | undefined {
		return this.#error;
	}
	/** The run carries a stale goal prompt that pi-goal aborted (not a user cancellation). */
	get stale(): boolean {
		return this.#stale;
	}

	/** A run starts (before_agent_start). */
	startRun(automatic: boolean, recovery = false, goalOwned = automatic): void {
		this.#reset();
		this.#automatic = automatic;
		this.#goalOwned = goalOwned;
		this.#recovery = recovery;
		this.#running = true;
	}
	/** A stale goal prompt started a run that pi-goal aborts at once. */
	startStale(): void {
		this.startRun(false);
		this.#stale = true;
	}
	/** The goal proposed a boundary continuation (a scheduled recovery request when `recovery`). */
	continuationProposed(recovery: boolean): void {
		this.#nextAutomatic = true;
		this.#nextRecovery = recovery;
	}
	/** An attempt starts (agent_start): a boundary continuation we proposed is automatic work. */
	startAttempt(): void {
		if (!this.#running) this.#reset();
		this.#running = true;
		if (this.#nextAutomatic) {
			this.#automatic = true;
			this.#goalOwned = true;
			this.#recovery = this.#nextRecovery;
			if (this.#recovery) this.#responses = 0; // work-free is judged on the recovery's first response
		}
		this.#nextAutomatic = false;
		this.#nextRecovery = false;
	}
	/** An assistant response ended (message_end). */
	noteResponse(stopReason: string | undefined, error: ErrorFacts | undefined): void {
		this.#responses++;
		this.#error = error;
		this.#lengthCandidate = stopReason === "length";
		// A usable response ends an earlier recovery: a later compaction failure is not about it.
		if (!error && !this.#lengthCandidate) this.#recoveryConfirmed = false;
	}
	/**
	 * A user message entered the run: its prompt, or input Pi runs inside the run (a follow-up or a
	 * steer, the user's or another extension's). What follows answers it: manual work, neither an
	 * automatic turn nor goal work, until the goal's next prompt (as the restore replay counts it).
	 */
	userMessage(): void {
		this.#automatic = false;
		this.#goalOwned = false;
		this.#recovery = false;
		this.#responses = 0;
	}
	/** Pi started a compaction; an overflow compaction that will retry confirms recovery. */
	noteCompactStart(reason: string, willRetry: boolean): void {
		if (reason === "overflow" && willRetry && (this.#lengthCandidate || this.#error?.nativeOverflow))
			this.#recoveryConfirmed = true;
	}
	/** Pi reported a failed compaction. Returns true when it cancels a pending continuation. */
	noteCompactFailed(failure: CompactFailure): boolean {
		if (!this.#running) return false; // independent manual compaction: no run to pause
		if (failure.aborted) {
			this.#compactionCancelled = true;
			return true;
		}
		if (
			failure.reason === "overflow" &&
			(this.#lengthCandidate || this.#error?.nativeOverflow || this.#recoveryConfirmed)
		) {
			this.#compactionRecoveryFailed = true;
			return true;
		}
		return false;
	}
	/** An accepted goal_wait invalidates an older length candidate. */
	dropLengthCandidate(): void {
		this.#lengthCandidate = false;
	}
	/** The facts the run leaves (without the settled abort flag). */
	facts(): Omit<RunFacts, "aborted"> {
		return {
			compactionCancelled: this.#compactionCancelled,
			compactionRecoveryFailed: this.#compactionRecoveryFailed,
			...(this.#error ? { error: this.#error } : {}),
		};
	}
	/** The run settled: returns its facts and forgets them. */
	settle(aborted: boolean): RunFacts {
		const facts = { aborted, ...this.facts() };
		this.#reset();
		return facts;
	}

	#reset(): void {
		this.#automatic = false;
		this.#goalOwned = false;
		this.#nextAutomatic = false;
		this.#recovery = false;
		this.#responses = 0;
		this.#running = false;
		this.#error = undefined;
		this.#lengthCandidate = false;
		this.#recoveryConfirmed = false;
		this.#compactionRecoveryFailed = false;
		this.#compactionCancelled = false;
		this.#stale = false;
	}
}
