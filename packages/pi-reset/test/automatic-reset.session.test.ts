import { overflowError, reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, branchTypes, outsideDigest, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const compactable = { compaction: { enabled: true, keepRecentTokens: 1 } };

function compactionEvents(h: ScriptedSession) {
	return h.events.filter((e) => e.type === "session_before_compact").map((e) => e.info);
}

describe("automatic compaction becomes an instant reset", () => {
	it("threshold compaction at the end of a run resets with no model turn and the next prompt starts fresh", async () => {
		harness = await startSession({ settings: compactable });
		harness.setUsage((m) => (m.stopReason === "stop" ? { totalTokens: 120_000, input: 120_000 } : undefined));
		harness.script(reply("OLD-ANSWER"), reply("new window answer"));
		await harness.prompt("my first request");
		expect(compactionEvents(harness)).toEqual([{ reason: "threshold", willRetry: false }]);
		harness.setUsage(undefined);
		await harness.prompt("second request");
		expect(harness.providerCalls).toBe(2);
		const next = allText(harness.requests[1]);
		expect(next).toContain("the context window was nearly full");
		expect(next).toContain("my first request");
		expect(next).toContain("second request");
		expect(outsideDigest(next)).not.toContain("OLD-ANSWER");
		expect(harness.errors).toEqual([]);
	});

	it("a threshold reset between turns (at the tool turn's boundary, before Pi's compaction) keeps the current turn's tool calls and results coherent", async () => {
		harness = await startSession({ settings: compactable });
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		harness.setUsage((m) =>
			m.stopReason === "toolUse" ? { totalTokens: 120_000, input: 120_000 } : undefined,
		);
		harness.script(toolCall("echo", { text: "TURN-RESULT" }), reply("done"));
		await harness.prompt("task in progress");
		// pi-reset reset at the tool turn's turn_end: Pi started no compaction (threshold-preempt.session.test.ts).
		expect(compactionEvents(harness)).toEqual([]);
		expect(harness.providerCalls).toBe(3);
		const texts = allText(harness.requests[2]);
		expect(texts).toContain("task in progress");
		expect(texts).toContain("[tool echo]");
		expect(texts).toContain("echo: TURN-RESULT");
		expect(outsideDigest(texts)).not.toContain("OLD-ANSWER");
		// The kept assistant tool call is immediately followed by its result.
		const roles = harness.requests[2]?.messages
			.filter((m) => m.role !== ("system" as string))
			.map((m) => m.role);
		expect(roles).toEqual(["user", "assistant", "toolResult"]);
	});

	it("overflow recovery retries the failed turn in the new window and the model still sees the request", async () => {
		harness = await startSession({ settings: compactable });
		harness.script(reply("OLD-ANSWER"), overflowError(), reply("recovered"));
		await harness.prompt("earlier topic");
		await harness.prompt("the request that overflowed");
		expect(compactionEvents(harness)).toEqual([{ reason: "overflow", willRetry: true }]);
		expect(harness.providerCalls).toBe(3);
		const retry = allText(harness.requests[2]);
		expect(retry).toContain("the request that overflowed");
		expect(retry).toContain("the context window overflowed");
		expect(outsideDigest(retry)).not.toContain("OLD-ANSWER");
		const last = harness.session.sessionManager.getLeafEntry();
		expect(last?.type === "message" && last.message.role === "assistant" && last.message.stopReason).toBe(
			"stop",
		);
	});

	it("overflow in the middle of a tool turn retries with that turn kept", async () => {
		harness = await startSession({ settings: compactable });
		harness.script(
			reply("OLD-ANSWER"),
			toolCall("echo", { text: "MID" }),
			overflowError(),
			reply("recovered"),
		);
		await harness.prompt("earlier topic");
		await harness.prompt("multi-step task");
		expect(compactionEvents(harness)).toEqual([{ reason: "overflow", willRetry: true }]);
		const retry = harness.requests[3];
		const roles = retry?.messages.filter((m) => m.role !== ("system" as string)).map((m) => m.role);
		expect(roles).toEqual(["user", "assistant", "toolResult"]);
		expect(allText(retry)).toContain("multi-step task");
		expect(allText(retry)).toContain("echo: MID");
		expect(outsideDigest(allText(retry))).not.toContain("OLD-ANSWER");
	});

	it("manual /compact resets without a summarisation request", async () => {
		harness = await startSession({ settings: compactable });
		harness.script(reply("OLD-ANSWER"), reply("after"));
		await harness.prompt("earlier topic");
		await harness.session.compact();
		expect(compactionEvents(harness)).toEqual([{ reason: "manual", willRetry: false }]);
		expect(harness.providerCalls).toBe(1);
		await harness.prompt("next");
		expect(outsideDigest(allText(harness.requests[1]))).not.toContain("OLD-ANSWER");
		expect(branchTypes(harness)).toContain("compaction");
	});

	it("an already-aborted compaction signal is cancelled, not reset", async () => {
		// Loaded before pi-reset: aborts the compaction before pi-reset's handler sees it.
		harness = await startSession({ settings: compactable }, [
			(pi) => {
				pi.on("session_before_compact", (_event, ctx) => {
					ctx.abort();
				});
			},
		]);
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		await expect(harness.session.compact()).rejects.toThrow("Compaction cancelled");
		expect(harness.events.find((e) => e.type === "session_compact_failed")?.info).toMatchObject({
			aborted: true,
		});
		expect(branchTypes(harness)).not.toContain("compaction");
		expect(harness.providerCalls).toBe(1);
	});
});
