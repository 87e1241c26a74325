import { RESET_CHANNEL, type ResetAnnouncement } from "@pi-lifecycle/lifecycle-kit";
import { reply, type ScriptedSession, toolCall, toolCalls } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, branchTypes, outsideBoot, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("explicit reset (new_context)", () => {
	it("commits at the boundary with zero summarisation requests, a clean next request and exactly one continuation", async () => {
		const announcements: ResetAnnouncement[] = [];
		harness = await startSession({
			extensions: [
				(pi) => {
					pi.events.on(RESET_CHANNEL, (payload) => announcements.push(payload as ResetAnnouncement));
				},
			],
		});
		harness.script(
			reply("first answer about OLD-TOPIC"),
			toolCall("new_context", { handoff: "HANDOFF: step 2 of the migration is next" }),
			reply("continuing in the new window"),
		);
		await harness.prompt("please discuss OLD-TOPIC");
		await harness.prompt("now do the migration task");

		// One request per scripted step: no summarisation request was made.
		expect(harness.providerCalls).toBe(3);
		const next = allText(harness.requests[2]);
		expect(next).toContain("HANDOFF: step 2 of the migration is next");
		expect(next).toContain("now do the migration task");
		expect(outsideBoot(next)).not.toContain("OLD-TOPIC");
		// Exactly one continuation: one run started for the second prompt, and it ended after it.
		expect(harness.count("before_agent_start")).toBe(2);
		expect(harness.errors).toEqual([]);
		const types = branchTypes(harness);
		expect(types.slice(-4)).toEqual([
			"message:toolResult",
			"compaction",
			"custom_message:pi-reset/boot",
			"message:assistant",
		]);
		// History is never destroyed: the old conversation is still in the session.
		expect(types.filter((t) => t === "message:user")).toHaveLength(2);
		// The bus announcement names the committed compaction entry.
		expect(announcements).toHaveLength(1);
		const compaction = harness.session.sessionManager
			.getBranch()
			.find((entry) => entry.type === "compaction");
		expect(announcements[0]?.entryId).toBe(compaction?.id);
		expect(announcements[0]?.session).toBe(harness.session.sessionManager);
		expect(announcements[0]?.windowId).toMatch(/^w1-/);
	});

	it("repeated new_context in one window reports the reset as already pending and resets once", async () => {
		harness = await startSession();
		harness.script(
			toolCalls([
				{ name: "new_context", args: { handoff: "first" } },
				{ name: "new_context", args: { handoff: "second" } },
			]),
			reply("fresh"),
		);
		await harness.prompt("go");
		const results = harness.session.sessionManager
			.getBranch()
			.flatMap((entry) =>
				entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : [],
			);
		expect(results.map((m) => (m.content[0] as { text: string }).text)).toEqual([
			expect.stringContaining("requested"),
			expect.stringContaining("already pending"),
		]);
		expect(branchTypes(harness).filter((t) => t === "compaction")).toHaveLength(1);
		expect(allText(harness.requests[1])).toContain("first");
		expect(allText(harness.requests[1])).not.toContain("second");
		expect(harness.providerCalls).toBe(2);
	});

	it("new_context in a batch with other tools resets after the whole batch", async () => {
		harness = await startSession();
		harness.script(
			toolCalls([
				{ name: "echo", args: { text: "A" } },
				{ name: "new_context", args: { handoff: "after the batch" } },
				{ name: "echo", args: { text: "B" } },
			]),
			reply("fresh"),
		);
		await harness.prompt("go");
		const types = branchTypes(harness);
		expect(types.slice(-6)).toEqual([
			"message:toolResult",
			"message:toolResult",
			"message:toolResult",
			"compaction",
			"custom_message:pi-reset/boot",
			"message:assistant",
		]);
		const next = allText(harness.requests[1]);
		expect(next).toContain("after the batch");
		expect(next).not.toContain("echo: A");
		expect(harness.providerCalls).toBe(2);
		expect(harness.errors).toEqual([]);
	});
});
