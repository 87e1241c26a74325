import { reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, branchTypes, outsideBoot, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const WARNING = "[pi-reset] Checkpoint";

function occurrences(text: string, needle: string): number {
	return text.split(needle).length - 1;
}

function warnings(h: ScriptedSession): number {
	return branchTypes(h).filter((t) => t === "custom_message:pi-reset/warning").length;
}

describe("final checkpoint warning", () => {
	// 128k window, default reserve 16384: the warning fires at 16384 + 12288 tokens left (≥ 99328 used),
	// Pi's threshold compaction only above 111616.
	const nearlyFull = { totalTokens: 100_000, input: 100_000 };

	it("fires once at the threshold and not again in that window (nor after reload)", async () => {
		harness = await startSession();
		harness.script(reply("small"));
		await harness.prompt("one");
		expect(allText(harness.requests[0])).not.toContain(WARNING);
		harness.setUsage(nearlyFull);
		harness.script(reply("big"), reply("warned"), reply("still warned"), reply("after reload"));
		await harness.prompt("two");
		expect(allText(harness.requests[1])).not.toContain(WARNING);
		await harness.prompt("three");
		expect(occurrences(allText(harness.requests[2]), WARNING)).toBe(1);
		expect(warnings(harness)).toBe(1);
		await harness.prompt("four");
		expect(occurrences(allText(harness.requests[3]), WARNING)).toBe(1);
		await harness.reload();
		await harness.prompt("five");
		expect(occurrences(allText(harness.requests[4]), WARNING)).toBe(1);
		expect(warnings(harness)).toBe(1);
		expect(harness.errors).toEqual([]);
	});

	it("a new window can be warned again after a reset", async () => {
		harness = await startSession();
		harness.setUsage(nearlyFull);
		harness.script(
			reply("big"),
			toolCall("new_context", { handoff: "H" }),
			reply("fresh"),
			reply("big again"),
		);
		await harness.prompt("one");
		await harness.prompt("two");
		expect(allText(harness.requests[1])).toContain(WARNING);
		// The new window carries no stale warning (the closed window's warning is not persisted into it).
		expect(allText(harness.requests[2])).not.toContain(WARNING);
		expect(warnings(harness)).toBe(0);
		// Its first assistant usage is again near full: the new window is warned too.
		await harness.prompt("three");
		expect(allText(harness.requests[3])).toContain(WARNING);
		expect(warnings(harness)).toBe(1);
	});

	it("is absent when pi-reset is off", async () => {
		harness = await startSession();
		await harness.prompt("/reset off");
		harness.setUsage(nearlyFull);
		harness.script(reply("big"), reply("no warning"));
		await harness.prompt("one");
		await harness.prompt("two");
		expect(allText(harness.requests[1])).not.toContain(WARNING);
		expect(warnings(harness)).toBe(0);
	});
});

describe("/tree branch summaries", () => {
	it("never carry history erased by a reset into the summary", async () => {
		harness = await startSession();
		harness.script(
			reply("OLD-ANSWER"),
			toolCall("new_context", { handoff: "TREE-HANDOFF" }),
			reply("NEW-ANSWER"),
			reply("BRANCH SUMMARY"),
		);
		await harness.prompt("earlier topic");
		await harness.prompt("reset now");
		const first = harness.session.sessionManager
			.getBranch()
			.find((e) => e.type === "message" && e.message.role === "user");
		const start = harness.requests.length;
		const result = await harness.session.navigateTree(first?.id ?? "", { summarize: true });
		expect(result.cancelled).toBe(false);
		const summarised = harness.requests.slice(start).map(allText).join("\n");
		expect(summarised).toContain("NEW-ANSWER");
		expect(outsideBoot(summarised)).not.toContain("OLD-ANSWER");
	});
});
