/**
 * Pi's native recovery and pi-goal: backoff cancellation, final usage policy, length-recovery
 * ownership, compaction failure and cancellation, replacement, and recovery safety limits.
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
import { afterEach, describe, expect, it, vi } from "vitest";
import { compactorExtension } from "./fixtures.js";
import {
	completeGoal,
	completeGoalAfterWork,
	continuations,
	goalExtension,
	lastGoal,
	settle,
} from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** Retry settings with a backoff long enough to act during it (cancelled, never slept out). */
const SLOW_RETRY = { retry: { enabled: true, maxRetries: 3, baseDelayMs: 600_000 } };

describe("native recovery", () => {
	it("Escape during backoff (abortRetry) is not a pause: the goal waits quietly with the same id", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			settings: SLOW_RETRY,
			responses: [retryableError(), reply("never")],
		});
		const h = harness;
		const run = h.prompt("/goal ship it");
		await vi.waitFor(() => expect(h.session.isRetrying).toBe(true));
		expect(lastGoal(h).wait).toBeUndefined(); // nothing is published before settlement
		h.session.abortRetry();
		await run;
		await settle(h);
		expect(h.events.find((e) => e.type === "agent_settled")?.info.aborted).toBe(false);
		expect(h.providerCalls).toBe(1);
		expect(lastGoal(h)).toMatchObject({ status: "active", wait: { kind: "provider_retry", resumeAt: null } });
	});

	it("a full session abort during backoff pauses the goal (abort takes precedence)", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			settings: SLOW_RETRY,
			responses: [retryableError(), reply("never")],
		});
		const h = harness;
		const run = h.prompt("/goal ship it");
		await vi.waitFor(() => expect(h.session.isRetrying).toBe(true));
		await h.session.abort();
		await run;
		await settle(h);
		expect(h.events.find((e) => e.type === "agent_settled")?.info.aborted).toBe(true);
		expect(h.providerCalls).toBe(1);
		expect(lastGoal(h)).toMatchObject({ status: "paused", pauseReason: "interrupted" });
	});

	it("final usage policy: a native-ineligible usage limit is never retried and stops as usage_limited", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [providerError("Monthly usage limit reached; enable available balance"), reply("never")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.count("agent_end")).toBe(1);
		expect(harness.providerCalls).toBe(1);
		expect(lastGoal(harness).status).toBe("usage_limited");
	});

	it("length-recovery ownership: the compaction retry of automatic work counts as automatic work", async () => {
		harness = await createScriptedSession({
			extensions: [compactorExtension(), goalExtension()],
			settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
			responses: [
				reply("kickoff reply"),
				() => lengthStop("cut"),
				() => reply("recovered"),
				completeGoalAfterWork(),
			],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.events.some((e) => e.type === "session_before_compact" && e.info.willRetry === true)).toBe(
			true,
		);
		// The kickoff reply, continuation 1 (length), its native retry and the completing batch: four.
		expect(lastGoal(harness)).toMatchObject({ status: "complete", safety: { automaticTurns: 4 } });
	});

	it("failed overflow compaction recovery ends blocked", async () => {
		harness = await createScriptedSession({
			extensions: [compactorExtension({ fail: true }), goalExtension()],
			settings: { compaction: { enabled: true, keepRecentTokens: 1 }, retry: { enabled: false } },
			responses: [
				reply("earlier"),
				overflowError(),
				providerError("summary model unavailable"), // Pi's default summary fails
				reply("never"),
			],
		});
		await harness.prompt("warm up");
		await harness.prompt("/goal ship it");
		await settle(harness);
		const failed = harness.events.find((e) => e.type === "session_compact_failed");
		expect(failed?.info).toMatchObject({ reason: "overflow", aborted: false });
		expect(lastGoal(harness).status).toBe("blocked");
		expect(continuations(harness)).toHaveLength(0);
	});

	it("session_compact_failed.aborted marks the matching run cancelled: paused, no continuation", async () => {
		harness = await createScriptedSession({
			extensions: [compactorExtension({ cancel: true }), goalExtension()],
			settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
			responses: [reply("earlier"), () => lengthStop("cut"), reply("never")],
		});
		await harness.prompt("warm up");
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.events.find((e) => e.type === "session_compact_failed")?.info.aborted).toBe(true);
		expect(harness.providerCalls).toBe(2);
		expect(continuations(harness)).toHaveLength(0);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "interrupted" });
	});

	it("recovery safety limits: error responses of automatic work count, and a reached cap pauses instead of waiting", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension({ settings: { automaticTurns: 2 } })],
			settings: { retry: { enabled: true, maxRetries: 1, baseDelayMs: 1 } },
			responses: [reply("kickoff reply"), retryableError(), retryableError(), reply("never")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.providerCalls).toBe(3);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
		expect(lastGoal(harness).wait).toBeUndefined();
	});

	it("a replacement goal started after an error is not moved by the old run's settlement", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [providerError("400 bad request"), completeGoal(), completeGoal()],
		});
		await harness.prompt("/goal first");
		await settle(harness);
		const first = lastGoal(harness);
		expect(first.wait?.kind).toBe("provider_error");
		await harness.prompt("/goal clear");
		await harness.prompt("/goal second");
		await settle(harness);
		expect(lastGoal(harness).id).not.toBe(first.id);
		expect(lastGoal(harness).status).toBe("complete");
	});
});
