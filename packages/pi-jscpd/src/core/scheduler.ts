/**
 * The checkpoint scheduler: settled-triggered, dirty-coalesced, asynchronous and latest-generation
 * only. A small Promise owner with generations (no timers, no Pi imports).
 *
 * - Attributable mutations advance the mutation generation ({@link CheckScheduler.markMutation}).
 *   A running automatic check of an older generation is cancelled at once: its result would be
 *   stale, and the next trigger should not find the runner busy with it.
 * - {@link CheckScheduler.requestAutomatic} starts at most one automatic check; while one runs, later
 *   requests coalesce into one latest pending generation.
 * - Explicit work ({@link CheckScheduler.runExplicit}) takes priority: it cancels automatic work.
 * - A completion counts only if the epoch (runtime generation), the scope (branch and project
 *   identity) and the mutation generation are still current and it was not aborted; then its
 *   terminal outcome is recorded once for that generation. Cancelled, superseded, stale or
 *   retryable completions leave the generation unattempted.
 * - {@link CheckScheduler.close} is idempotent, aborts owned work and awaits it.
 */
import { ABORT_REASON } from "./abort-reason.js";

/** What an automatic check returned. */
export type AutomaticResult =
	/** A terminal outcome; `commit` runs synchronously after the freshness check and returns whether it was delivered. */
	| { readonly kind: "terminal"; readonly outcome: string; readonly commit: () => boolean }
	/** Not terminal (baseline pending, cancelled, …): the generation stays eligible. */
	| { readonly kind: "retryable"; readonly reason: string };

/** What the scheduler needs from its owner. */
export interface SchedulerOptions {
	/** Runs one automatic check covering `generation`. Must honour `signal`. */
	readonly runAutomatic: (signal: AbortSignal, generation: number) => Promise<AutomaticResult>;
	/** Branch scope and project identity; compared before and after a check. */
	readonly scope: () => string;
	/**
	 * Why an automatic check may not start now (disabled, baseline not accepted, not idle, …), or
	 * undefined. `atRest` is true when the caller knows the tree is at rest inside a run (a boundary
	 * continuation): then a busy session does not block.
	 */
	readonly blocker?: (atRest: boolean) => string | undefined;
	/** Observes finished automatic checks (for status). */
	readonly onSettled?: (record: CheckRecord) => void;
}

/** How one automatic check ended. */
export interface CheckRecord {
	/** The covered mutation generation. */
	readonly generation: number;
	/** `recorded` consumed the generation; every other value left it eligible. */
	readonly disposition: "recorded" | "stale" | "cancelled" | "retryable" | "undelivered" | "error";
	/** The terminal outcome or the reason. */
	readonly detail: string;
}

/** The answer of {@link CheckScheduler.requestAutomatic}. */
export type RequestAnswer = "started" | "queued" | "coalesced" | "clean" | "blocked" | "closed";

interface ActiveCheck {
	readonly kind: "automatic" | "explicit";
	readonly generation: number;
	readonly controller: AbortController;
	/** Cancelled because a newer mutation superseded it (recorded as stale, not cancelled). */
	superseded: boolean;
	done: Promise<void>;
}

/** A read-only view for status output. */
export interface SchedulerSnapshot {
	/** Runtime epoch (moves on invalidate). */
	readonly epoch: number;
	/** Latest attributable mutation generation. */
	readonly mutationGeneration: number;
	/** Last generation with a recorded terminal automatic outcome. */
	readonly attemptedGeneration: number;
	/** Whether an automatic check is running. */
	readonly automaticActive: boolean;
	/** Number of explicit operations running. */
	readonly explicitActive: number;
	/** The latest pending generation, if any. */
	readonly pending: number | undefined;
	/** Whether the scheduler is closed. */
	readonly closed: boolean;
}

/** See the module comment. */
export class CheckScheduler {
	readonly #options: SchedulerOptions;
	#epoch = 0;
	#mutation = 0;
	#attempted = 0;
	#closed = false;
	#automatic: ActiveCheck | undefined;
	readonly #explicit = new Set<ActiveCheck>();
	#pending: number | undefined;
	readonly #inflight = new Set<Promise<void>>();

	constructor(options: SchedulerOptions) {
		this.#options = options;
	}

	/**
	 * Records an attributable mutation; returns the new generation. A running automatic check (of an
	 * older generation by definition) is cancelled now and leaves its generation eligible; a pending
	 * request stays pending.
	 */
	markMutation(): number {
		this.#mutation++;
		const check = this.#automatic;
		if (check) {
			check.superseded = true;
			check.controller.abort(ABORT_REASON);
			this.#automatic = undefined;
		}
		return this.#mutation;
	}

	/** Whether a mutation newer than the last recorded automatic attempt exists. */
	get dirty(): boolean {
		return this.#mutation > this.#attempted;
	}

	/**
	 * Asks for an automatic check of the latest mutation generation. Never throws, never awaits.
	 * `atRest`: the caller is at a point where the tree is at rest inside a run (see the blocker).
	 * A queued request is retried without it when the running check ends.
	 */
	requestAutomatic(options: { readonly atRest?: boolean } = {}): RequestAnswer {
		if (this.#closed) return "closed";
		if (!this.dirty) return "clean";
		const generation = this.#mutation;
		if (this.#automatic?.generation === generation) return "coalesced";
		if (this.#automatic || this.#explicit.size > 0) {
			this.#pending = generation;
			return "queued";
		}
		if (this.#options.blocker?.(options.atRest === true)) return "blocked";
		this.#startAutomatic(generation);
		return "started";
	}

	#startAutomatic(generation: number): void {
		const controller = new AbortController();
		const epoch = this.#epoch;
		const scope = this.#options.scope();
		const check: ActiveCheck = {
			kind: "automatic",
			generation,
			controller,
			superseded: false,
			done: Promise.resolve(),
		};
		this.#automatic = check;
		this.#pending = undefined;
		check.done = (async () => {
			let record: CheckRecord;
			try {
				const result = await this.#options.runAutomatic(controller.signal, generation);
				record = check.superseded
					? { generation, disposition: "stale", detail: "superseded by a newer mutation" }
					: this.#accept(result, { generation, epoch, scope, controller });
			} catch (error) {
				record = { generation, disposition: "error", detail: (error as Error)?.message ?? String(error) };
			}
			if (this.#automatic === check) this.#automatic = undefined;
			this.#notify(record);
			this.#drainPending();
		})();
		this.#track(check.done);
	}

	#track(done: Promise<void>): void {
		this.#inflight.add(done);
		void done.finally(() => this.#inflight.delete(done));
	}

	#accept(
		result: AutomaticResult,
		captured: { generation: number; epoch: number; scope: string; controller: AbortController },
	): CheckRecord {
		const { generation } = captured;
		if (captured.controller.signal.aborted)
			return { generation, disposition: "cancelled", detail: "cancelled" };
		if (this.#closed || captured.epoch !== this.#epoch || captured.scope !== this.#options.scope()) {
			return { generation, disposition: "stale", detail: "runtime, branch or project changed" };
		}
		if (generation !== this.#mutation)
			return { generation, disposition: "stale", detail: "superseded by a newer mutation" };
		if (result.kind === "retryable") return { generation, disposition: "retryable", detail: result.reason };
		if (!result.commit()) return { generation, disposition: "undelivered", detail: result.outcome };
		this.#attempted = Math.max(this.#attempted, generation);
		return { generation, disposition: "recorded", detail: result.outcome };
	}

	#notify(record: CheckRecord): void {
		try {
			this.#options.onSettled?.(record);
		} catch {
			// Status observers never break the scheduler.
		}
	}

	#drainPending(): void {
		if (this.#closed || this.#pending === undefined || this.#automatic || this.#explicit.size > 0) return;
		this.#pending = undefined;
		this.requestAutomatic();
	}

	/** Cancels the automatic check (if any) and drops the pending request. Returns whether one was running. */
	cancelAutomatic(): boolean {
		this.#pending = undefined;
		const check = this.#automatic;
		if (!check) return false;
		check.controller.abort(ABORT_REASON);
		this.#automatic = undefined;
		return true;
	}

	/**
	 * Runs explicit work with priority: cancels automatic work first. The work gets its own signal,
	 * aborted by {@link close}. A pending automatic request resumes afterwards.
	 */
	async runExplicit<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
		if (this.#closed) throw new Error("pi-jscpd is shutting down");
		if (this.#automatic) this.#pending = this.#automatic.generation;
		const check = this.#automatic;
		if (check) {
			check.controller.abort(ABORT_REASON);
			this.#automatic = undefined;
		}
		const controller = new AbortController();
		const owner: ActiveCheck = {
			kind: "explicit",
			generation: this.#mutation,
			controller,
			superseded: false,
			done: Promise.resolve(),
		};
		this.#explicit.add(owner);
		const run = work(controller.signal);
		owner.done = run.then(
			() => undefined,
			() => undefined,
		);
		this.#track(owner.done);
		try {
			return await run;
		} finally {
			this.#explicit.delete(owner);
			this.#drainPending();
		}
	}

	/** Moves the epoch on (tree navigation, lifecycle change): automatic work becomes stale and is cancelled. */
	invalidate(): void {
		this.#epoch++;
		this.cancelAutomatic();
	}

	/** Closes the scheduler: no new work, owned work aborted and awaited. Idempotent. */
	async close(): Promise<void> {
		if (!this.#closed) {
			this.#closed = true;
			this.#epoch++;
			this.#pending = undefined;
			this.#automatic?.controller.abort(ABORT_REASON);
			this.#automatic = undefined;
			for (const check of this.#explicit) check.controller.abort(ABORT_REASON);
		}
		await Promise.all([...this.#inflight]);
	}

	/** Resolves when every owned check (including cancelled ones still cleaning up) has finished. */
	async idle(): Promise<void> {
		while (this.#inflight.size > 0) await Promise.all([...this.#inflight]);
	}

	/** A read-only view for status output. */
	snapshot(): SchedulerSnapshot {
		return {
			epoch: this.#epoch,
			mutationGeneration: this.#mutation,
			attemptedGeneration: this.#attempted,
			automaticActive: this.#automatic !== undefined,
			explicitActive: this.#explicit.size,
			pending: this.#pending,
			closed: this.#closed,
		};
	}
}
