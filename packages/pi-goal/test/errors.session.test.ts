/**
 * A provider error with quota wording that Pi retries natively: the goal stays active through the
 * recovery (real session). The classification itself: errors.unit.test.ts.
 */
import {
	createScriptedSession,
	providerError,
	reply,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { completeGoalAfterWork, goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("error classification", () => {
	it("mixed quota wording on a natively retryable error: successful native recovery keeps the goal active", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [
				providerError("429 Too Many Requests: per-minute usage limit"),
				reply("recovered"),
				completeGoalAfterWork(),
			],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.count("agent_end")).toBeGreaterThanOrEqual(2);
		expect(lastGoal(harness).status).toBe("complete");
	});
});
