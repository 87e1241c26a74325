import {
	reply,
	requestTexts,
	type ScriptedSession,
	toolCall,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, branchTypes, gate, outsideBoot, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

function userMessagesWith(h: ScriptedSession, text: string): number {
	return h.events.filter(
		(e) =>
			e.type === "message_end" &&
			e.info.role === "user" &&
			JSON.stringify((e.event as { message: unknown }).message).includes(text),
	).length;
}

describe("resets and the running agent", () => {
	it("abort while a reset is pending cancels it: no boundary, no continuation, history unchanged", async () => {
		harness = await startSession();
		const g = gate("abort-1");
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		harness.script(
			toolCalls([
				{ name: "new_context", args: { handoff: "NEVER" } },
				{ name: "slow", args: { gate: "abort-1" } },
			]),
		);
		const run = harness.prompt("start work");
		await g.started.promise;
		await harness.abort();
		await run;
		expect(branchTypes(harness)).not.toContain("compaction");
		expect(harness.providerCalls).toBe(2);
		expect(harness.events.at(-1)?.info).toMatchObject({ aborted: true });
		// The request is gone: the next new_context is a fresh request, not "already pending".
		harness.script(toolCall("new_context", { handoff: "SECOND" }), reply("fresh"));
		await harness.prompt("try again");
		const next = allText(harness.requests.at(-1));
		expect(next).toContain("SECOND");
		expect(next).not.toContain("NEVER");
		expect(outsideBoot(next)).not.toContain("OLD-ANSWER");
	});

	it("steering and follow-up messages queued before the reset are delivered once, in the new window", async () => {
		harness = await startSession();
		const g = gate("queue-1");
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		harness.script(
			toolCalls([
				{ name: "slow", args: { gate: "queue-1" } },
				{ name: "new_context", args: { handoff: "QUEUE-HANDOFF" } },
			]),
			reply("answer to steer"),
			reply("answer to follow-up"),
		);
		const run = harness.prompt("start work");
		await g.started.promise;
		await harness.session.prompt("STEER-1", { streamingBehavior: "steer" });
		await harness.session.prompt("FOLLOW-1", { streamingBehavior: "followUp" });
		g.release.resolve();
		await run;
		expect(userMessagesWith(harness, "STEER-1")).toBe(1);
		expect(userMessagesWith(harness, "FOLLOW-1")).toBe(1);
		expect(harness.providerCalls).toBe(4);
		const afterReset = allText(harness.requests[2]);
		expect(afterReset).toContain("QUEUE-HANDOFF");
		expect(afterReset).toContain("STEER-1");
		expect(outsideBoot(afterReset)).not.toContain("OLD-ANSWER");
		expect(allText(harness.requests[3])).toContain("FOLLOW-1");
		expect(branchTypes(harness).filter((t) => t === "compaction")).toHaveLength(1);
		expect(harness.errors).toEqual([]);
	});

	it("/reset while idle: the next request starts in the fresh window without any summarisation request", async () => {
		harness = await startSession();
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		await harness.prompt("/reset HANDOFF-IDLE");
		expect(harness.providerCalls).toBe(1);
		harness.script(toolCall("echo", { text: "E1" }), reply("done"));
		await harness.prompt("fresh task");
		expect(harness.providerCalls).toBe(3);
		for (const request of harness.requests.slice(1)) {
			const text = allText(request);
			expect(text).toContain("HANDOFF-IDLE");
			expect(text).toContain("fresh task");
			expect(outsideBoot(text)).not.toContain("OLD-ANSWER");
			expect(outsideBoot(text)).not.toContain("earlier topic");
		}
		// The first request (projected by the context hook) and the committed window look the same.
		const first = harness.requests[1] ? requestTexts(harness.requests[1]) : [];
		const second = harness.requests[2] ? requestTexts(harness.requests[2]) : [];
		expect(second.slice(0, 2)).toEqual(first.slice(0, 2));
		const compaction = harness.session.sessionManager.getBranch().find((e) => e.type === "compaction");
		const kept =
			compaction?.type === "compaction"
				? harness.session.sessionManager.getEntry(compaction.firstKeptEntryId)
				: undefined;
		expect(kept?.type === "message" && kept.message.role).toBe("user");
		harness.script(reply("later"));
		await harness.prompt("later prompt");
		expect(outsideBoot(allText(harness.requests[3]))).not.toContain("OLD-ANSWER");
		expect(allText(harness.requests[3])).toContain("fresh task");
		expect(harness.errors).toEqual([]);
	});

	it("/reset while streaming commits at the next boundary of the run", async () => {
		harness = await startSession();
		const g = gate("stream-1");
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		harness.script(toolCall("slow", { gate: "stream-1" }), reply("in the new window"));
		const run = harness.prompt("long task");
		await g.started.promise;
		await harness.prompt("/reset HANDOFF-STREAM");
		g.release.resolve();
		await run;
		expect(harness.providerCalls).toBe(3);
		const next = allText(harness.requests[2]);
		expect(next).toContain("HANDOFF-STREAM");
		expect(next).toContain("long task");
		expect(outsideBoot(next)).not.toContain("OLD-ANSWER");
		expect(next).not.toContain("slow stream-1 done");
		expect(branchTypes(harness).filter((t) => t === "compaction")).toHaveLength(1);
	});
});
