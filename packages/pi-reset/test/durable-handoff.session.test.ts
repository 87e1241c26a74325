/**
 * Issue 16: a handoff is persisted when given and survives later compaction, abort, reload and run
 * starts until a committed reset delivers it once; `/compact <instructions>` becomes the handoff;
 * an abort cancels only a reset that waited for the aborted run's boundary.
 */
import { reply, type ScriptedSession, toolCall, toolCalls } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { allText, branchTypes, gate, outsideBoot, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
});

const compactable = { compaction: { enabled: true, keepRecentTokens: 1 } };

function summaries(h: ScriptedSession): string[] {
	return h.session.sessionManager
		.getBranch()
		.flatMap((entry) => (entry.type === "compaction" ? [entry.summary] : []));
}

describe("durable handoff", () => {
	it("/compact while a new_context batch still runs resets with the model's handoff", async () => {
		const warnings = vi.spyOn(console, "error").mockImplementation(() => undefined);
		harness = await startSession({ settings: compactable });
		const g = gate("compact-1");
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		harness.script(
			toolCalls([
				{ name: "new_context", args: { handoff: "HANDOFF-BEFORE-COMPACT" } },
				{ name: "slow", args: { gate: "compact-1" } },
			]),
		);
		const run = harness.prompt("start work");
		await g.started.promise;
		await harness.session.compact();
		await run;
		expect(summaries(harness).at(-1)).toContain("HANDOFF-BEFORE-COMPACT");
		// Never "cancelled" without saying what happens to the handoff.
		for (const [text] of warnings.mock.calls) {
			if (String(text).includes("aborted")) expect(String(text)).toContain("handoff is kept");
		}
	});

	it("an abort before the boundary cancels the reset but keeps the handoff for the next reset", async () => {
		harness = await startSession();
		const g = gate("abort-keep");
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		harness.script(
			toolCalls([
				{ name: "new_context", args: { handoff: "KEPT-HANDOFF" } },
				{ name: "slow", args: { gate: "abort-keep" } },
			]),
		);
		const run = harness.prompt("start work");
		await g.started.promise;
		await harness.abort();
		await run;
		expect(branchTypes(harness)).not.toContain("compaction");
		// A later reset without a handoff of its own delivers it.
		await harness.prompt("/reset");
		harness.script(reply("fresh"));
		await harness.prompt("go on");
		expect(allText(harness.requests.at(-1))).toContain("KEPT-HANDOFF");
	});

	it("is persisted when given: survives a reload and is delivered exactly once", async () => {
		harness = await startSession({ session: "file" });
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		await harness.prompt("/reset SAVED-HANDOFF");
		expect(branchTypes(harness)).toContain("custom:pi-reset/handoff");
		await harness.reload();
		// The pending request is not persisted (a reload drops it), the handoff is: the next reset carries it.
		harness.script(toolCall("new_context", {}), reply("second window"));
		await harness.prompt("fresh task");
		expect(allText(harness.requests.at(-1))).toContain("SAVED-HANDOFF");
		// Delivered: the next reset without a handoff does not repeat it, also after a reload.
		await harness.reload();
		harness.script(toolCall("new_context", {}), reply("third window"));
		await harness.prompt("more");
		expect(allText(harness.requests.at(-1))).not.toContain("SAVED-HANDOFF");
		expect(harness.errors).toEqual([]);
	});

	it("/compact <instructions> becomes the handoff of the new window", async () => {
		harness = await startSession({ settings: compactable });
		harness.script(reply("one"), reply("two"));
		await harness.prompt("first");
		await harness.prompt("second");
		await harness.session.compact("KEEP-FOCUS on the parser tests");
		expect(summaries(harness).at(-1)).toContain("KEEP-FOCUS on the parser tests");
	});
});

describe("abort and an idle /reset", () => {
	it("an abort does not cancel an idle /reset: the run already started in the new window, which stays", async () => {
		harness = await startSession();
		const g = gate("idle-abort");
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		await harness.prompt("/reset IDLE-HANDOFF");
		harness.script(toolCall("slow", { gate: "idle-abort" }));
		const run = harness.prompt("fresh task");
		await g.started.promise;
		await harness.abort();
		await run;
		harness.script(reply("after abort"));
		await harness.prompt("next prompt");
		const next = allText(harness.requests.at(-1));
		expect(outsideBoot(next)).not.toContain("OLD-ANSWER");
		expect(next).toContain("IDLE-HANDOFF");
		expect(branchTypes(harness).filter((t) => t === "compaction")).toHaveLength(1);
	});
});
