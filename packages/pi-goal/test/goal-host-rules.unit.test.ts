/**
 * The host-boundary rules the reducer owns (goal-host-rules.ts), one test each, named after the
 * rule: the agent_before_settle decision, the idle prompt's send check, the compaction republish
 * and the checkpoint. Frozen inputs; the adapters only gather facts and read the decision.
 */
import { describe, expect, it } from "vitest";
import {
	EMPTY_STATE,
	type GoalEvent,
	type GoalFacts,
	reduceGoal,
	type Transition,
} from "../src/core/goal-machine.js";
import { DEFAULT_SETTINGS, type GoalState } from "../src/core/types.js";

const facts = (over: Partial<GoalFacts> = {}): GoalFacts =>
	Object.freeze({ now: 1000, branchTotal: 0, settings: DEFAULT_SETTINGS, ...over });

const deepFreeze = <T>(value: T): T => {
	if (value && typeof value === "object") {
		for (const inner of Object.values(value)) deepFreeze(inner);
		Object.freeze(value);
	}
	return value;
};

const step = (state: GoalState, event: GoalEvent, over: Partial<GoalFacts> = {}): Transition =>
	reduceGoal(deepFreeze(state), deepFreeze(event), facts(over));

const active = (tokenBudget: number | null = null): GoalState =>
	step(EMPTY_STATE, { type: "start", id: "g-1", objective: "o", tokenBudget }).state;

const types = (transition: Transition) => transition.effects.map((effect) => effect.type);

const settle = (over: Partial<Extract<GoalEvent, { type: "before_settle" }>> = {}): GoalEvent => ({
	type: "before_settle",
	outcome: "completed",
	run: { compactionCancelled: false, compactionRecoveryFailed: false },
	owned: true,
	queuedWork: false,
	aborted: false,
	recoveryQueued: false,
	...over,
});

describe("host-boundary rules", () => {
	it("rule: a completed run of a working owned goal continues in the same run (counted, wake cancelled)", () => {
		const next = step(active(), settle());
		expect(next.state.goal?.iteration).toBe(1);
		expect(next.effects.slice(-2)).toEqual([
			{ type: "cancelWake" },
			{ type: "continueInRun", kind: "continuation" },
		]);
		expect(step(active(), settle({ recoveryQueued: true })).effects.at(-1)).toEqual({
			type: "continueInRun",
			kind: "recovery",
		});
	});

	it("rule: no continuation in the run for queued user work, an aborted signal, another owner or an error", () => {
		for (const over of [
			{ queuedWork: true },
			{ aborted: true },
			{ owned: false },
			{ outcome: "error" as const },
			{ run: { compactionCancelled: true, compactionRecoveryFailed: false } },
		]) {
			const next = step(active(), settle(over));
			expect(types(next), JSON.stringify(over)).not.toContain("continueInRun");
			expect(next.state.goal?.iteration).toBe(0);
		}
	});

	it("rule: before continuing in the run the budget is rechecked first, then the helper tools", () => {
		const spent = step(active(1000), settle(), { branchTotal: 5000, helpersAvailable: () => false });
		expect(spent.state.goal?.status).toBe("budget_limited");
		expect(types(spent)).toEqual(["persist", "abort", "cancelWake"]);
		const hidden = step(active(), settle(), { helpersAvailable: () => false });
		expect(hidden.state.goal).toMatchObject({ status: "paused", pauseReason: "helpers-unavailable" });
		expect(types(hidden)).not.toContain("continueInRun");
	});

	it("rule: the safety limits stop continuing in the run (automatic work no longer allowed)", () => {
		const settings = { ...DEFAULT_SETTINGS, automaticTurns: 1 };
		let state = active();
		state = step(
			state,
			{ type: "turn", turn: { automatic: true, toolCalls: 0, text: "a" } },
			{ settings },
		).state;
		expect(types(step(state, settle(), { settings }))).not.toContain("continueInRun");
	});

	it("rule: an idle prompt is not sent when the helper tools are hidden: the goal pauses", () => {
		const next = step(active(), { type: "prompt_due", kind: "wake" }, { helpersAvailable: () => false });
		expect(next.state.goal).toMatchObject({ status: "paused", pauseReason: "helpers-unavailable" });
	});

	it("rule: an automatic idle prompt counts as a continuation; a kickoff or resume does not", () => {
		for (const kind of ["continuation", "wake", "recovery"] as const)
			expect(step(active(), { type: "prompt_due", kind }).state.goal?.iteration, kind).toBe(1);
		for (const kind of ["kickoff", "resume"] as const) {
			const state = active();
			expect(step(state, { type: "prompt_due", kind }).state, kind).toBe(state);
		}
	});

	it("rule: after a compaction the missing contract is published, and steered inside a run of a working goal", () => {
		const compacted = (over: Partial<Extract<GoalEvent, { type: "compacted" }>>): GoalEvent => ({
			type: "compacted",
			revision: -1,
			manual: false,
			willRetry: false,
			afterRun: false,
			...over,
		});
		expect(types(step(active(), compacted({})))).toEqual(["publishContract", "steerContract"]);
		// Pi's post-run check without a retry: a steering message would start an extra request.
		expect(types(step(active(), compacted({ afterRun: true })))).toEqual(["publishContract"]);
		expect(types(step(active(), compacted({ afterRun: true, willRetry: true })))).toEqual([
			"publishContract",
			"steerContract",
		]);
		const paused = step(active(), { type: "pause", reason: "user" }).state;
		expect(types(step(paused, compacted({})))).toEqual(["publishContract"]);
		// A manual compaction emits no agent_settled: a working goal gets one fresh intent.
		expect(step(active(), compacted({ manual: true, afterRun: true })).effects).toEqual([
			{ type: "publishContract" },
			{ type: "requestWake", kind: "continuation", when: "afterHandlers" },
		]);
	});

	it("rule: a checkpoint folds the running goal's time in and persists it; no active goal, nothing", () => {
		const next = step(active(), { type: "checkpoint" }, { now: 4000 });
		expect(types(next)).toEqual(["persist"]);
		expect(next.state.goal?.clock.activeMs).toBe(3000);
		expect(step(EMPTY_STATE, { type: "checkpoint" }).effects).toEqual([]);
	});
});
