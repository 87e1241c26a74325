/**
 * The adapter of the rule "an abort Pi makes to compact is not an interruption" (core/interruption.ts):
 * holds the aborted settle of the goal's run for two macrotask turns (Pi starts a compaction right
 * after the settle handlers), then follows the compaction's end. A held run is released as
 * interrupted when a compaction fails or is cancelled, when none started, and before anything else
 * reaches the goal (a new run, a session change, shutdown).
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { GoalEvent } from "../core/goal-events.js";
import { AbortedRunJudge, type HeldVerdict } from "../core/interruption.js";
import type { RunOwnership } from "../core/run.js";
import type { GoalController } from "./controller.js";
import { contractRevisionSince } from "./window.js";

type Settled = Extract<GoalEvent, { type: "settled" }>;

/** Whether a context reports idle; a stale one reads as idle. */
function idle(ctx: ExtensionContext | undefined): boolean {
	try {
		return ctx?.isIdle() ?? true;
	} catch {
		return true;
	}
}

/** Holds an aborted goal run until it is known whether Pi compacts right after it. */
export class CompactionAborts {
	readonly #judge = new AbortedRunJudge<Settled>();
	readonly #controller: GoalController;
	readonly #run: RunOwnership;

	constructor(deps: { controller: GoalController; run: RunOwnership }) {
		this.#controller = deps.controller;
		this.#run = deps.run;
	}

	/** Whether the settle of an aborted run of the active goal is held (else it settles at once). */
	hold(settled: Settled): boolean {
		if (!settled.run.aborted || settled.staleAbort || !settled.owned) return false;
		const ctx = this.#controller.ctx;
		if (!ctx || this.#controller.goal?.status !== "active") return false;
		this.#judge.hold(settled);
		// Pi's compact() continues after every agent_settled handler: two turns cover its synchronous start.
		setImmediate(() =>
			setImmediate(() => {
				// A session change or shutdown in between released (or dropped) the held run already.
				if (this.#controller.ctx !== ctx) return void this.#judge.flush();
				// Not idle without a run of its own: a compaction is under way (its event is still to come).
				this.#apply(this.#judge.windowClosed(!idle(ctx) && !this.#run.running));
			}),
		);
		return true;
	}

	/** session_before_compact. */
	started(): void {
		this.#judge.compactionStarted();
	}

	/** session_compact: a held run was the compaction's abort; the goal stays active. */
	succeeded(): void {
		this.#judge.compactionSucceeded();
	}

	/** session_compact_failed (cancelled or failed). */
	failed(): void {
		this.#apply(this.#judge.compactionFailed());
	}

	/** A new run, a session change or shutdown comes first: a held run was interrupted. */
	flush(): void {
		this.#apply(this.#judge.flush());
	}

	#apply(verdict: HeldVerdict<Settled>): void {
		if (verdict.kind !== "interrupted") return;
		const ctx = this.#controller.ctx;
		try {
			if (ctx) this.#controller.apply(verdict.settled, ctx);
		} catch {
			// A context gone stale (reload, session replacement): nothing to pause here any more.
		}
	}
}

/**
 * The compaction events: the checkpoint before, a failed or cancelled recovery, the held aborted
 * run's verdict, and which contract revision the compacted window holds.
 */
export function registerCompactionHooks(
	pi: Pick<ExtensionAPI, "on">,
	deps: {
		readonly controller: GoalController;
		readonly run: RunOwnership;
		readonly aborts: CompactionAborts;
		/** Between agent_end and the next agent_start: a compaction now is Pi's post-run check. */
		readonly afterRun: () => boolean;
	},
): void {
	const { controller, run, aborts } = deps;
	pi.on("session_before_compact", (event) => {
		aborts.started();
		controller.apply({ type: "checkpoint" });
		run.noteCompactStart(event.reason, event.willRetry);
	});
	pi.on("session_compact_failed", (event) => {
		// A failed or cancelled length/overflow recovery cancels a pending ordinary continuation.
		if (run.noteCompactFailed({ reason: event.reason, aborted: event.aborted }))
			controller.apply({ type: "recovery_failed" });
		aborts.failed(); // after an abort for it: the goal was interrupted after all
	});
	pi.on("session_compact", (event, ctx) => {
		aborts.succeeded(); // the goal's aborted run was the compaction's abort: it stays active
		const entry = event.compactionEntry;
		const since = (entry.firstKeptEntryId as string | null) ?? entry.id;
		const revision = contractRevisionSince(ctx.sessionManager, since);
		// The reducer republishes a missing contract (idle: appended; in a run: steered) and wakes
		// a working goal after a manual compaction (goal-host-rules.ts).
		const { willRetry } = event;
		const afterRun = deps.afterRun();
		controller.apply({ type: "compacted", revision, manual: event.reason === "manual", willRetry, afterRun });
	});
}
