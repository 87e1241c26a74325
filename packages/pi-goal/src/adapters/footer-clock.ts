/**
 * Keeps the footer's clock texts current between events. The footer is otherwise refreshed only
 * when the goal changes, so during one long model request `goal active 0s` would stand still. While
 * a goal is active (elapsed time) or waits for a usage-limit retry at a known time (countdown), one
 * timer fires when the text would next change: every second under a minute, then every minute.
 * Only with a UI (there is no footer in print or json mode), and the timer never keeps Node alive.
 */
import { elapsedMs } from "../core/accounting.js";
import type { GoalRecord } from "../core/types.js";
import type { GoalController } from "./controller.js";
import { hasUi } from "./host-facts.js";
import type { Timers } from "./wake.js";

/** Milliseconds until a clock text of `ms` changes (seconds under a minute, then minutes). */
function untilNextTick(ms: number, countingDown: boolean): number {
	const unit = ms < 60_000 ? 1_000 : 60_000;
	const into = ms % unit;
	return countingDown ? into + 1 : unit - into;
}

/** Milliseconds until the footer text of `goal` changes by the clock alone, or undefined (pure). */
export function nextFooterChange(goal: GoalRecord | null, now: number): number | undefined {
	if (goal?.status !== "active") return undefined;
	if (!goal.wait) return untilNextTick(elapsedMs(goal.clock, now), false);
	if (goal.wait.kind !== "usage_limit" || goal.wait.resumeAt === null) return undefined;
	const left = goal.wait.resumeAt - now;
	return left > 0 ? untilNextTick(left, true) : undefined;
}

/** The one footer timer of a runtime. */
export class FooterClock {
	readonly #controller: GoalController;
	readonly #timers: Timers;
	readonly #now: () => number;
	#handle: unknown;
	#dueAt: number | undefined;

	constructor(deps: { controller: GoalController; timers: Timers; now: () => number }) {
		this.#controller = deps.controller;
		this.#timers = deps.timers;
		this.#now = deps.now;
	}

	/** Re-plans the timer after a goal change (cheap when the next change time is unchanged). */
	sync(): void {
		const now = this.#now();
		const ctx = this.#controller.ctx;
		const delay = ctx && hasUi(ctx) ? nextFooterChange(this.#controller.goal, now) : undefined;
		const dueAt = delay === undefined ? undefined : now + delay;
		if (dueAt === this.#dueAt) return;
		this.stop();
		if (dueAt === undefined || delay === undefined) return;
		this.#dueAt = dueAt;
		this.#handle = this.#timers.setTimeout(() => {
			this.#handle = undefined;
			this.#dueAt = undefined;
			try {
				this.#controller.refreshFooter();
				this.sync();
			} catch {
				// A disposed session (no session_shutdown) has a stale ctx: nothing left to show.
			}
		}, delay);
		(this.#handle as { unref?: () => void } | undefined)?.unref?.();
	}

	/** Cancels the timer (session shutdown). */
	stop(): void {
		if (this.#handle !== undefined) this.#timers.clearTimeout(this.#handle);
		this.#handle = undefined;
		this.#dueAt = undefined;
	}
}
