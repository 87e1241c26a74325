/**
 * Rule "a cut never splits a character": a bound on text counts UTF-16 units, and a cut between the
 * two halves of a surrogate pair would leave a lone surrogate that providers reject.
 */
import { describe, expect, it } from "vitest";
import { cutText, cutTextEnd, hasLoneSurrogate, sliceText } from "../src/index.js";

const EMOJI = "😀"; // two UTF-16 units
const CJK_EXTENSION_B = "𠀀"; // U+20000, two UTF-16 units
const CJK = "漢字"; // one unit each

describe("cutText", () => {
	it("keeps text that fits, whole", () => {
		expect(cutText("abc", 3)).toBe("abc");
		expect(cutText(EMOJI, 2)).toBe(EMOJI);
		expect(cutText("", 0)).toBe("");
	});

	it("cuts plain text at the bound", () => {
		expect(cutText("abcdef", 4)).toBe("abcd");
		expect(cutText(`${CJK}${CJK}`, 3)).toBe("漢字漢");
	});

	it("an emoji at the bound is left out whole, never halved", () => {
		const text = `a${EMOJI}b`; // units: a, hi, lo, b
		expect(cutText(text, 2)).toBe("a");
		expect(cutText(text, 3)).toBe(`a${EMOJI}`);
		expect(hasLoneSurrogate(cutText(text, 2))).toBe(false);
	});

	it("a CJK extension character at the bound is left out whole", () => {
		const text = `${CJK}${CJK_EXTENSION_B}${CJK}`;
		expect(cutText(text, 3)).toBe(CJK);
		expect(cutText(text, 4)).toBe(`${CJK}${CJK_EXTENSION_B}`);
	});

	it("every bound over a text of emoji gives well-formed text", () => {
		const text = `x${EMOJI.repeat(20)}${CJK_EXTENSION_B.repeat(5)}`;
		for (let max = 0; max <= text.length + 1; max++) {
			const cut = cutText(text, max);
			expect(cut.length).toBeLessThanOrEqual(max);
			expect(cut.length).toBeGreaterThanOrEqual(Math.min(text.length, max) - 1);
			expect(text.startsWith(cut)).toBe(true);
			expect(hasLoneSurrogate(cut)).toBe(false);
		}
	});

	it("a bound of zero or less gives empty text", () => {
		expect(cutText(EMOJI, 0)).toBe("");
		expect(cutText("abc", -1)).toBe("");
	});
});

describe("cutTextEnd", () => {
	it("keeps the last units, the emoji at the bound left out whole", () => {
		expect(cutTextEnd("abcdef", 3)).toBe("def");
		expect(cutTextEnd(`a${EMOJI}b`, 2)).toBe("b");
		expect(cutTextEnd(`a${EMOJI}b`, 3)).toBe(`${EMOJI}b`);
		expect(cutTextEnd("abc", 5)).toBe("abc");
	});

	it("every bound over a text of emoji gives well-formed text", () => {
		const text = `${CJK_EXTENSION_B.repeat(5)}${EMOJI.repeat(20)}y`;
		for (let max = 0; max <= text.length + 1; max++) {
			const cut = cutTextEnd(text, max);
			expect(cut.length).toBeLessThanOrEqual(max);
			expect(text.endsWith(cut)).toBe(true);
			expect(hasLoneSurrogate(cut)).toBe(false);
		}
	});
});

describe("sliceText", () => {
	it("is slice for plain text, negative indexes included", () => {
		expect(sliceText("abcdef", 1, 4)).toBe("bcd");
		expect(sliceText("abcdef", -3)).toBe("def");
		expect(sliceText("abcdef", 4, 2)).toBe("");
	});

	it("a start or an end inside a pair moves inwards", () => {
		const text = `${EMOJI}ab${EMOJI}`; // hi lo a b hi lo
		expect(sliceText(text, 1, 4)).toBe("ab"); // start after the first pair, end before the second
		expect(sliceText(text, 0, 6)).toBe(text);
		expect(sliceText(text, 1, 2)).toBe("");
	});

	it("every window over emoji and CJK gives well-formed text", () => {
		const text = `${EMOJI}${CJK}${CJK_EXTENSION_B}a${EMOJI}`;
		for (let start = 0; start <= text.length; start++)
			for (let end = start; end <= text.length; end++) {
				const part = sliceText(text, start, end);
				expect(part.length).toBeLessThanOrEqual(end - start);
				expect(text.includes(part)).toBe(true);
				expect(hasLoneSurrogate(part)).toBe(false);
			}
	});
});

describe("hasLoneSurrogate", () => {
	it("finds a lone high or low surrogate, not a pair", () => {
		expect(hasLoneSurrogate(`a${EMOJI}b${CJK}`)).toBe(false);
		expect(hasLoneSurrogate(EMOJI.slice(0, 1))).toBe(true);
		expect(hasLoneSurrogate(`x${EMOJI.slice(1)}`)).toBe(true);
		expect(hasLoneSurrogate(`${EMOJI.slice(0, 1)}x`)).toBe(true);
	});
});
