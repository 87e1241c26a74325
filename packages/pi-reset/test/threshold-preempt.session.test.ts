/**
 * At Pi's threshold pi-reset resets at the boundary (core/threshold.ts): an answer whose context is
 * over Pi's compaction threshold gets pi-reset's reset at its `turn_end`, so Pi starts no threshold
 * compaction and no `session_before_compact` handler runs: an extension that summarises there (the
 * stand-in for Pi's `custom-compaction` example) bills nothing, loaded before or after pi-reset.
 * Overflow, `/compact` and `/reset off` still go through Pi's compaction.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import compactionSummary, { SUMMARY_PROMPT_START } from "../../../test/fixtures/peers/compaction-summary.js";
import { allText, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
});

const BOOT = "[pi-reset] Context window";
// 128k window, default reserve 16384: Pi's threshold compaction above 111616 tokens.
const overThreshold = { totalTokens: 120_000, input: 120_000 };
const underThreshold = { totalTokens: 111_000, input: 111_000 };
const compactable = { compaction: { enabled: true, keepRecentTokens: 1 } };
// The harness rewrites usage in its own message_end handler; loaded first, every extension sees the
// usage a provider reports at message_end.
const usageFirst = { recorderPosition: "first" } as const;

function summaryCalls(h: ScriptedSession): number {
	return h.requests.filter((r) => allText(r).includes(SUMMARY_PROMPT_START)).length;
}

function compactions(h: ScriptedSession) {
	return h.session.sessionManager.getBranch().flatMap((e) => (e.type === "compaction" ? [e] : []));
}

/** Counts Pi's `session_before_compact` events (none when the boundary reset came first). */
function compactionAsks() {
	const seen = { asks: 0 };
	const factory = (pi: ExtensionAPI) => {
		pi.on("session_before_compact", () => {
			seen.asks++;
			return undefined;
		});
	};
	return { seen, factory };
}

function resetCause(entry: { details?: unknown } | undefined): unknown {
	return (entry?.details as { "pi-reset"?: { cause?: string } } | undefined)?.["pi-reset"]?.cause;
}

describe.each([
	["first", true],
	["after pi-reset", false],
] as const)("a summarising extension loaded %s", (_where, peerFirst) => {
	it.each([
		["at the end of a run", false],
		["between turns of a run", true],
	] as const)(
		`at Pi's threshold pi-reset resets at the boundary: a summarising extension loaded ${peerFirst ? "first" : "after"} bills nothing (%s)`,
		async (_label, midRun) => {
			harness = peerFirst
				? await startSession({ ...usageFirst, settings: compactable }, [compactionSummary])
				: await startSession({ ...usageFirst, settings: compactable, extensions: [compactionSummary] });
			harness.script(
				reply("warm up"),
				...(midRun ? [toolCall("echo", { text: "TOOL-OUTPUT" })] : []),
				reply("big answer"),
				reply("PEER SUMMARY"),
				reply("next"),
			);
			await harness.prompt("zero");
			harness.setUsage((m) =>
				(midRun ? m.stopReason === "toolUse" : m.stopReason === "stop") ? overThreshold : undefined,
			);
			await harness.prompt("REQUEST-ONE please");
			harness.setUsage(undefined);
			await harness.prompt("two");
			expect(summaryCalls(harness)).toBe(0);
			const all = compactions(harness);
			expect(all).toHaveLength(1);
			expect(all[0]?.summary).toContain(BOOT);
			expect(resetCause(all[0])).toBe("threshold");
			if (midRun) {
				// The turn in progress is kept (as in Pi's compaction): the next request still has the tool output.
				const afterReset = harness.requests.find((r) => allText(r).includes(BOOT));
				expect(allText(afterReset)).toContain("echo: TOOL-OUTPUT");
			}
			expect(allText(harness.requests.at(-1))).not.toContain("PEER SUMMARY");
			expect(harness.errors).toEqual([]);
		},
	);
});

describe("pi-reset alone at Pi's threshold", () => {
	it("at Pi's threshold pi-reset resets at the boundary: the reset carries the user's request and the digest, Pi asks no compaction handler and no summary is made", async () => {
		const asks = compactionAsks();
		harness = await startSession({ ...usageFirst, settings: compactable, extensions: [asks.factory] });
		harness.script(reply("warm up"), toolCall("echo", { text: "x" }), reply("DONE-ANSWER"), reply("next"));
		await harness.prompt("zero");
		harness.setUsage((m) => (m.stopReason === "stop" ? overThreshold : undefined));
		await harness.prompt("REQUEST-ONE fix the parser");
		harness.setUsage(undefined);
		await harness.prompt("two");
		expect(asks.seen.asks).toBe(0);
		const [reset] = compactions(harness);
		// Retain-none: Pi stores the compaction's own id as the first kept entry.
		expect(reset?.firstKeptEntryId).toBe(reset?.id);
		expect(reset?.summary).toContain("REQUEST-ONE fix the parser");
		expect(reset?.summary).toContain("mechanical digest");
		expect(reset?.summary).toContain("DONE-ANSWER");
		// Exactly one model request per prompt: no summarisation call.
		expect(harness.requests).toHaveLength(4);
		expect(allText(harness.requests.at(-1))).toContain(BOOT);
		expect(harness.errors).toEqual([]);
	});

	it("under Pi's threshold nothing is reset", async () => {
		harness = await startSession({ ...usageFirst, settings: compactable });
		harness.script(reply("a"), reply("b"));
		harness.setUsage((m) => (m.stopReason === "stop" ? underThreshold : undefined));
		await harness.prompt("one");
		await harness.prompt("two");
		expect(compactions(harness)).toHaveLength(0);
		expect(harness.errors).toEqual([]);
	});

	it("at Pi's threshold pi-reset resets at the boundary: an answer's own usage decides, so a prompt estimated over the threshold whose answer is under it is not reset", async () => {
		harness = await startSession({ ...usageFirst, settings: compactable });
		harness.script(reply("a"), reply("b"), reply("c"));
		harness.setUsage((m) => (m.stopReason === "stop" ? underThreshold : undefined));
		await harness.prompt("one");
		// Pi's estimate of this prompt (characters / 4) puts the window over the threshold; the provider
		// then reports the answer under it, and Pi (which reads that usage after the run) compacts nothing.
		await harness.prompt(`two ${"word ".repeat(10_000)}`);
		await harness.prompt("three");
		expect(compactions(harness)).toHaveLength(0);
		expect(harness.errors).toEqual([]);
	});

	it("with Pi's compaction.enabled off, an answer over the threshold is not reset (Pi would not compact either)", async () => {
		harness = await startSession({ ...usageFirst, settings: { compaction: { enabled: false } } });
		harness.script(reply("a"), reply("b"));
		harness.setUsage((m) => (m.stopReason === "stop" ? overThreshold : undefined));
		await harness.prompt("one");
		await harness.prompt("two");
		expect(compactions(harness)).toHaveLength(0);
		expect(harness.errors).toEqual([]);
	});

	it("/reset off hands Pi's threshold compaction back: the summarising extension answers it", async () => {
		vi.spyOn(console, "error").mockImplementation(() => {});
		harness = await startSession({ ...usageFirst, settings: compactable }, [compactionSummary]);
		harness.script(reply("warm up"), reply("big answer"), reply("PEER SUMMARY"), reply("next"));
		await harness.prompt("zero");
		await harness.prompt("/reset off");
		harness.setUsage((m) => (m.stopReason === "stop" ? overThreshold : undefined));
		await harness.prompt("one");
		harness.setUsage(undefined);
		await harness.prompt("two");
		expect(summaryCalls(harness)).toBe(1);
		expect(compactions(harness)[0]?.summary).toContain("PEER SUMMARY");
		expect(harness.errors).toEqual([]);
	});

	it("Pi's manual compaction (/compact) still goes through Pi's compaction: a summarising extension loaded after pi-reset answers it", async () => {
		vi.spyOn(console, "error").mockImplementation(() => {});
		harness = await startSession({ ...usageFirst, settings: compactable, extensions: [compactionSummary] });
		harness.script(reply(`ONE ${"long answer text ".repeat(400)}`), reply("PEER SUMMARY"));
		await harness.prompt("one");
		await harness.session.compact();
		expect(summaryCalls(harness)).toBe(1);
		expect(compactions(harness)[0]?.summary).toContain("PEER SUMMARY");
		expect(harness.errors).toEqual([]);
	});
});

describe("a window Pi would not compact (Pi's keepRecentTokens, default 20000)", () => {
	// Pi compacts only a window with something before its keep-recent budget (prepareCompaction):
	// small windows are never compacted, whatever the usage. The boundary reset takes over Pi's
	// compaction, so it must not reset where Pi would not: a model whose answers stay over the
	// threshold would otherwise get a reset after every answer, each new window too.
	it("at Pi's threshold pi-reset resets only a window Pi would compact: answers that stay over the threshold in small windows are never reset", async () => {
		harness = await startSession({ ...usageFirst });
		harness.script(reply("a"), reply("b"), reply("c"));
		harness.setUsage((m) => (m.stopReason === "stop" ? overThreshold : undefined));
		await harness.prompt("one");
		await harness.prompt("two");
		await harness.prompt("three");
		expect(compactions(harness)).toHaveLength(0);
		expect(harness.errors).toEqual([]);
	});

	it("at Pi's threshold pi-reset resets only a window Pi would compact: a tool loop whose every answer is over the threshold is not reset at every turn", async () => {
		harness = await startSession({ ...usageFirst });
		harness.script(toolCall("echo", { text: "1" }), toolCall("echo", { text: "2" }), reply("done"));
		harness.setUsage(() => overThreshold);
		await harness.prompt("one");
		expect(compactions(harness)).toHaveLength(0);
		expect(harness.requests).toHaveLength(3);
		expect(harness.errors).toEqual([]);
	});

	it("at Pi's threshold pi-reset resets only a window Pi would compact: a large window is reset once, and the new window's answers over the threshold are not reset again", async () => {
		harness = await startSession({ ...usageFirst });
		harness.script(
			toolCall("echo", { text: "BIG ".repeat(25_000) }),
			reply("big answer"),
			reply("next"),
			reply("again"),
		);
		harness.setUsage((m) => (m.stopReason === "stop" ? overThreshold : undefined));
		await harness.prompt("REQUEST-ONE read it");
		expect(compactions(harness)).toHaveLength(1);
		await harness.prompt("two");
		await harness.prompt("three");
		expect(compactions(harness)).toHaveLength(1);
		expect(resetCause(compactions(harness)[0])).toBe("threshold");
		expect(harness.errors).toEqual([]);
	});
});

describe("model-specific compaction settings (compaction.modelOverrides)", () => {
	it("at Pi's threshold pi-reset resets at the boundary: the model's own reserveTokens and keepRecentTokens decide, as in Pi", async () => {
		harness = await startSession({ ...usageFirst }, [compactionSummary]);
		const model = harness.session.model;
		const key = `${model?.provider}/${model?.id}`;
		// Pi's defaults would neither compact at 100,000 tokens (threshold 111,616) nor a window this
		// small (keepRecentTokens 20,000); the model's overrides make it do both.
		harness.session.settingsManager.applyOverrides({
			compaction: { modelOverrides: { [key]: { reserveTokens: 50_000, keepRecentTokens: 1 } } },
		});
		harness.script(reply("warm up"), reply("big answer"), reply("PEER SUMMARY"), reply("next"));
		await harness.prompt("zero");
		harness.setUsage((m) => (m.stopReason === "stop" ? { totalTokens: 100_000, input: 100_000 } : undefined));
		await harness.prompt("REQUEST-ONE please");
		harness.setUsage(undefined);
		await harness.prompt("two");
		expect(summaryCalls(harness)).toBe(0);
		const all = compactions(harness);
		expect(all).toHaveLength(1);
		expect(resetCause(all[0])).toBe("threshold");
		expect(harness.errors).toEqual([]);
	});
});
