/** context_recall's pure part (core/recall.ts): bounded search, hostile queries and references. */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import {
	checkRef,
	MAX_MATCHES,
	MAX_QUERY_CHARS,
	MAX_SEARCH_CHARS,
	type RecallText,
	recallTexts,
	searchTexts,
	unknownRef,
} from "../src/core/recall.js";

/** A high surrogate without its low half, or a low half without its high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const texts: RecallText[] = Array.from({ length: 40 }, (_, i) => ({
	ref: `r${i}`,
	what: "output of read a.ts",
	windowId: `w${Math.floor(i / 10)}`,
	text: `line ${i}: the value of x.*(y) is ${i} ${"z".repeat(3000)} NEEDLE end`,
}));

describe("recall search rules", () => {
	it("searches literally: regex-special characters are plain text", () => {
		const answer = searchTexts(texts, "x.*(y)");
		expect(answer.miss).toBeUndefined();
		expect(answer.text).toContain("40 matches");
		expect(searchTexts(texts, "[").miss).toBe(true);
		expect(searchTexts(texts, "(?<=").text).toContain("No match");
	});

	it("bounded output: at most MAX_MATCHES matches, newest first, within MAX_SEARCH_CHARS", () => {
		const answer = searchTexts(texts, "needle");
		const lines = answer.text.split("\n").slice(1);
		expect(lines.length).toBeLessThanOrEqual(MAX_MATCHES);
		expect(lines[0]).toContain("ref r39");
		expect(answer.text.length).toBeLessThanOrEqual(MAX_SEARCH_CHARS + 300);
		expect(answer.text).toContain("showing the newest");
	});

	it("a huge query gets a clear answer, not a search", () => {
		const answer = searchTexts(texts, "q".repeat(100_000));
		expect(answer.miss).toBe(true);
		expect(answer.text).toContain(`at most ${MAX_QUERY_CHARS}`);
		expect(answer.text.length).toBeLessThan(200);
		expect(searchTexts(texts, "   ").text).toContain("empty");
	});

	it("a reference that cannot be one, or names nothing, gets a clear answer", () => {
		expect(checkRef("r".repeat(10_000))?.text).toContain("not a reference");
		expect(checkRef("")?.miss).toBe(true);
		expect(checkRef("ab12cd34")).toBeUndefined();
		expect(unknownRef("nope").text).toContain('No output or message with ref "nope"');
	});

	it("a reused tool call id: each output is named after the call of its own turn", () => {
		const entries = ["a.ts", "b.ts"].flatMap((path, i) => [
			{
				type: "message",
				id: `c${i}`,
				message: {
					role: "assistant",
					content: [{ type: "toolCall", id: "call_0", name: "read", arguments: { path } }],
				},
			},
			{
				type: "message",
				id: `o${i}`,
				message: {
					role: "toolResult",
					toolCallId: "call_0",
					toolName: "read",
					content: [{ type: "text", text: `text of ${path}` }],
				},
			},
		]) as unknown as SessionEntry[];
		const outputs = recallTexts(entries, "w0").filter((text) => text.ref.startsWith("o"));
		expect(outputs.map((text) => text.what)).toEqual(["output of read a.ts", "output of read b.ts"]);
	});

	it("searches literally whatever the text: a match after characters whose lower case is longer is shown", () => {
		const text = `${"İ".repeat(300)} the NEEDLE here`;
		const answer = searchTexts(
			[{ ref: "u1", what: "output of read tr.txt", windowId: "w0", text }],
			"needle",
		);
		expect(answer.text).toContain("1 match");
		expect(answer.text).toContain("the NEEDLE here");
	});

	it("a search never splits a character: snippets cut inside emoji leave no lone surrogate", () => {
		// The snippet starts 80 units before the match and ends 200 after it: try both parities.
		for (const lead of ["", "a"]) {
			const text = `${"😀".repeat(100)}${lead}NEEDLE${lead}${"😀".repeat(150)}`;
			const answer = searchTexts(
				[{ ref: "e1", what: `output of read ${"😀".repeat(50)}`, windowId: "w0", text }],
				"needle",
			);
			expect(answer.text).toContain("NEEDLE");
			expect(answer.text).not.toMatch(LONE_SURROGATE);
		}
	});
});
