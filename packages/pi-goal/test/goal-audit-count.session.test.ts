/**
 * Audit (issue 30): "every response of the goal counts, and the count is what the user sees". The
 * response that ends the goal (goal_complete or goal_blocked, alone or beside other tool calls) was
 * produced while the goal was active; /goal status must count it.
 */
import { createScriptedSession, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { withFinishingResponse } from "../src/core/goal-transitions.js";
import { toolsExtension } from "./fixtures.js";
import { goalRecord } from "./goal-record.js";
import { completeGoal, completeGoalAfterWork, goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("the response that ends the goal counts", () => {
	it("goal_complete alone: two responses, two counted", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension()],
			responses: [toolCall("noop"), completeGoal("Done; tests pass.")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.providerCalls).toBe(2);
		expect(lastGoal(harness)).toMatchObject({ status: "complete", safety: { automaticTurns: 2 } });
	});

	it("goal_complete beside a command in one batch: the finishing response counts", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension()],
			responses: [toolCall("noop"), completeGoalAfterWork()],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "complete", safety: { automaticTurns: 2 } });
	});
});

describe("rule: the response that ends the goal counts (withFinishingResponse)", () => {
	it("goal_complete or goal_blocked called by the model adds its response once; a stop from elsewhere adds none", () => {
		expect(withFinishingResponse(goalRecord(), true).safety.automaticTurns).toBe(1);
		const goal = goalRecord();
		expect(withFinishingResponse(goal, undefined)).toBe(goal);
	});
});
