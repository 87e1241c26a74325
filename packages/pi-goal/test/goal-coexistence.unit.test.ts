/**
 * The pure coexistence rules: an abort Pi makes to compact is not an interruption
 * (core/interruption.ts), which `pi-goal/*` entries and messages are ours (core/ownership.ts), and
 * whether a session's goal state is another extension's (adapters/peer-facts.ts).
 */
import { describe, expect, it } from "vitest";
import { sessionHasForeignGoalState } from "../src/adapters/peer-facts.js";
import { AbortedRunJudge } from "../src/core/interruption.js";
import { isOwnContinuationDetails, isOwnContractDetails, isOwnStateData } from "../src/core/ownership.js";
import { GOAL_OWNER } from "../src/core/types.js";

describe("rule: an abort Pi makes to compact is not an interruption", () => {
	it("a held aborted run whose compaction succeeds is dropped (the goal stays active)", () => {
		const judge = new AbortedRunJudge<string>();
		judge.hold("run");
		judge.compactionStarted();
		expect(judge.windowClosed(false)).toEqual({ kind: "undecided" });
		expect(judge.compactionSucceeded()).toEqual({ kind: "compaction" });
		expect(judge.holding).toBe(false);
	});

	it("a cancelled or failed compaction after the abort releases the run as interrupted", () => {
		const judge = new AbortedRunJudge<string>();
		judge.hold("run");
		judge.compactionStarted();
		expect(judge.compactionFailed()).toEqual({ kind: "interrupted", settled: "run" });
	});

	it("no compaction by the end of the window: the user's abort, interrupted", () => {
		const judge = new AbortedRunJudge<string>();
		judge.hold("run");
		expect(judge.windowClosed(false)).toEqual({ kind: "interrupted", settled: "run" });
		expect(judge.compactionSucceeded()).toEqual({ kind: "undecided" });
	});

	it("a compaction under way whose event is still to come keeps the run held", () => {
		const judge = new AbortedRunJudge<string>();
		judge.hold("run");
		expect(judge.windowClosed(true)).toEqual({ kind: "undecided" });
		expect(judge.compactionSucceeded()).toEqual({ kind: "compaction" });
	});

	it("a new run, a session change or shutdown first: interrupted; nothing held, nothing released", () => {
		const judge = new AbortedRunJudge<string>();
		expect(judge.flush()).toEqual({ kind: "undecided" });
		judge.hold("run");
		expect(judge.flush()).toEqual({ kind: "interrupted", settled: "run" });
		expect(judge.compactionFailed()).toEqual({ kind: "undecided" });
	});
});

describe("rule: our entries and messages are ours", () => {
	it("marked ones are ours; another owner's are not", () => {
		expect(isOwnStateData({ owner: GOAL_OWNER, v: 1, state: {} })).toBe(true);
		expect(isOwnStateData({ owner: "nijaru", v: 1, state: {} })).toBe(false);
		expect(isOwnContractDetails({ owner: GOAL_OWNER })).toBe(true);
		expect(isOwnContinuationDetails({ owner: "x", goalId: "g", nonce: "n", iteration: 1 })).toBe(false);
	});

	it("our older entries (no owner mark) are told apart by their fields", () => {
		expect(isOwnStateData({ v: 1, state: { goal: null, revision: 0 } })).toBe(true);
		expect(isOwnStateData({ v: 2 })).toBe(true); // ours, of an unknown version: reported as malformed
		expect(isOwnStateData("garbage")).toBe(true); // a bare value is no one else's state: malformed
		expect(isOwnStateData({ id: "nj-1", objective: "x", status: "active" })).toBe(false);
		expect(isOwnContractDetails({ revision: 1, goalId: "g", active: true })).toBe(true);
		expect(isOwnContractDetails({ goalId: "g" })).toBe(false);
		expect(isOwnContinuationDetails({ goalId: "g", nonce: "n", iteration: 0 })).toBe(true);
		expect(isOwnContinuationDetails({ goalId: "nj-1", type: "dispatch_requested" })).toBe(false);
	});

	it("a hostile owner getter reads as another owner's", () => {
		const hostile = Object.defineProperty({}, "owner", {
			get() {
				throw new Error("boom");
			},
		});
		expect(isOwnContractDetails(hostile)).toBe(false);
	});

	it("a session's goal state is another extension's when its newest pi-goal/* entry is", () => {
		const ours = {
			type: "custom",
			customType: "pi-goal/state",
			data: { owner: GOAL_OWNER, v: 1, state: {} },
		};
		const theirs = { type: "custom", customType: "pi-goal/state", data: { id: "nj-1", status: "active" } };
		const theirMessage = {
			type: "custom_message",
			customType: "pi-goal/context",
			details: { goalId: "nj-1" },
		};
		const plain = { type: "message", message: { role: "user" } };
		expect(sessionHasForeignGoalState([])).toBe(false);
		expect(sessionHasForeignGoalState([plain])).toBe(false);
		expect(sessionHasForeignGoalState([ours, plain])).toBe(false);
		expect(sessionHasForeignGoalState([ours, theirs, plain])).toBe(true);
		expect(sessionHasForeignGoalState([theirs, ours])).toBe(false);
		expect(sessionHasForeignGoalState([ours, theirMessage])).toBe(true);
	});
});
