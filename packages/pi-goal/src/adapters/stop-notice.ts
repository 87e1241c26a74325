/**
 * Visible pauses: when the goal pauses or stops on its own (a limit, the stuck detector, a budget,
 * a usage limit, a wait, a blocker, completion), one line in the TUI transcript says why and what
 * to do next (core/goal-words.ts decides). It is a notification (`ctx.ui.notify`), which Pi's TUI
 * adds to the transcript as its own line: a custom message would reach the model (Pi 1.3–1.6 send
 * every custom message to it). Without a UI the headless report says it (headless.ts).
 */
import { nextStep } from "../core/footer.js";
import { stopNotice } from "../core/goal-words.js";
import type { GoalRecord } from "../core/types.js";
import type { GoalController } from "./controller.js";
import { hasUi } from "./host-facts.js";
import { say } from "./output.js";

/** Follows one runtime's goal and announces its stops. Call `sync` after every change. */
export class StopNotices {
	readonly #controller: GoalController;
	#last: GoalRecord | null = null;
	/** The next change is a restore of another branch (/tree): recorded, not announced. */
	#restoring = false;

	constructor(controller: GoalController) {
		this.#controller = controller;
	}

	/** Call before a branch is restored (session_tree): its state is not a stop that just happened. */
	rebase(): void {
		this.#restoring = true;
	}

	/** Announces a stop since the last call (at most one line per change). */
	sync(): void {
		const controller = this.#controller;
		const goal = controller.goal;
		const before = this.#last;
		this.#last = goal;
		const restoring = this.#restoring;
		this.#restoring = false;
		if (goal === before || restoring) return;
		const ctx = controller.ctx;
		if (!ctx || !hasUi(ctx)) return;
		const text = stopNotice(before, goal, controller.settings.automaticTurns, nextStep);
		if (text) say(ctx, text, goal?.status === "complete" ? "info" : "warning");
	}
}
