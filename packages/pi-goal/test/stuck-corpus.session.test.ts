/**
 * Issue 30 (2): every scenario of the stuck/progress corpus through Pi's real AgentSession. Stuck
 * work is paused by the stuck detector within 8 requests, with a reason that names what repeated;
 * real progress is never stopped by it (it finishes with goal_complete).
 */
import { describe, expect, it } from "vitest";
import { createPiGoal } from "../src/index.js";
import { agentDirWith } from "./helpers.js";
import { runScenario } from "./stuck-corpus/run-scenario.js";
import { PROGRESS, STUCK } from "./stuck-corpus/scenarios.js";

const goal = (clock: Parameters<typeof createPiGoal>[0]) =>
	createPiGoal({ ...clock, agentDir: agentDirWith() });

describe("stuck work is paused within 8 requests (default settings)", () => {
	for (const scenario of STUCK)
		it(scenario.name, async () => {
			const run = await runScenario(scenario, goal);
			expect(run.status).toBe("paused");
			expect(run.pauseReason).toBe(scenario.rule === "repeated-reply" ? "no-progress" : "stuck");
			expect(run.requests).toBeLessThanOrEqual(8);
			expect(run.pauseDetail).toMatch(/times|circle/);
			expect(run.pauseDetail).toContain("/goal resume");
		});
});

describe("real progress is never stopped by the detector (default settings)", () => {
	for (const scenario of PROGRESS)
		it(scenario.name, async () => {
			const run = await runScenario(scenario, goal);
			expect(run).toMatchObject({ status: "complete" });
			expect(run.requests).toBe(scenario.steps.length + 1);
		});
});
