/**
 * Settings, token usage and the window's contract revision are events into the runtime reducer
 * (goal-runtime.ts), not setters on the controller. One test per rule, named after it.
 */
import { describe, expect, it } from "vitest";
import {
	EMPTY_RUNTIME,
	type GoalRuntime,
	pendingContract,
	type RuntimeEvent,
	type RuntimeTransition,
	reduceRuntime,
} from "../src/core/goal-runtime.js";
import { DEFAULT_SETTINGS } from "../src/core/types.js";

const host = Object.freeze({ now: 1000 });

function step(runtime: GoalRuntime, event: RuntimeEvent): RuntimeTransition {
	return reduceRuntime(Object.freeze(runtime), Object.freeze(event), host);
}

const types = (transition: RuntimeTransition) => transition.effects.map((effect) => effect.type);

function started(runtime: GoalRuntime = EMPTY_RUNTIME, tokenBudget: number | null = null): GoalRuntime {
	return step(runtime, { type: "start", id: "g-1", objective: "o", tokenBudget }).runtime;
}

const scope = { provider: "p", model: "m", api: "x" };
const retryOn = { ...DEFAULT_SETTINGS, retryUsageLimits: true };

function usageWaiting(): GoalRuntime {
	const runtime = step(started(), { type: "settings", settings: retryOn }).runtime;
	const wait = {
		type: "wait",
		kind: "usage_limit",
		reason: "usage limit",
		resumeAt: 5000,
		usageLimit: scope,
	} as const;
	return step(runtime, wait).runtime;
}

describe("runtime events", () => {
	it("turning retryUsageLimits off stops a pending usage-limit wait as usage_limited", () => {
		const off = step(usageWaiting(), {
			type: "settings",
			settings: DEFAULT_SETTINGS,
			changed: "retryUsageLimits",
		});
		expect(off.runtime.settings.retryUsageLimits).toBe(false);
		expect(off.runtime.goal.goal).toMatchObject({
			status: "usage_limited",
			outcome: "usage-limit recovery was turned off",
		});
		expect(types(off)).toEqual(["persist", "cancelWake", "refreshFooter"]);
	});

	it("loading settings (no user change) never stops a goal; turning retryUsageLimits on never restarts one", () => {
		const loaded = step(usageWaiting(), { type: "settings", settings: DEFAULT_SETTINGS });
		expect(loaded.runtime.goal.goal?.wait?.kind).toBe("usage_limit");
		expect(types(loaded)).toEqual(["refreshFooter"]);
		const stopped = step(started(), { type: "usage_limited", detail: "quota" }).runtime;
		const on = step(stopped, { type: "settings", settings: retryOn, changed: "retryUsageLimits" });
		expect(on.runtime.goal).toBe(stopped.goal);
	});

	it("settings are facts of every later transition (a lowered cap applies to the next count)", () => {
		const capped = step(started(), {
			type: "settings",
			settings: { ...DEFAULT_SETTINGS, automaticTurns: 1 },
		});
		const turn = step(capped.runtime, { type: "turn", turn: { automatic: true, toolCalls: 1, text: "" } });
		expect(turn.runtime.goal.goal).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
	});

	it("token usage adds to the branch total without touching the goal or running any effect", () => {
		const runtime = started(EMPTY_RUNTIME, 100);
		const counted = step(runtime, { type: "tokens", tokens: 60, leafBefore: "leaf-1" });
		expect(counted.runtime.branchTotal).toBe(60);
		expect(counted.runtime.lastCounted).toEqual({ leafBefore: "leaf-1", tokens: 60 });
		expect(counted.runtime.goal).toBe(runtime.goal);
		expect(counted.effects).toEqual([]);
		expect(step(counted.runtime, { type: "tokens", tokens: 0 }).runtime).toBe(counted.runtime);
		// The budget is checked at its boundaries (tool_execution_end, agent_end), not per message.
		const spent = step(counted.runtime, { type: "tokens", tokens: 60 }).runtime;
		expect(step(spent, { type: "budget_check" }).runtime.goal.goal?.status).toBe("budget_limited");
	});

	it("a window revision change re-arms the context fallback and the boundaries; the same revision does nothing", () => {
		const runtime = started();
		const entered = step(runtime, { type: "window", revision: 1 });
		expect(types(entered)).toEqual(["followWindow"]);
		expect(step(entered.runtime, { type: "window", revision: 1 }).runtime).toBe(entered.runtime);
		expect(types(step(entered.runtime, { type: "window", revision: -1 }))).toEqual(["followWindow"]);
	});

	it("every active or inactive contract explicitly supersedes earlier contracts: a stop or clear leaves one inactive revision pending", () => {
		const runtime = started();
		expect(pendingContract(runtime)?.details.revision).toBe(1);
		const inWindow = step(runtime, { type: "window", revision: 1 }).runtime;
		expect(pendingContract(inWindow)).toBeUndefined();
		const cleared = step(inWindow, { type: "clear" }).runtime;
		expect(cleared.cleared?.id).toBe("g-1");
		expect(pendingContract(cleared)).toMatchObject({ details: { revision: 2 } });
		// A window that never held a contract needs no inactive revision.
		const fresh = step(runtime, { type: "window", revision: -1 }).runtime;
		expect(pendingContract(step(fresh, { type: "clear" }).runtime)).toBeUndefined();
	});
});
