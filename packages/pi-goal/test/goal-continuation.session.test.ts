import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
	completeGoal,
	continuations,
	continuationTexts,
	defined,
	goalExtension,
	lastState,
	settle,
} from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("boundary continuation", () => {
	it("kickoff, tool-free reply, exactly one continuation, goal_complete, then no further request", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			// A goal_complete before any tool work is asked about once; the second is accepted.
			responses: [reply("I looked at the task."), completeGoal(), completeGoal()],
		});
		await harness.prompt("/goal write the report");
		await settle(harness);
		expect(harness.errors).toEqual([]);
		expect(harness.providerCalls).toBe(3);
		expect(continuations(harness)).toHaveLength(1);
		expect(continuationTexts(defined(harness.requests[1]))).toBe(1);
		expect(lastState(harness)?.goal?.status).toBe("complete");
		// The continuation rode the boundary: one run, one before_agent_start, one settle.
		expect(harness.count("before_agent_start")).toBe(1);
		expect(harness.count("agent_settled")).toBe(1);
		// The tool result ended the turn: no request after goal_complete.
		harness.script(reply("should never be requested"));
		await settle(harness);
		expect(harness.providerCalls).toBe(3);
	});

	it("in print and json mode /goal stays until the goal's work settles, so pi -p runs the goal", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [reply("Part one done."), completeGoal(), completeGoal()],
		});
		// The harness is a print-mode host: the command itself must not return before the work.
		await harness.prompt("/goal write both parts");
		expect(harness.providerCalls).toBe(3);
		expect(lastState(harness)?.goal?.status).toBe("complete");
		expect(harness.session.isStreaming).toBe(false);
	});
});
