import { describe, expect, it } from "vitest";
import { initialState, reduceReset } from "../src/core/reducer.js";
import {
	IDLE_COMPACTION_MARGIN_TOKENS,
	overPiThreshold,
	piCompactsWindow,
	piSurelyCompactsWindow,
	preemptableAnswer,
} from "../src/core/threshold.js";

const facts = { autoCompaction: true, contextTokens: 111_617, contextWindow: 128_000, reserveTokens: 16_384 };

describe("overPiThreshold (Pi's shouldCompact)", () => {
	it("overPiThreshold: true only when compaction is enabled and contextTokens > contextWindow - reserveTokens", () => {
		expect(overPiThreshold(facts)).toBe(true);
		expect(overPiThreshold({ ...facts, contextTokens: 111_616 })).toBe(false);
		expect(overPiThreshold({ ...facts, autoCompaction: false })).toBe(false);
		expect(overPiThreshold({ ...facts, contextTokens: undefined })).toBe(false);
		expect(overPiThreshold({ ...facts, contextWindow: 0 })).toBe(false);
	});

	it("preemptableAnswer: a finished answer or a tool turn; errors, cut and aborted answers stay with Pi's recovery", () => {
		expect(preemptableAnswer("stop")).toBe(true);
		expect(preemptableAnswer("toolUse")).toBe(true);
		for (const reason of ["error", "length", "aborted", undefined])
			expect(preemptableAnswer(reason)).toBe(false);
	});
});

describe("the threshold reset in the reducer", () => {
	const crossed = reduceReset(initialState(), { type: "threshold", over: true }).state;
	const boundary = { type: "boundary", aborted: false, preemptable: true, newWindowId: "w1-abcd" } as const;

	it("thresholdCrossed: an answer whose own usage is under the threshold again takes the due reset back", () => {
		const under = reduceReset(crossed, { type: "threshold", over: false });
		expect(under.state.thresholdDue).toBe(false);
		expect(under.effect).toEqual({ type: "none" });
		expect(reduceReset(under.state, boundary).effect.type).not.toBe("propose-threshold-reset");
	});

	it("thresholdBoundary: a turn_end after an answer over the threshold proposes the reset (a boundary proposal for a new window)", () => {
		expect(crossed.thresholdDue).toBe(true);
		const step = reduceReset(crossed, boundary);
		expect(step.effect).toMatchObject({
			type: "propose-threshold-reset",
			proposal: { windowId: "w1-abcd", kind: "boundary", resets: 1 },
		});
		expect(step.state.thresholdDue).toBe(false);
	});

	it("thresholdBoundary: an aborted or not preemptable boundary leaves the compaction to Pi and forgets the threshold", () => {
		for (const event of [
			{ ...boundary, aborted: true },
			{ ...boundary, preemptable: false },
		]) {
			const step = reduceReset(crossed, event);
			expect(step.effect.type).toBe("none");
			expect(step.state.thresholdDue).toBe(false);
			expect(step.state.proposal).toBeUndefined();
		}
	});

	it("thresholdCrossed: with pi-reset off nothing is due", () => {
		expect(reduceReset(initialState(false), { type: "threshold", over: true }).state.thresholdDue).toBe(
			false,
		);
	});

	it("an explicit reset at the same boundary serves the threshold: one reset, the explicit one", () => {
		const requested = reduceReset(crossed, {
			type: "request",
			source: "tool",
			handoff: "note",
			streaming: true,
		}).state;
		const step = reduceReset(requested, boundary);
		expect(step.effect.type).toBe("propose-reset");
		expect(step.state.thresholdDue).toBe(false);
	});

	it("a run serving an idle /reset is folded into the threshold reset: its window opens now", () => {
		const queued = reduceReset(initialState(), {
			type: "request",
			source: "command",
			handoff: undefined,
			streaming: false,
		}).state;
		const running = reduceReset(queued, {
			type: "run-start",
			baseLeafId: "e1",
			newWindowId: "w1-next",
		}).state;
		const due = reduceReset(running, { type: "threshold", over: true }).state;
		const step = reduceReset(due, boundary);
		expect(step.effect).toMatchObject({ type: "propose-threshold-reset", proposal: { windowId: "w1-next" } });
		expect(step.state.nextRun).toBeUndefined();
	});
});

describe("piCompactsWindow (Pi's compaction eligibility)", () => {
	it("at Pi's threshold pi-reset resets only a window Pi would compact: a message must be older than the keep-recent budget", () => {
		expect(piCompactsWindow([], 20_000)).toBe(false);
		expect(piCompactsWindow([30_000], 20_000)).toBe(false);
		expect(piCompactsWindow([19_999, 5_000], 20_000)).toBe(false);
		expect(piCompactsWindow([20_000, 1], 20_000)).toBe(true);
		expect(piCompactsWindow([10_000, 10_000, 3], 20_000)).toBe(true);
		expect(piCompactsWindow([1, 1], 1)).toBe(true);
	});
});

describe("piSurelyCompactsWindow (an idle /reset asks Pi to compact only a window it surely compacts)", () => {
	it("an idle /reset opens its window at once when Pi can compact the window: more than the budget plus the margin after the oldest message", () => {
		const budget = 20_000 + IDLE_COMPACTION_MARGIN_TOKENS;
		expect(piSurelyCompactsWindow([], 20_000)).toBe(false);
		expect(piSurelyCompactsWindow([budget * 2], 20_000)).toBe(false);
		expect(piSurelyCompactsWindow([budget, 1], 20_000)).toBe(false);
		expect(piSurelyCompactsWindow([budget + 1, 1], 20_000)).toBe(true);
		expect(piSurelyCompactsWindow([budget - 10, 11, 1], 20_000)).toBe(true);
		// A window Pi compacts at its threshold may still be too small for the idle margin.
		expect(piCompactsWindow([20_000, 1], 20_000)).toBe(true);
		expect(piSurelyCompactsWindow([20_000, 1], 20_000)).toBe(false);
	});
});
