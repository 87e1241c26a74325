/**
 * Retry, overflow, compaction, provider-error waiting, wake-up, restored waiting and stopped-state
 * classification on Pi's real agent loop (faux provider errors).
 */
import {
	createScriptedSession,
	lengthStop,
	overflowError,
	providerError,
	reply,
	retryableError,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { compactorExtension, holderExtension } from "./fixtures.js";
import {
	completeGoalAfterWork,
	continuations,
	goalExtension,
	goalIdIn,
	lastGoal,
	settle,
} from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("provider errors and recovery at settlement", () => {
	it("successful native retry keeps the same goal active and it continues", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [retryableError(), reply("step done"), completeGoalAfterWork()],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.count("agent_end")).toBeGreaterThanOrEqual(2); // Pi retried
		expect(harness.count("before_agent_start")).toBe(1);
		expect(lastGoal(harness).status).toBe("complete");
		expect(goalIdIn(harness.requests[2]?.messages ?? [])).toBe(lastGoal(harness).id);
		expect(continuations(harness)).toHaveLength(1);
	});

	it("exhausted native retries enter deadline-free provider_retry waiting with the same id and no request", async () => {
		const control: Parameters<typeof holderExtension>[0] = {};
		harness = await createScriptedSession({
			extensions: [goalExtension(), holderExtension(control)],
			settings: { retry: { enabled: true, maxRetries: 1, baseDelayMs: 1 } },
			responses: [retryableError(), retryableError()],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		const goal = lastGoal(harness);
		expect(harness.providerCalls).toBe(2); // first attempt + one native retry, nothing from pi-goal
		expect(goal.status).toBe("active");
		expect(goal.wait).toMatchObject({ kind: "provider_retry", resumeAt: null });
		expect(goal.wait?.reason).toContain("503");
		// The workflow mutex stays held while waiting.
		expect(control.mutex?.tryAcquire().acquired).toBe(false);
	});

	it("recognised usage exhaustion stops as usage_limited by default and releases the mutex", async () => {
		const control: Parameters<typeof holderExtension>[0] = {};
		harness = await createScriptedSession({
			extensions: [goalExtension(), holderExtension(control)],
			responses: [providerError("429 insufficient_quota: You exceeded your current quota")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.providerCalls).toBe(1);
		const goal = lastGoal(harness);
		expect(goal.status).toBe("usage_limited");
		expect(goal.outcome).toContain("insufficient_quota");
		expect(control.mutex?.tryAcquire().acquired).toBe(true);
	});

	it("a non-retryable unknown error waits as provider_error; a user message wakes the same goal", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [providerError("400 invalid_request_error: messages.1.content is empty")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		const waiting = lastGoal(harness);
		expect(harness.providerCalls).toBe(1);
		expect(waiting.wait).toMatchObject({ kind: "provider_error", resumeAt: null });
		harness.script(completeGoalAfterWork());
		await harness.prompt("the request is fixed, go on");
		await settle(harness);
		expect(lastGoal(harness).status).toBe("complete");
		expect(lastGoal(harness).id).toBe(waiting.id);
		expect(goalIdIn(harness.requests[1]?.messages ?? [])).toBe(waiting.id);
	});

	it("overflow recovered by Pi's compaction keeps the goal active and working", async () => {
		harness = await createScriptedSession({
			extensions: [compactorExtension(), goalExtension()],
			settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
			responses: [reply("earlier"), overflowError(), reply("after compaction"), completeGoalAfterWork()],
		});
		await harness.prompt("warm up");
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.events.some((e) => e.type === "session_before_compact" && e.info.willRetry === true)).toBe(
			true,
		);
		expect(lastGoal(harness).status).toBe("complete");
	});

	it("failed length compaction recovery ends blocked and cancels the ordinary continuation", async () => {
		harness = await createScriptedSession({
			extensions: [compactorExtension(), goalExtension()],
			settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
			// Pi ignores a response stamped at or before the latest compaction (ms resolution): the
			// retried response is stamped just after it, as a real provider's response would be.
			responses: [
				reply("earlier"),
				() => lengthStop("cut"),
				() => ({ ...lengthStop("cut again"), timestamp: Date.now() + 1_000 }),
				reply("never"),
			],
		});
		await harness.prompt("warm up");
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.count("session_compact_failed")).toBe(1);
		expect(harness.providerCalls).toBe(3);
		expect(continuations(harness)).toHaveLength(0);
		const goal = lastGoal(harness);
		expect(goal.status).toBe("blocked");
	});

	it("a length stop without native recovery keeps the ordinary continuation", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [lengthStop("cut"), completeGoalAfterWork()],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.count("session_before_compact")).toBe(0);
		expect(continuations(harness)).toHaveLength(1);
		expect(lastGoal(harness).status).toBe("complete");
	});

	it("restored waiting: reload keeps quiet provider-error waiting without a request or timer", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [providerError("401 Unauthorized: invalid x-api-key")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		const before = lastGoal(harness);
		await harness.reload();
		await settle(harness);
		expect(harness.providerCalls).toBe(1);
		expect(lastGoal(harness)).toMatchObject({
			id: before.id,
			status: "active",
			wait: { kind: "provider_error" },
		});
		harness.script(completeGoalAfterWork());
		await harness.prompt("key rotated");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ id: before.id, status: "complete" });
	});
});
