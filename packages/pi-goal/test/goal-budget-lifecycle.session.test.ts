/** Budget exhaustion without a wrap-up or an extra model request, also around provider errors. */
import {
	createScriptedSession,
	providerError,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { toolsExtension } from "./fixtures.js";
import { agentDirWith, fakeTime, goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("budget lifecycle", () => {
	it("budget exhaustion in a tool loop stops once, aborts, and makes no further request or wrap-up", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension()],
			recorderPosition: "first",
			responses: [toolCall("noop"), toolCall("noop"), toolCall("noop"), reply("never")],
		});
		harness.setUsage({ totalTokens: 600 });
		await harness.prompt("/goal --tokens 1k do it");
		await settle(harness);
		expect(lastGoal(harness).status).toBe("budget_limited");
		expect(harness.providerCalls).toBe(2);
	});

	it("a budget exhausted by a failed request is budget_limited, not provider-error waiting", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			recorderPosition: "first",
			responses: [providerError("400 bad request")],
		});
		harness.setUsage({ totalTokens: 5000 });
		await harness.prompt("/goal --tokens 1k do it");
		await settle(harness);
		expect(lastGoal(harness).status).toBe("budget_limited");
		expect(lastGoal(harness).wait).toBeUndefined();
		expect(harness.providerCalls).toBe(1);
	});

	it("a terminal budget limit cancels a usage-limit recovery timer", async () => {
		const time = fakeTime();
		harness = await createScriptedSession({
			extensions: [
				goalExtension({
					now: () => time.now,
					timers: time.timers,
					agentDir: agentDirWith({ retryUsageLimits: true }),
				}),
			],
			recorderPosition: "first",
			responses: [providerError("insufficient_quota")],
		});
		harness.setUsage({ totalTokens: 400 });
		await harness.prompt("/goal --tokens 1k do it");
		await settle(harness);
		const timer = time.live().at(-1);
		expect(lastGoal(harness).wait?.kind).toBe("usage_limit");
		// Lowering the budget below what was used stops the waiting goal terminally.
		await harness.prompt("/goal edit --tokens 100 do it");
		await settle(harness);
		expect(lastGoal(harness).status).toBe("budget_limited");
		expect(timer?.cleared).toBe(true);
		timer?.fn();
		await settle(harness);
		expect(harness.providerCalls).toBe(1);
	});
});
