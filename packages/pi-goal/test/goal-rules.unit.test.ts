/**
 * The lifecycle rules the reducer owns, one test each, named after the rule. Every test drives
 * `reduceGoal` with frozen inputs and reads the next state and the named effects in order; the
 * effect runner (adapters/effect-runner.ts) only executes them.
 */
import { describe, expect, it } from "vitest";
import {
	EMPTY_STATE,
	type GoalEffect,
	type GoalEvent,
	type GoalFacts,
	reduceGoal,
	type Transition,
} from "../src/core/goal-machine.js";
import type { ErrorFacts, RunFacts } from "../src/core/outcome.js";
import { DEFAULT_SETTINGS, type GoalState, USAGE_FALLBACK_MS } from "../src/core/types.js";

const facts = (over: Partial<GoalFacts> = {}): GoalFacts =>
	Object.freeze({ now: 1000, branchTotal: 0, settings: DEFAULT_SETTINGS, ...over });

const deepFreeze = <T>(value: T): T => {
	if (value && typeof value === "object") {
		for (const inner of Object.values(value)) deepFreeze(inner);
		Object.freeze(value);
	}
	return value;
};

function step(state: GoalState, event: GoalEvent, over: Partial<GoalFacts> = {}): Transition {
	return reduceGoal(deepFreeze(state), deepFreeze(event), facts(over));
}

function active(tokenBudget: number | null = null, runId?: string): GoalState {
	return step(EMPTY_STATE, { type: "start", id: "g-1", objective: "o", tokenBudget, runId }).state;
}

const types = (transition: Transition) => transition.effects.map((effect) => effect.type);

const run = (over: Partial<RunFacts> = {}): RunFacts => ({
	aborted: false,
	compactionCancelled: false,
	compactionRecoveryFailed: false,
	...over,
});

const error = (over: Partial<ErrorFacts> = {}): ErrorFacts => ({
	detail: "boom",
	nativeRetryable: false,
	nativeOverflow: false,
	usageLimit: false,
	goalId: "g-1",
	...over,
});

const settled = (facts: RunFacts, over: { staleAbort?: boolean; owned?: boolean } = {}): GoalEvent => ({
	type: "settled",
	run: facts,
	staleAbort: over.staleAbort ?? false,
	owned: over.owned ?? true,
});

const wakeOf = (transition: Transition) =>
	transition.effects.find((effect): effect is Extract<GoalEffect, { type: "requestWake" }> => {
		return effect.type === "requestWake";
	});

const scope = { provider: "p", model: "m", api: "x" };

describe("goal rules owned by the reducer", () => {
	it("a change a restore must see is persisted first, before any other effect", () => {
		const paused = step(active(), { type: "pause", reason: "user" });
		expect(types(paused)[0]).toBe("persist");
		const counted = step(active(), {
			type: "turn",
			turn: { automatic: true, toolCalls: 1, text: "" },
		});
		expect(types(counted)).not.toContain("persist"); // per-turn counters: the restore replays them
	});

	it("stopped transitions cancel current continuation ownership", () => {
		const stops: GoalEvent[] = [
			{ type: "pause", reason: "interrupted" },
			{ type: "complete", summary: "done" },
			{ type: "blocked", reason: "stuck" },
			{ type: "usage_limited", detail: "quota" },
			{ type: "clear" },
		];
		for (const event of stops) expect(types(step(active(), event))).toContain("cancelWake");
		expect(types(step(active(100), { type: "budget_check" }, { branchTotal: 100 }))).toContain("cancelWake");
	});

	it("budget exhaustion transitions once to budget_limited, aborts the current turn and cancels owned continuation", () => {
		const limited = step(active(100), { type: "budget_check" }, { branchTotal: 150 });
		expect(limited.state.goal?.status).toBe("budget_limited");
		expect(types(limited)).toEqual(["persist", "abort", "cancelWake"]);
		expect(step(limited.state, { type: "budget_check" }, { branchTotal: 500 }).effects).toEqual([]);
	});

	it("the user's pause aborts the run and publishes the inactive contract; a limit's pause does not abort", () => {
		expect(types(step(active(), { type: "pause", reason: "user" }))).toEqual([
			"persist",
			"abort",
			"cancelWake",
			"publishContract",
		]);
		expect(types(step(active(), { type: "pause", reason: "interrupted" }))).toEqual([
			"persist",
			"cancelWake",
		]);
	});

	it("clear removes the goal and cancels its wake; only the user's clear publishes the cleared contract", () => {
		expect(types(step(active(), { type: "clear" }))).toEqual(["persist", "cancelWake", "publishContract"]);
		const cancelled = step(active(null, "r1"), { type: "clear", reason: "cancelled", detail: "stop" });
		expect(types(cancelled)).toEqual(["persist", "terminal", "cancelWake"]);
		expect(cancelled.effects[1]).toMatchObject({ status: "cancelled", detail: "stop" });
	});

	it("a managed run hears its active state before the kickoff, so its owner can still cancel", () => {
		const started = step(EMPTY_STATE, {
			type: "start",
			id: "g-1",
			objective: "o",
			tokenBudget: null,
			runId: "r1",
		});
		expect(types(started)).toEqual(["persist", "runStarted", "requestWake"]);
		expect(started.effects[1]).toEqual({ type: "runStarted", runId: "r1", goalId: "g-1" });
		expect(wakeOf(started)).toEqual({ type: "requestWake", kind: "kickoff", when: "now" });
	});

	it("starting over an active managed run ends that run as replaced", () => {
		const replaced = step(active(null, "r1"), {
			type: "start",
			id: "g-2",
			objective: "p",
			tokenBudget: null,
		});
		expect(replaced.effects).toContainEqual(
			expect.objectContaining({ type: "terminal", status: "replaced" }),
		);
	});

	it("resume of a stopped goal rotates the id and requests one resume prompt; waiting resume keeps the id", () => {
		const paused = step(active(), { type: "pause", reason: "user" }).state;
		const resumed = step(paused, { type: "resume", newId: "g-2" });
		expect(resumed.state.goal?.id).toBe("g-2");
		expect(wakeOf(resumed)).toEqual({ type: "requestWake", kind: "resume", when: "now" });
		const waiting = step(active(), { type: "wait", reason: "ci", resumeAt: null }).state;
		const woken = step(waiting, { type: "resume", newId: "g-9" });
		expect(woken.state.goal?.id).toBe("g-1");
		expect(wakeOf(woken)?.kind).toBe("resume");
	});

	it("an edit re-checks the budget at once: a lowered budget already used up stops the goal now", () => {
		const edited = step(
			active(),
			{ type: "edit", newId: "g-2", objective: "p", tokenBudget: 50 },
			{ branchTotal: 80 },
		);
		expect(edited.state.goal).toMatchObject({ id: "g-2", status: "budget_limited" });
		expect(types(edited)).toEqual(["persist", "abort", "cancelWake", "publishContract"]);
	});

	it("an edit of a working goal kicks it off before the contract is published (the run carries it)", () => {
		const edited = step(active(), { type: "edit", newId: "g-2", objective: "p" });
		expect(types(edited)).toEqual(["persist", "requestWake", "publishContract"]);
		expect(wakeOf(edited)?.kind).toBe("kickoff");
		const paused = step(active(), { type: "pause", reason: "user" }).state;
		expect(types(step(paused, { type: "edit", newId: "g-3", objective: "q" }))).toEqual([
			"persist",
			"publishContract",
		]);
	});

	it("at settlement, agent_settled.aborted takes precedence over the retained failed assistant message and selects paused", () => {
		const result = step(active(), settled(run({ aborted: true, error: error({ usageLimit: true }) })));
		expect(result.state.goal).toMatchObject({ status: "paused", pauseReason: "interrupted" });
		expect(wakeOf(result)).toBeUndefined();
		expect(types(result)).toContain("publishContract");
	});

	it("remaining compaction recovery becomes blocked because no usable recovery response followed", () => {
		const result = step(active(), settled(run({ compactionRecoveryFailed: true })));
		expect(result.state.goal?.status).toBe("blocked");
	});

	it("final recognized usage exhaustion selects stopped usage_limited by default", () => {
		const result = step(active(), settled(run({ error: error({ usageLimit: true, scope }) })));
		expect(result.state.goal).toMatchObject({ status: "usage_limited", outcome: "boom" });
	});

	it("with quota recovery enabled a final usage error waits with a 15-minute fallback deadline and queries usage", () => {
		const settings = { ...DEFAULT_SETTINGS, retryUsageLimits: true };
		const model = () => ({ provider: "p", id: "m" });
		const result = step(active(), settled(run({ error: error({ usageLimit: true, scope }) })), {
			settings,
			model,
		});
		expect(result.state.goal?.wait).toMatchObject({
			kind: "usage_limit",
			resumeAt: 1000 + USAGE_FALLBACK_MS,
			usageLimit: scope,
		});
		expect(types(result)).toEqual(["persist", "queryUsage", "publishContract"]);
	});

	it("a usage-limit wait whose model is no longer selected stops as usage_limited instead of waiting", () => {
		const settings = { ...DEFAULT_SETTINGS, retryUsageLimits: true };
		const model = () => ({ provider: "p", id: "other" });
		const result = step(active(), settled(run({ error: error({ usageLimit: true, scope }) })), {
			settings,
			model,
		});
		expect(result.state.goal).toMatchObject({ status: "usage_limited" });
		expect(result.state.goal?.outcome).toMatch(/model changed to p\/other/);
		expect(types(result)).not.toContain("queryUsage");
	});

	it("remaining provider retry or unclassified-error recovery enters deadline-free waiting while remaining active", () => {
		const unknown = step(active(), settled(run({ error: error() })));
		expect(unknown.state.goal?.wait).toMatchObject({ kind: "provider_error", resumeAt: null });
		const retried = step(active(), settled(run({ error: error({ nativeRetryable: true }) })));
		expect(retried.state.goal?.wait?.kind).toBe("provider_retry");
		expect(wakeOf(unknown)).toBeUndefined(); // waiting: no continuation, no request
	});

	it("before publication, settlement rechecks budget, then safety limits, then helper availability", () => {
		const limits = { ...DEFAULT_SETTINGS, automaticTurns: 1 };
		let goal = active(100);
		goal = step(
			goal,
			{ type: "turn", turn: { automatic: true, toolCalls: 1, text: "" } },
			{
				settings: { ...DEFAULT_SETTINGS, automaticTurns: 5 },
			},
		).state;
		const hidden = { helpersAvailable: () => false };
		const budget = step(goal, settled(run({ error: error() })), {
			branchTotal: 100,
			settings: limits,
			...hidden,
		});
		expect(budget.state.goal?.status).toBe("budget_limited");
		const limit = step(goal, settled(run({ error: error() })), { settings: limits, ...hidden });
		expect(limit.state.goal).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
		const helpers = step(goal, settled(run({ error: error() })), hidden);
		expect(helpers.state.goal).toMatchObject({ status: "paused", pauseReason: "helpers-unavailable" });
		const none = step(goal, settled(run({ error: error() })), { helpersAvailable: () => true });
		expect(none.state.goal?.wait?.kind).toBe("provider_error");
	});

	it("an explicit wait accepted before a later non-usage assistant error retains its reason and deadline", () => {
		const waiting = step(active(), { type: "wait", reason: "ci", resumeAt: 9000 }).state;
		const result = step(waiting, settled(run({ error: error() })));
		expect(result.state.goal?.wait).toEqual(waiting.goal?.wait);
	});

	it("an error that arrived for an earlier goal never moves a replacement goal", () => {
		const result = step(active(), settled(run({ error: error({ goalId: "g-0", usageLimit: true }) })));
		expect(result.state.goal?.status).toBe("active");
		expect(result.state.goal?.wait).toBeUndefined();
	});

	it("an active goal that got no continuation at its boundary starts again from idle once Pi settled", () => {
		const result = step(active(), settled(run()));
		expect(types(result)).toEqual(["publishContract", "requestWake"]);
		expect(wakeOf(result)).toEqual({ type: "requestWake", kind: "continuation", when: "afterHandlers" });
		const notOwned = step(active(), settled(run(), { owned: false }));
		expect(notOwned.state).toEqual(active()); // another runtime's goal: no state change
	});

	it("pi-goal's own abort of a stale goal prompt does not pause the goal and publishes nothing", () => {
		const result = step(active(), settled(run(), { staleAbort: true }));
		expect(result.state.goal?.status).toBe("active");
		expect(types(result)).toEqual(["requestWake"]);
	});

	it("a newer user or extension turn supersedes old continuation intent and wakes quiet provider-error waiting", () => {
		const waiting = step(active(), settled(run({ error: error() }))).state;
		const foreign = step(waiting, { type: "foreign_run" });
		expect(foreign.state.goal?.wait).toBeUndefined();
		expect(types(foreign)).toEqual(["persist", "cancelWake"]);
		const explicit = step(active(), { type: "wait", reason: "ci", resumeAt: null }).state;
		const kept = step(explicit, { type: "foreign_run" });
		expect(kept.state.goal?.wait?.kind).toBe("explicit");
		expect(types(kept)).toEqual(["cancelWake"]);
	});

	it("a failed length or overflow recovery (session_compact_failed) cancels the pending ordinary continuation", () => {
		const result = step(active(), { type: "recovery_failed" });
		expect(result.state).toEqual(active());
		expect(types(result)).toEqual(["cancelWake"]);
	});

	it("manual compaction emits no agent_settled, so it creates at most one fresh intent through the idle gates", () => {
		expect(wakeOf(step(active(), { type: "manual_compaction" }))).toEqual({
			type: "requestWake",
			kind: "continuation",
			when: "afterHandlers",
		});
		const waiting = step(active(), { type: "wait", reason: "ci", resumeAt: null }).state;
		expect(step(waiting, { type: "manual_compaction" }).effects).toEqual([]);
	});

	it("the existing wait timer requests continuation intent; it never sends a prompt itself", () => {
		const waiting = step(active(), { type: "wait", reason: "ci", resumeAt: 5000 }).state;
		const due = step(waiting, { type: "deadline", resumeAt: 5000 }, { now: 5000 });
		expect(due.state.goal?.wait).toBeUndefined();
		expect(wakeOf(due)).toEqual({ type: "requestWake", kind: "wake", when: "now" });
		expect(step(waiting, { type: "deadline", resumeAt: 4000 }).state).toBe(waiting); // stale timer
	});

	it("one due usage-limit deadline requests one recovery request with the same goal id", () => {
		const settings = { ...DEFAULT_SETTINGS, retryUsageLimits: true };
		const model = () => ({ provider: "p", id: "m" });
		const waiting = step(active(), settled(run({ error: error({ usageLimit: true, scope }) })), {
			settings,
			model,
		});
		const resumeAt = waiting.state.goal?.wait?.resumeAt ?? 0;
		const due = step(waiting.state, { type: "deadline", resumeAt }, { settings, model, now: resumeAt });
		expect(due.state.goal?.id).toBe("g-1");
		expect(wakeOf(due)?.kind).toBe("recovery");
	});

	it("observed model changes end usage-limit recovery for the old model as usage_limited", () => {
		const settings = { ...DEFAULT_SETTINGS, retryUsageLimits: true };
		const model = () => ({ provider: "p", id: "m" });
		const waiting = step(active(), settled(run({ error: error({ usageLimit: true, scope }) })), {
			settings,
			model,
		});
		const same = step(waiting.state, { type: "model_check", model: { provider: "p", id: "m" } });
		expect(same.state).toBe(waiting.state);
		const changed = step(waiting.state, { type: "model_check", model: { provider: "q", id: "n" } });
		expect(changed.state.goal?.status).toBe("usage_limited");
		expect(types(changed)).toContain("cancelWake");
		const due = step(waiting.state, { type: "deadline", resumeAt: 1000 + USAGE_FALLBACK_MS }, { settings });
		expect(due.state.goal?.status).toBe("usage_limited"); // no model at the deadline: cannot recover
	});

	it("a restored goal rechecks budget, helpers and limits, checkpoints its clock and wakes after the handlers", () => {
		const restored = step(active(), { type: "restored" }, { now: 4000 });
		expect(types(restored)).toEqual(["persist", "requestWake"]);
		expect(restored.state.goal?.clock).toEqual({ activeMs: 3000, since: 4000 });
		expect(wakeOf(restored)).toMatchObject({ kind: "wake", when: "afterHandlers" });
		const hidden = step(active(), { type: "restored" }, { helpersAvailable: () => false });
		expect(hidden.state.goal?.pauseReason).toBe("helpers-unavailable");
		const spent = step(
			active(100),
			{ type: "restored" },
			{ branchTotal: 100, helpersAvailable: () => false },
		);
		expect(spent.state.goal?.status).toBe("budget_limited"); // budget first
		const waiting = step(active(), { type: "wait", reason: "ci", resumeAt: null }).state;
		expect(step(waiting, { type: "restored" }).effects).toEqual([]); // a wait stays quiet
	});
});
