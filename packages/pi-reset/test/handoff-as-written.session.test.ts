/**
 * Audit a6k: handoffs and resets as they meet real text and other extensions. A cut never splits a
 * character; a code block in a handoff stays whole; a reset request folded into a compaction that
 * another extension's `session_before_compact` replaced is not lost, and the notice tells the truth.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { allText, outsideBoot, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
});

const compactable = { compaction: { enabled: true, keepRecentTokens: 1 } };
/** A high surrogate without its low half, or a low half without its high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Loaded after pi-reset: summarises every compaction its own way (Pi keeps the last result). */
const summariser: ExtensionFactory = (pi) => {
	pi.on("session_before_compact", (event) => ({
		compaction: {
			summary: "THIRD-PARTY SUMMARY",
			firstKeptEntryId: event.preparation.firstKeptEntryId,
			tokensBefore: event.preparation.tokensBefore,
		},
	}));
};

describe("cuts never split a character", () => {
	it("a handoff over the limit is cut without a lone surrogate reaching the model", async () => {
		harness = await startSession();
		harness.script(reply("old"), reply("new"));
		await harness.prompt("before");
		// 1 + 2 × 5000 units: the 8000-unit limit falls inside an emoji.
		await harness.prompt(`/reset x${"😀".repeat(5000)}`);
		await harness.prompt("go");
		const text = allText(harness.requests.at(-1));
		expect(text).toContain("more characters are in");
		expect(LONE_SURROGATE.test(text)).toBe(false);
	});

	it("the digest's excerpt of the last answer is cut without a lone surrogate", async () => {
		harness = await startSession({ settings: compactable });
		harness.script(reply(`a${"😀".repeat(1000)}`), reply("new"));
		await harness.prompt("first");
		await harness.session.compact();
		await harness.prompt("go");
		const text = allText(harness.requests.at(-1));
		expect(text).toContain("Its last answer:");
		expect(LONE_SURROGATE.test(text)).toBe(false);
	});
});

describe("a handoff as models write it", () => {
	it("a fenced code block stays whole: its lines are never section headings", async () => {
		harness = await startSession();
		harness.script(reply("old"));
		await harness.prompt("before");
		const block = ["```yaml", "goal: ship", "next: 3", "files: [a.ts]", "```"].join("\n");
		const handoff = [
			"## Goal",
			"Ship the config loader.",
			"## Done",
			"- parser written, tests pass (pnpm test); the config it reads:",
			block,
			"## Next steps",
			"- wire the CLI",
		].join("\n");
		harness.script(toolCall("new_context", { handoff }), reply("fresh"));
		await harness.prompt("task");
		const text = allText(harness.requests.at(-1));
		expect(text).toContain(block);
		expect(text).toMatch(/Next action \(start here\):\n- wire the CLI/);
		expect(text).toMatch(/Goal:\nShip the config loader\.\n/);
	});
});

describe("another extension's compaction replaces pi-reset's reset", () => {
	it("a /reset folded into it stays pending, the notice says the context was compacted, and the next message starts fresh with the handoff", async () => {
		const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
		harness = await startSession({ settings: compactable, extensions: [summariser] });
		harness.script(reply("one about OLD-TOPIC"), reply("two"));
		await harness.prompt("discuss OLD-TOPIC");
		await harness.prompt("/reset MY-HANDOFF");
		await harness.session.compact();
		const notices = stderr.mock.calls
			.map((call) => String(call[0]))
			.filter((text) => text.includes("pi-reset:"));
		expect(notices).toHaveLength(1);
		expect(notices[0]).toContain("another extension's compaction replaced");
		expect(notices[0]).toContain("/reset request is still pending");
		expect(notices[0]).not.toContain("History is unchanged");
		await harness.prompt("next task");
		const next = allText(harness.requests.at(-1));
		expect(next).toContain("MY-HANDOFF");
		expect(next).toContain("next task");
		expect(outsideBoot(next)).not.toContain("OLD-TOPIC");
		expect(harness.errors).toEqual([]);
	});
});
