/**
 * Beside an extension that answers compactions with its own summary (a stand-in for Pi's
 * `custom-compaction` example, test/fixtures/peers/compaction-summary.ts). Pi asks every
 * `session_before_compact` handler in load order and keeps the last answer; a handler never sees
 * earlier answers. So the load order decides whose compaction is kept (docs/coexistence.md,
 * "Compaction extensions") for the compactions Pi still asks every handler about (`/compact`,
 * overflow, `ctx.compact()`; at Pi's threshold pi-reset resets at the boundary first,
 * threshold-preempt.session.test.ts):
 * - pi-reset first: the peer's summary is kept; pi-reset says so once, treats the compacted context
 *   as a new window (its checkpoint warning comes again there); a reset request folded into that
 *   compaction stays pending with its handoff (handoff-as-written.session.test.ts);
 * - pi-reset later: pi-reset's reset wins; the peer's summarisation call was made anyway (Pi gives
 *   pi-reset no way to see it).
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import compactionSummary, { SUMMARY_PROMPT_START } from "../../../test/fixtures/peers/compaction-summary.js";
import { allText, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
});

const WARNING = "[pi-reset] Checkpoint";
const BOOT = "[pi-reset] Context window";
// 128k window, default reserve 16384: warned at ≥ 99328 used, Pi's threshold compaction above 111616.
const nearlyFull = { totalTokens: 100_000, input: 100_000 };
const overThreshold = { totalTokens: 120_000, input: 120_000 };
const compactable = { compaction: { enabled: true, keepRecentTokens: 1 } };

function summaryCalls(h: ScriptedSession): number {
	return h.requests.filter((r) => allText(r).includes(SUMMARY_PROMPT_START)).length;
}

function compactions(h: ScriptedSession) {
	return h.session.sessionManager.getBranch().flatMap((e) => (e.type === "compaction" ? [e] : []));
}

function notices(stderr: { mock: { calls: unknown[][] } }): string[] {
	return stderr.mock.calls.map((call) => String(call[0])).filter((text) => text.includes("pi-reset:"));
}

describe("pi-reset loaded before a summarising compaction extension, at a compaction Pi asks about (/compact)", () => {
	it("a compaction another extension answered opens a new window: its summary is kept, the user is told once, and the checkpoint warning comes again there", async () => {
		const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
		harness = await startSession({ settings: compactable, extensions: [compactionSummary] });
		// Window one: warned, then over Pi's threshold, so Pi compacts at the end of the run.
		harness.setUsage((m) => (m.stopReason === "stop" ? nearlyFull : undefined));
		harness.script(reply("first answer"), reply("warned answer"));
		await harness.prompt("one");
		await harness.prompt("two");
		expect(allText(harness.requests.at(-1))).toContain(WARNING);
		// A compaction Pi still asks every handler about (at its threshold pi-reset resets at the boundary first).
		harness.setUsage(undefined);
		harness.script(reply("PEER SUMMARY of the work"));
		await harness.session.compact();
		expect(summaryCalls(harness)).toBe(1);
		const [compaction] = compactions(harness);
		expect(compaction?.summary).toContain("PEER SUMMARY");
		expect(compaction?.details).toBeUndefined();
		expect(notices(stderr)).toHaveLength(1);
		expect(notices(stderr)[0]).toContain("another extension's compaction replaced");

		// The compacted context is a new window: answered near full again, it is warned again.
		harness.setUsage((m) => (m.stopReason === "stop" ? nearlyFull : undefined));
		harness.script(reply("new window answer"), reply("new window warned"));
		await harness.prompt("four");
		const fourth = allText(harness.requests.at(-1));
		expect(fourth).toContain("PEER SUMMARY");
		expect(fourth).not.toContain(BOOT);
		await harness.prompt("five");
		expect(allText(harness.requests.at(-1))).toContain(WARNING);
		expect(summaryCalls(harness)).toBe(1);
		expect(harness.errors).toEqual([]);
	});
});

/**
 * pi-reset beside a summarising extension loaded later: an idle `/reset HANDOFF-A` in a window Pi
 * can compact starts Pi's compaction, which the other extension answers (one summary call); then
 * the message "two". The answers of "three" and "four" are scripted too.
 */
async function resetAnsweredByPeer(): Promise<ScriptedSession> {
	vi.spyOn(console, "error").mockImplementation(() => {});
	const h = await startSession({ settings: compactable, extensions: [compactionSummary] });
	const big = (label: string) => reply(`${label} ${"long answer text ".repeat(400)}`);
	h.script(big("ONE"), reply("PEER SUMMARY"), big("TWO"), big("THREE"), reply("FOUR"));
	await h.prompt("one");
	// A window Pi can compact: pi-reset starts Pi's compaction, the later extension answers it.
	await h.prompt("/reset HANDOFF-A");
	expect(summaryCalls(h)).toBe(1);
	await h.prompt("two");
	return h;
}

/** An idle `/reset HANDOFF-B` and the message "four": the reset waits for it, no second summary is paid for. */
async function expectResetUnbilled(h: ScriptedSession): Promise<void> {
	await h.prompt("/reset HANDOFF-B");
	await h.prompt("four");
	expect(summaryCalls(h)).toBe(1);
	const last = allText(h.requests.at(-1));
	expect(last).toContain("HANDOFF-B");
	expect(last).toContain("four");
	expect(h.errors).toEqual([]);
}

describe("an idle /reset beside a summarising compaction extension loaded later", () => {
	it("othersAnswerCompactions: once another extension answered a compaction pi-reset started, an idle /reset no longer starts one (it would pay for a summary pi-reset then replaces)", async () => {
		harness = await resetAnsweredByPeer();
		expect(allText(harness.requests.at(-1))).toContain("HANDOFF-A");
		await harness.prompt("three");
		// Again a window Pi can compact: this time the reset waits for the next message, no summary is paid for.
		await expectResetUnbilled(harness);
	});
});

describe("othersAnswerCompactions across /reload", () => {
	it("othersAnswerCompactions is read back from the session: after /reload an idle /reset still does not start a compaction the later extension would bill", async () => {
		harness = await resetAnsweredByPeer();
		await harness.prompt("three");
		// A new extension runtime (same Pi process): the session file still says another extension answers.
		await harness.reload();
		await expectResetUnbilled(harness);
	});
});

/** Calls `ctx.compact()` at every `turn_end`: a run's tool turn and the aborted turn that follows both ask, so Pi runs two compactions at once. */
const compactEveryTurn = (pi: ExtensionAPI) => {
	pi.on("turn_end", (_event, ctx) => {
		ctx.compact({ customInstructions: "every turn" });
	});
};

describe("compactions Pi runs at once", () => {
	it("a pi-reset compaction in the branch is the live window: two resets Pi ran at once are both pi-reset's (no 'another extension' notice) and /reset status names the last one", async () => {
		const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
		harness = await startSession({ settings: compactable, extensions: [compactEveryTurn] });
		harness.script(reply(`ONE ${"long answer text ".repeat(400)}`), toolCall("echo", { text: "x" }));
		await harness.prompt("one");
		await harness.session.waitForIdle();
		await harness.prompt("two");
		await harness.session.waitForIdle();
		await vi.waitFor(() => expect(compactions(harness as ScriptedSession)).toHaveLength(3));
		expect(notices(stderr).filter((text) => text.includes("another extension"))).toEqual([]);
		const live = compactions(harness).at(-1)?.details as { "pi-reset"?: { windowId: string } } | undefined;
		const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
		await harness.prompt("/reset status");
		const report = log.mock.calls.map((call) => String(call[0])).join("\n");
		expect(report).toContain(`Window: ${live?.["pi-reset"]?.windowId ?? "missing"}`);
		expect(harness.errors).toEqual([]);
	});
});

/** Commits a compaction of its own as a `turn_end` boundary draft when `armed` (Pi 1.6's boundary API). */
function boundaryCompactor() {
	const switch_ = { armed: false };
	const factory = (pi: ExtensionAPI) => {
		pi.on("turn_end", () => {
			if (!switch_.armed) return undefined;
			switch_.armed = false;
			return { entries: [{ type: "compaction" as const, summary: "OTHER RESET", firstKeptEntryId: null }] };
		});
	};
	return { switch_, factory };
}

describe.each([
	["before", true],
	["after", false],
] as const)(
	"an extension that compacts at a boundary (turn_end draft), loaded %s pi-reset",
	(_where, peerFirst) => {
		it("foreignWindow: a compaction another extension committed at a boundary opens a new window too: the checkpoint warning comes again there, and /reset status names the window a reload reads", async () => {
			const peer = boundaryCompactor();
			harness = peerFirst
				? await startSession({}, [peer.factory])
				: await startSession({ extensions: [peer.factory] });
			harness.setUsage((m) => (m.stopReason === "stop" ? nearlyFull : undefined));
			harness.script(
				reply("first"),
				reply("warned"),
				reply("compacted here"),
				reply("new one"),
				reply("new two"),
			);
			await harness.prompt("one");
			await harness.prompt("two");
			expect(allText(harness.requests.at(-1))).toContain(WARNING);
			peer.switch_.armed = true;
			await harness.prompt("three");
			await harness.prompt("four");
			expect(allText(harness.requests.at(-1))).toContain("OTHER RESET");
			await harness.prompt("five");
			expect(allText(harness.requests.at(-1))).toContain(WARNING);
			const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
			await harness.prompt("/reset status");
			const live = log.mock.calls.map((call) => String(call[0])).join("\n");
			log.mockClear();
			await harness.reload();
			await harness.prompt("/reset status");
			const reloaded = log.mock.calls.map((call) => String(call[0])).join("\n");
			const windowLine = (text: string) => text.split("\n").find((line) => line.includes("Window: "));
			expect(windowLine(live)).toBe(windowLine(reloaded));
			expect(windowLine(live)).toContain("Window: x-");
			expect(harness.errors).toEqual([]);
		});
	},
);

describe("pi-reset off beside a summarising compaction extension", () => {
	it("a compaction made while pi-reset is off still opens a new window: after /reset on it is warned again", async () => {
		harness = await startSession({ settings: compactable }, [compactionSummary]);
		harness.setUsage((m) => (m.stopReason === "stop" ? nearlyFull : undefined));
		harness.script(reply("first answer"), reply("warned answer"));
		await harness.prompt("one");
		await harness.prompt("two");
		expect(allText(harness.requests.at(-1))).toContain(WARNING);
		await harness.prompt("/reset off");
		harness.setUsage((m) => (m.stopReason === "stop" ? overThreshold : undefined));
		harness.script(reply("big answer"), reply("PEER SUMMARY while off"));
		await harness.prompt("three");
		expect(compactions(harness)[0]?.summary).toContain("PEER SUMMARY");
		await harness.prompt("/reset on");
		harness.setUsage((m) => (m.stopReason === "stop" ? nearlyFull : undefined));
		harness.script(reply("new window answer"), reply("new window warned"));
		await harness.prompt("four");
		await harness.prompt("five");
		expect(allText(harness.requests.at(-1))).toContain(WARNING);
		expect(harness.errors).toEqual([]);
	});
});

describe("pi-reset loaded after a summarising compaction extension", () => {
	it("at a compaction Pi asks about (/compact), pi-reset's reset is kept; the peer's summarisation call was still made (Pi keeps the last answer)", async () => {
		harness = await startSession({ settings: compactable }, [compactionSummary]);
		harness.script(
			reply(`big answer ${"long answer text ".repeat(400)}`),
			reply("PEER SUMMARY"),
			reply("after"),
		);
		await harness.prompt("one");
		await harness.session.compact();
		await harness.prompt("two");
		expect(summaryCalls(harness)).toBe(1);
		const [compaction] = compactions(harness);
		expect(compaction?.summary).toContain(BOOT);
		expect(allText(harness.requests.at(-1))).not.toContain("PEER SUMMARY");
		expect(harness.errors).toEqual([]);
	});
});

/**
 * A fact about Pi's API that pi-reset's threshold reset rests on (core/threshold.ts,
 * threshold-preempt.session.test.ts). A handler cannot see an earlier `session_before_compact`
 * answer, but a reset committed as a `turn_end` boundary draft once the turn's usage is over Pi's
 * threshold means Pi never starts its threshold compaction (it skips an answer older than the newest
 * compaction, and the next turn's projection is small), so no `session_before_compact` handler runs
 * and an extension loaded before pi-reset bills nothing.
 */
const THRESHOLD = 128_000 - 16_384;
const resetAtTurnEnd = (pi: ExtensionAPI) => {
	pi.on("turn_end", (event) => {
		const usage = (event.message as { usage?: { totalTokens?: number } }).usage;
		if ((usage?.totalTokens ?? 0) <= THRESHOLD) return undefined;
		return {
			entries: [{ type: "compaction" as const, summary: "PRE-EMPTED at turn_end", firstKeptEntryId: null }],
		};
	});
};

describe("Pi API: a reset committed at turn_end pre-empts Pi's threshold compaction", () => {
	it.each([
		["at the end of a run", false, true],
		["between turns of a run", true, true],
		["at the end of a run, without the turn_end reset (control)", false, false],
		["between turns of a run, without the turn_end reset (control)", true, false],
	] as const)(
		"%s: a summarising extension loaded first bills only when Pi's compaction runs",
		async (_label, midRun, preempt) => {
			harness = await createScriptedSession({
				settings: compactable,
				extensions: [
					{ name: "summary-peer", factory: compactionSummary },
					...(preempt ? [{ name: "turn-end-reset", factory: resetAtTurnEnd }] : []),
				],
			});
			harness.script(
				reply("warm up"),
				...(midRun ? [toolCall("read", { path: "missing.txt" })] : []),
				reply("big answer"),
				reply("PEER SUMMARY"),
				reply("next"),
			);
			await harness.prompt("zero");
			harness.setUsage((m) =>
				(midRun ? m.stopReason === "toolUse" : m.stopReason === "stop") ? overThreshold : undefined,
			);
			await harness.prompt("one");
			harness.setUsage(undefined);
			await harness.prompt("two");
			expect(summaryCalls(harness)).toBe(preempt ? 0 : 1);
			if (preempt) {
				expect(compactions(harness).map((c) => c.summary)).toEqual(["PRE-EMPTED at turn_end"]);
				expect(allText(harness.requests.at(-1))).toContain("PRE-EMPTED");
			}
			expect(harness.errors).toEqual([]);
		},
	);
});
