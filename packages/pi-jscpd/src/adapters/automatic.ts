/**
 * The automatic-check flow of one runtime: when a trigger (settle, boundary continuation, reset)
 * asks for a check, how the outside-change probe of the same trigger is handed to it, and the one
 * check it runs ({@link runCheckpoint}). It owns only the flow's own bookkeeping; the session's
 * changed files stay with the controller, reached through {@link AutomaticDeps.recordOutside}.
 */
import type { IdentitySnapshot } from "@pi-lifecycle/lifecycle-kit";
import type { AutomaticResult, CheckScheduler } from "../core/scheduler.js";
import { isContinuationStart } from "../core/triggers.js";
import { type CheckpointDeps, runCheckpoint } from "./checkpoint.js";
import { nextMacrotask } from "./defer.js";
import type { OutsideProbe } from "./outside.js";
import type { Detection } from "./worktree.js";

/** What the flow needs from its owner. */
export interface AutomaticDeps {
	readonly scheduler: () => CheckScheduler;
	readonly outside: OutsideProbe;
	/** Whether the runtime is shut down. */
	readonly closed: () => boolean;
	/** Whether the automatic checkpoint is enabled. */
	readonly enabled: () => boolean;
	/** The kit's identity snapshot (run counter and activity). */
	readonly snapshot: () => IdentitySnapshot;
	/** Records what a probe found (changed files, moves to rebase); `newGeneration` unless a running check covers it. */
	readonly recordOutside: (found: Detection, newGeneration: boolean) => void;
	/** A probe resolved outside a check: the status may change (unseen commands). */
	readonly probed: () => void;
	/** The checkpoint's dependencies for one check (fresh each time). */
	readonly checkpoint: (outside: Promise<void> | undefined) => CheckpointDeps;
	/** The footer shows a check running. */
	readonly checking: () => void;
}

/** See the module comment. */
export class AutomaticFlow {
	readonly #deps: AutomaticDeps;
	#lastRun = 0;
	/** The last settle's request was blocked (probe or baseline not ready): retried when they are. */
	#settleBlocked = false;
	/** The outside-change probe of the trigger being handled, handed to the check it starts. */
	#triggerProbe: Promise<Detection | undefined> | undefined;

	constructor(deps: AutomaticDeps) {
		this.#deps = deps;
	}

	/** agent_settled: only schedules (O(1), nothing spawned or read here); see {@link trigger}. */
	settle(): void {
		if (this.#deps.closed() || !this.#deps.enabled()) return;
		this.trigger(false);
	}

	/**
	 * agent_start: at a boundary continuation (not the first of its run, not a retry or compaction
	 * retry: `recovery`) the tree is at rest; a check is claimed like at the settle, never awaited.
	 * `adopt` runs first when it is one (the owner takes the event's context).
	 */
	attemptStart(recovery: boolean, adopt: () => void): void {
		const snapshot = this.#deps.snapshot();
		const continuation = isContinuationStart(this.#lastRun, snapshot) && !recovery;
		this.#lastRun = snapshot.run;
		if (!continuation || this.#deps.closed() || !this.#deps.enabled()) return;
		adopt();
		this.trigger(true);
	}

	/**
	 * One trigger. The outside-change probe is scheduled first; a check that starts now scans the same
	 * tree and takes the probe's paths as its own changed files. Otherwise they are a new generation
	 * and, after a settle, a check is requested (a continuation leaves it to the next trigger).
	 */
	trigger(atRest: boolean): void {
		const probe = this.#deps.outside.start();
		this.#triggerProbe = probe;
		const answer = this.#deps.scheduler().requestAutomatic({ atRest });
		this.#triggerProbe = undefined;
		if (answer === "started") {
			this.#settleBlocked = false;
			return;
		}
		void probe.then((found) => {
			if (found === undefined || this.#deps.closed()) return;
			this.#deps.recordOutside(found, true);
			if (!atRest) this.#settleBlocked = this.#deps.scheduler().requestAutomatic() === "blocked";
			this.#deps.probed();
		});
	}

	/** The baseline or capability changed: a settle's blocked request is retried. */
	retryBlocked(): void {
		if (this.#settleBlocked) this.#settleBlocked = this.#deps.scheduler().requestAutomatic() === "blocked";
	}

	/** A new prompt or run: the outside probe stops and a blocked settle is forgotten. */
	cancel(): boolean {
		this.#deps.outside.abort();
		this.#settleBlocked = false;
		return this.#deps.scheduler().cancelAutomatic();
	}

	/**
	 * One automatic check. Claimed synchronously by the scheduler (possibly inside a Pi handler), it
	 * starts on a later macrotask. A probe started by the same trigger is recorded before the
	 * check's selection and before its completion counts: as the check's own changes while it still
	 * owns its generation, as a new generation once it was cancelled or superseded.
	 */
	readonly run = async (signal: AbortSignal, generation: number): Promise<AutomaticResult> => {
		const probe = this.#triggerProbe;
		const outside = probe?.then((found) => {
			if (found && !this.#deps.closed()) this.#deps.recordOutside(found, signal.aborted);
		});
		try {
			await nextMacrotask();
			if (signal.aborted) return { kind: "retryable", reason: "cancelled" };
			this.#deps.checking();
			return await runCheckpoint(this.#deps.checkpoint(outside), signal, generation);
		} finally {
			await outside;
		}
	};
}
