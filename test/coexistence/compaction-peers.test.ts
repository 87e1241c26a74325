/**
 * The compaction rows of the coexistence matrix (docs/coexistence.md, "Compaction extensions"):
 * stand-ins that behave like Pi's `custom-compaction` example (a summary-producing
 * `session_before_compact` handler), Pi's `trigger-compact` example (`ctx.compact()` mid-run and a
 * command) and an auto-compacting extension (`ctx.compact()` after a tool result), each before and
 * after pi-reset, with pi-reset alone and with all three of ours, loaded from their packed tarballs.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	type DynamicStep,
	type RecordedRequest,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { BOUNDARY_SUMMARY } from "../fixtures/peers/compaction-boundary.js";
import { SUMMARY_PROMPT_START } from "../fixtures/peers/compaction-summary.js";
import { activeGoalId, countContaining, texts } from "../support/model.js";
import { type ExtensionName, installPacked, type PackedInstall } from "../support/packed.js";

const peer = (file: string) => fileURLToPath(new URL(`../fixtures/peers/${file}`, import.meta.url));
const SUMMARY = peer("compaction-summary.ts");
const TRIGGER = peer("compaction-trigger.ts");
const AUTO = peer("compaction-auto.ts");
const EVERY_TURN = peer("compaction-every-turn.ts");
const BOUNDARY = peer("compaction-boundary.ts");

const BOOT = "[pi-reset] Context window";
const WARNING = "[pi-reset] Checkpoint";
const compactable = { compaction: { enabled: true, keepRecentTokens: 1 } };
// Pi's threshold at 20,000 tokens (a 128k window, a 108,000-token reserve). The faux provider reports
// a request's size as its usage at message_end, like a real provider, so a large prompt crosses it.
// (The sizes below hold on Pi 1.3.0 and 1.6.)
const lowThreshold = { compaction: { enabled: true, keepRecentTokens: 1, reserveTokens: 108_000 } };
/** About `tokens` tokens of text (the faux provider counts four characters a token). */
const padding = (tokens: number) => "context ".repeat(tokens / 2);

const ours: Record<string, ExtensionName[]> = {
	"pi-reset alone": ["pi-reset"],
	"all three": ["pi-reset", "pi-goal", "pi-jscpd"],
};
let install: PackedInstall;
let harness: ScriptedSession | undefined;
beforeAll(() => {
	install = installPacked(["pi-reset", "pi-goal", "pi-jscpd"]);
});
afterAll(() => install?.cleanup());
afterEach(async () => {
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
});

function dirs(names: readonly ExtensionName[]): string[] {
	return names.map((name) => install.extensions.find((ext) => ext.name === name)?.packageDir ?? "");
}

/** Our packages with the peer first or last. */
function loadOrder(set: readonly ExtensionName[], peerPath: string, peerFirst: boolean): string[] {
	return peerFirst ? [peerPath, ...dirs(set)] : [...dirs(set), peerPath];
}

function text(request: RecordedRequest | undefined): string {
	return texts(request?.messages ?? []).join("\n");
}

function summaryCalls(h: ScriptedSession): number {
	return h.requests.filter((request) => text(request).includes(SUMMARY_PROMPT_START)).length;
}

/** Requests that summarise a conversation (Pi's own summariser and the stand-in both send it in these tags). */
function summarisations(h: ScriptedSession): number {
	return h.requests.filter((request) => text(request).includes("<conversation>")).length;
}

function compactions(h: ScriptedSession): Extract<SessionEntry, { type: "compaction" }>[] {
	return h.session.sessionManager
		.getBranch()
		.flatMap((entry) => (entry.type === "compaction" ? [entry] : []));
}

function isResetCompaction(entry: { details?: unknown } | undefined): boolean {
	const details = entry?.details as Record<string, unknown> | undefined;
	return typeof details?.["pi-reset"] === "object";
}

function resetNotices(stderr: { mock: { calls: unknown[][] } }): string[] {
	return stderr.mock.calls.map((call) => String(call[0])).filter((line) => line.includes("pi-reset:"));
}

/**
 * Two runs, the second a tool turn a peer's `ctx.compact()` ends (usage: `toolTokens` for the tool
 * turn, `answerTokens` for answers). Checks the compaction is pi-reset's reset and stopped the run
 * after its tool turn, then sends "three" and returns what the model received in the new window.
 */
async function compactedAfterToolTurn(h: ScriptedSession, toolTokens: number, answerTokens: number) {
	h.setUsage((m) =>
		m.stopReason === "toolUse"
			? { totalTokens: toolTokens, input: toolTokens }
			: { totalTokens: answerTokens, input: answerTokens },
	);
	h.script(reply("first"), toolCall("read", { path: "missing.txt" }));
	await h.prompt("one");
	await h.prompt("two");
	await h.session.waitForIdle();
	await vi.waitFor(() => expect(compactions(h)).toHaveLength(1));
	expect(isResetCompaction(compactions(h)[0])).toBe(true);
	// The compaction aborted the run after its tool turn: no further request in the old window.
	expect(h.providerCalls).toBe(2);
	expect(h.events.filter((e) => e.type === "agent_settled").map((e) => e.info)).toEqual([
		{ aborted: false },
		{ aborted: true },
	]);
	h.setUsage(undefined);
	h.script(reply("fresh"));
	await h.prompt("three");
	return text(h.requests.at(-1));
}

describe.each(Object.entries(ours))("with %s", (_label, set) => {
	describe.each([
		["first", true],
		["after pi-reset", false],
	] as const)(
		"a summary-producing compaction handler (like Pi's custom-compaction example) loaded %s",
		(where, peerFirst) => {
			it(`at Pi's threshold pi-reset resets at the boundary: a summarising extension loaded ${where} bills nothing`, async () => {
				harness = await createScriptedSession({
					extensionPaths: loadOrder(set, SUMMARY, peerFirst),
					settings: lowThreshold,
				});
				// The answer's usage (its output counts) crosses Pi's threshold.
				harness.script(reply(`big answer ${padding(21_000)}`), reply("PEER SUMMARY"), reply("after"));
				await harness.prompt("REQUEST-ONE start the work");
				await harness.prompt("two");
				expect(summaryCalls(harness)).toBe(0);
				expect(harness.events.filter((e) => e.type === "session_before_compact")).toEqual([]);
				const [compaction] = compactions(harness);
				expect(isResetCompaction(compaction)).toBe(true);
				expect(compaction?.summary).toContain("REQUEST-ONE start the work");
				expect(text(harness.requests.at(-1))).toContain(BOOT);
				expect(harness.providerCalls).toBe(2);
				expect(harness.errors).toEqual([]);
			});
		},
	);

	describe("a summary-producing compaction handler and a compaction Pi still asks about (/compact)", () => {
		it("loaded after pi-reset: its summary is kept, pi-reset says so once and warns the compacted context as a new window", async () => {
			const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
			harness = await createScriptedSession({
				extensionPaths: loadOrder(set, SUMMARY, false),
				settings: compactable,
			});
			harness.script(
				reply(`big answer ${"long answer text ".repeat(400)}`),
				reply("PEER SUMMARY of the work"),
			);
			await harness.prompt("one");
			await harness.session.compact();
			expect(summaryCalls(harness)).toBe(1);
			const [compaction] = compactions(harness);
			expect(compaction?.summary).toContain("PEER SUMMARY");
			expect(isResetCompaction(compaction)).toBe(false);
			expect(resetNotices(stderr)).toHaveLength(1);
			expect(resetNotices(stderr)[0]).toContain("its summary is kept");
			// The new window: the peer's summary, no pi-reset boot; near full again, it is warned.
			harness.setUsage((m) =>
				m.stopReason === "stop" ? { totalTokens: 100_000, input: 100_000 } : undefined,
			);
			harness.script(reply("new window"), reply("warned"));
			await harness.prompt("two");
			expect(text(harness.requests.at(-1))).toContain("PEER SUMMARY");
			expect(text(harness.requests.at(-1))).not.toContain(BOOT);
			await harness.prompt("three");
			expect(text(harness.requests.at(-1))).toContain(WARNING);
			expect(harness.errors).toEqual([]);
		});

		it("loaded before pi-reset: pi-reset's reset is kept and its summarisation call was still made (Pi keeps the last answer; no handler sees an earlier one)", async () => {
			harness = await createScriptedSession({
				extensionPaths: loadOrder(set, SUMMARY, true),
				settings: compactable,
			});
			harness.script(
				reply(`big answer ${"long answer text ".repeat(400)}`),
				reply("PEER SUMMARY"),
				reply("after"),
			);
			await harness.prompt("one");
			await harness.session.compact();
			await harness.prompt("two");
			expect(summaryCalls(harness)).toBe(1);
			expect(isResetCompaction(compactions(harness)[0])).toBe(true);
			expect(text(harness.requests.at(-1))).toContain(BOOT);
			expect(text(harness.requests.at(-1))).not.toContain("PEER SUMMARY");
			expect(harness.errors).toEqual([]);
		});
	});

	describe.each([
		["before", true],
		["after", false],
	] as const)("an extension calling ctx.compact(), loaded %s pi-reset", (_where, peerFirst) => {
		it("trigger-compact's command while idle: pi-reset's instant reset, no summary call, its instructions become the handoff", async () => {
			harness = await createScriptedSession({
				extensionPaths: loadOrder(set, TRIGGER, peerFirst),
				settings: compactable,
			});
			harness.script(reply("first answer about OLD-TOPIC"), reply("second answer"), reply("fresh"));
			await harness.prompt("discuss OLD-TOPIC");
			await harness.prompt("more");
			await harness.prompt("/trigger-compact KEEP-THE-PARSER-NOTES");
			await harness.session.waitForIdle();
			const [compaction] = compactions(harness);
			expect(isResetCompaction(compaction)).toBe(true);
			await harness.prompt("next");
			expect(harness.providerCalls).toBe(3);
			expect(summarisations(harness)).toBe(0);
			const fresh = text(harness.requests.at(-1));
			expect(fresh).toContain(BOOT);
			expect(fresh).toContain("KEEP-THE-PARSER-NOTES");
			expect(harness.errors).toEqual([]);
		});

		it("trigger-compact's ctx.compact() mid-run: the run stops, pi-reset resets with no summary call, the next message is in the new window", async () => {
			harness = await createScriptedSession({
				extensionPaths: loadOrder(set, TRIGGER, peerFirst),
				settings: compactable,
			});
			const fresh = await compactedAfterToolTurn(harness, 105_000, 50_000);
			expect(fresh).toContain(BOOT);
			expect(fresh).toContain("three");
			expect(summarisations(harness)).toBe(0);
			expect(harness.errors).toEqual([]);
		});

		it("an auto-compacting extension's ctx.compact() after a tool result: pi-reset resets with no summary call", async () => {
			harness = await createScriptedSession({
				extensionPaths: loadOrder(set, AUTO, peerFirst),
				settings: compactable,
			});
			expect(await compactedAfterToolTurn(harness, 95_000, 10_000)).toContain(BOOT);
			expect(summarisations(harness)).toBe(0);
			expect(harness.errors).toEqual([]);
		});

		it("an extension calling ctx.compact() at every turn_end (Pi runs two compactions at once): both are pi-reset's resets, no 'another extension' notice, and /reset status names the newest", async () => {
			const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
			harness = await createScriptedSession({
				extensionPaths: loadOrder(set, EVERY_TURN, peerFirst),
				settings: compactable,
			});
			harness.script(
				reply(`first ${"long answer text ".repeat(400)}`),
				toolCall("read", { path: "missing.txt" }),
			);
			await harness.prompt("one");
			await harness.session.waitForIdle();
			await harness.prompt("two");
			await harness.session.waitForIdle();
			await vi.waitFor(() => expect(compactions(harness as ScriptedSession)).toHaveLength(3));
			expect(compactions(harness).every(isResetCompaction)).toBe(true);
			expect(resetNotices(stderr).filter((line) => line.includes("another extension"))).toEqual([]);
			const details = compactions(harness).at(-1)?.details as
				| Record<string, { windowId?: string }>
				| undefined;
			const newest = details?.["pi-reset"];
			const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
			await harness.prompt("/reset status");
			expect(log.mock.calls.map((call) => String(call[0])).join("\n")).toContain(
				`Window: ${newest?.windowId}`,
			);
			expect(summarisations(harness)).toBe(0);
			expect(harness.errors).toEqual([]);
		});
	});

	describe.each([
		["before", true],
		["after", false],
	] as const)(
		"an extension that compacts at a boundary (turn_end draft), loaded %s pi-reset",
		(_where, peerFirst) => {
			it("its compaction opens a new window for pi-reset too: warned again there, and the window a reload reads", async () => {
				harness = await createScriptedSession({
					extensionPaths: loadOrder(set, BOUNDARY, peerFirst),
					settings: compactable,
				});
				const near = { totalTokens: 100_000, input: 100_000 };
				const over = { totalTokens: 105_000, input: 105_000 };
				harness.setUsage((m) => (m.stopReason === "stop" ? near : undefined));
				harness.script(reply("first"), reply("warned"), reply("over"), reply("new one"), reply("new two"));
				await harness.prompt("one");
				await harness.prompt("two");
				expect(text(harness.requests.at(-1))).toContain(WARNING);
				harness.setUsage((m) => (m.stopReason === "stop" ? over : undefined));
				await harness.prompt("three");
				harness.setUsage((m) => (m.stopReason === "stop" ? near : undefined));
				await harness.prompt("four");
				expect(text(harness.requests.at(-1))).toContain(BOUNDARY_SUMMARY);
				await harness.prompt("five");
				expect(text(harness.requests.at(-1))).toContain(WARNING);
				const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
				await harness.prompt("/reset status");
				const live = log.mock.calls.map((call) => String(call[0])).find((line) => line.includes("Window: "));
				log.mockClear();
				await harness.reload();
				await harness.prompt("/reset status");
				const reloaded = log.mock.calls
					.map((call) => String(call[0]))
					.find((line) => line.includes("Window: "));
				expect(live?.split("\n")[0]).toBe(reloaded?.split("\n")[0]);
				expect(harness.errors).toEqual([]);
			});
		},
	);
});

/** A step that calls goal_complete with the goal id the model was given. */
const completeGoal =
	(summary: string): DynamicStep =>
	(context) =>
		fauxAssistantMessage(
			[fauxToolCall("goal_complete", { goal_id: activeGoalId(context.messages) ?? "missing", summary })],
			{ stopReason: "toolUse" },
		);

describe.each([
	["first", true],
	["after our three", false],
] as const)("a goal run crossing Pi's threshold, a summarising extension loaded %s", (_where, peerFirst) => {
	it("at Pi's threshold pi-reset resets at the boundary: the goal run continues in the same goal id with its contract, and nobody bills a summary", async () => {
		harness = await createScriptedSession({
			extensionPaths: loadOrder(["pi-reset", "pi-goal", "pi-jscpd"], SUMMARY, peerFirst),
			settings: lowThreshold,
			responses: [
				reply("warmed up"),
				reply("OLD-ANSWER before the goal"),
				fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
				reply("Read the notes; the first half is done."),
				completeGoal("Both halves done; checked the notes file."),
			],
		});
		// The notes (9,000 tokens) push the window over Pi's threshold between the goal's turns; the turn
		// in progress fits in half the usable window, so the reset keeps it.
		writeFileSync(join(harness.cwd, "notes.txt"), `NOTES-CONTENT ${padding(9_000)}\n`);
		await harness.prompt("warm up");
		await harness.prompt(`an earlier question ${padding(11_000)}`);
		await harness.prompt("/goal Summarise the notes in two halves");
		await harness.session.waitForIdle();

		expect(harness.errors).toEqual([]);
		expect(harness.events.filter((e) => e.type === "session_before_compact")).toEqual([]);
		expect(summaryCalls(harness)).toBe(0);
		expect(harness.providerCalls).toBe(5);
		// Every compaction is pi-reset's. (Pi 1.3.0's faux provider counts new prompt text twice in its
		// usage, so there the window after the reset measures over the threshold again and is reset
		// again at its boundary, still with no compaction by Pi.)
		const resets = compactions(harness);
		expect(resets.length).toBeGreaterThanOrEqual(1);
		expect(resets.every(isResetCompaction)).toBe(true);
		const afterReset = harness.requests[3]?.messages ?? [];
		// The turn in progress is kept: the tool output is still there after the reset.
		expect(texts(afterReset).join("\n")).toContain("NOTES-CONTENT");
		expect(activeGoalId(afterReset)).toBe(activeGoalId(harness.requests[2]?.messages ?? []));
		const last = harness.requests[4]?.messages ?? [];
		expect(activeGoalId(last)).toBe(activeGoalId(afterReset));
		expect(countContaining(last, "(active)")).toBe(1);
	});
});

describe.each([
	["first", true],
	["after our three", false],
] as const)(
	"a goal turn ending over Pi's threshold, a summarising extension loaded %s",
	(_where, peerFirst) => {
		it("at Pi's threshold pi-reset resets at the boundary: the goal's continuation runs in the new window with the same goal id and one contract, and nobody bills a summary", async () => {
			harness = await createScriptedSession({
				extensionPaths: loadOrder(["pi-reset", "pi-goal", "pi-jscpd"], SUMMARY, peerFirst),
				settings: lowThreshold,
				responses: [
					// The goal's first answer ends its turn over the threshold (its output counts in its usage).
					reply(`First half written. ${padding(21_000)}`),
					reply("Second half written."),
				],
			});
			await harness.prompt("/goal Write the report in two halves");
			await harness.session.waitForIdle();

			expect(harness.errors).toEqual([]);
			expect(harness.events.filter((e) => e.type === "session_before_compact")).toEqual([]);
			expect(summaryCalls(harness)).toBe(0);
			// The continuation (the second request) is what is checked; later goal turns are not.
			expect(compactions(harness).map(isResetCompaction)).toEqual([true]);
			const [first, continuation] = harness.requests;
			expect(text(continuation)).toContain(BOOT);
			expect(activeGoalId(continuation?.messages ?? [])).toBe(activeGoalId(first?.messages ?? []));
			expect(countContaining(continuation?.messages ?? [], "(active)")).toBe(1);
		});
	},
);
