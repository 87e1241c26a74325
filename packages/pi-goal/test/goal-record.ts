/** A plain goal record for pure tests (an active goal started at t=0 unless overridden). */
import type { GoalRecord } from "../src/core/types.js";

/** An active goal `g-1` ("ship it"), no budget, clock running since 0; `over` replaces fields. */
export const goalRecord = (over: Partial<GoalRecord> = {}): GoalRecord =>
	Object.freeze({
		id: "g-1",
		objective: "ship it",
		tokenBudget: null,
		status: "active",
		iteration: 0,
		usage: { spent: 0, baseline: 0 },
		clock: { activeMs: 0, since: 0 },
		safety: { epoch: 0, automaticTurns: 0, noProgress: 0, fingerprint: null },
		...over,
	});
