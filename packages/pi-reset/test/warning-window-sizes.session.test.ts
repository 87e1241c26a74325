/**
 * Issue 16: the checkpoint warning on small windows (margin scaled to a quarter of the usable
 * window), and a user prompt larger than the warning point does not start a reset loop.
 */
import { reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, branchTypes, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const WARNING = "[pi-reset] Checkpoint";
const noAutoCompaction = { compaction: { enabled: false } };

describe("warning margin by window size", () => {
	it("32k window: a fresh window is not warned at 6k tokens, only at three quarters of its usable room", async () => {
		harness = await startSession({
			model: { id: "small", contextWindow: 32_768 },
			settings: noAutoCompaction,
		});
		harness.setUsage({ totalTokens: 6_000, input: 6_000 });
		harness.script(reply("a"), reply("b"));
		await harness.prompt("one");
		await harness.prompt("two");
		// Seed rule alone (reserve + 12288 = 28672 left) would warn here, at 18% use.
		expect(allText(harness.requests[1])).not.toContain(WARNING);
		harness.setUsage({ totalTokens: 12_500, input: 12_500 });
		harness.script(reply("c"), reply("d"));
		await harness.prompt("three");
		await harness.prompt("four");
		expect(allText(harness.requests[3])).toContain(WARNING);
	});

	it("16k window with Pi's default reserve: no warning at all (Pi's reserve leaves no usable room)", async () => {
		harness = await startSession({
			model: { id: "tiny", contextWindow: 16_384 },
			settings: noAutoCompaction,
		});
		harness.setUsage({ totalTokens: 2_000, input: 2_000 });
		harness.script(reply("a"), reply("b"));
		await harness.prompt("one");
		await harness.prompt("two");
		expect(allText(harness.requests[1])).not.toContain(WARNING);
	});

	it("1M window keeps the seed's rule: warned at reserve + 12288 tokens left", async () => {
		harness = await startSession({
			model: { id: "huge", contextWindow: 1_000_000 },
			settings: noAutoCompaction,
		});
		const used = 1_000_000 - 16_384 - 12_288 + 10;
		harness.setUsage({ totalTokens: used, input: used });
		harness.script(reply("a"), reply("b"));
		await harness.prompt("one");
		await harness.prompt("two");
		expect(allText(harness.requests[1])).toContain(WARNING);
	});
});

describe("a user prompt larger than the warning point", () => {
	it("is not warned at the window's first request, and the reset it leads to does not loop", async () => {
		harness = await startSession({ settings: noAutoCompaction });
		// About 105k tokens by Pi's estimate (chars / 4): past the warning point of a 128k window.
		const huge = `HUGE-START ${"lorem ipsum ".repeat(35_000)} HUGE-END`;
		harness.setUsage({ totalTokens: 106_000, input: 106_000 });
		harness.script(reply("read it"), toolCall("new_context", { handoff: "working on the huge input" }));
		await harness.prompt(huge);
		// The first request of the window is not warned: nothing has been done that could be handed over.
		expect(allText(harness.requests[0])).not.toContain(WARNING);
		await harness.prompt("continue");
		expect(allText(harness.requests[1])).toContain(WARNING);
		// After the model's reset the new window carries a bounded excerpt, and is not warned again.
		harness.setUsage({ totalTokens: 8_000, input: 8_000 });
		harness.script(reply("fresh"), reply("still fresh"));
		await harness.prompt("next");
		await harness.prompt("and next");
		const fresh = allText(harness.requests.at(-1));
		expect(fresh).not.toContain(WARNING);
		expect(fresh).toContain("working on the huge input");
		expect(fresh).not.toContain("HUGE-END");
		expect(fresh.length).toBeLessThan(20_000);
		expect(branchTypes(harness).filter((t) => t === "compaction")).toHaveLength(1);
	});
});
