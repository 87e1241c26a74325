/**
 * User and model text placed into prompts is data, never instructions (pure). It is bounded, its
 * line breaks are normalised, `<`/`>` are escaped so it cannot open or close a tag such as
 * `</objective>`, and a line that could read as one of pi-goal's own contract lines (a `[pi-goal …]`
 * header, `Goal id: …`) is quoted with a leading `> ` (a real `>` inside the text is `&gt;`).
 */

import { cutText } from "@pi-lifecycle/lifecycle-kit/text";

/** Control characters other than tab and newline, and bidi overrides (removed). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g;
/** Line breaks other than `\n` (a model reads them as new lines too). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: normalising line breaks is the point.
const BREAKS = /\r\n?|[\u0085\u2028\u2029\u000b\u000c]/g;
/** Lines that could read as pi-goal's own text: a bracketed header, a goal id line, a tag. */
const LOOKS_OWN = /^\s*(?:\[|goal[\s_-]*id\b|pi-goal\b|&lt;)/i;

/** Bounds text to `max` characters (an ellipsis marks a cut). */
export function bound(text: string, max: number): string {
	return text.length > max ? `${cutText(text, Math.max(0, max - 1))}…` : text;
}

/** Quotes multi-line user text for a prompt block (see the module comment). */
export function quoteBlock(text: string, max: number): string {
	return bound(text, max)
		.replace(BREAKS, "\n")
		.replace(CONTROL, "")
		.replace(/</g, "&lt;")
		.replace(/>/g, "&gt;")
		.split("\n")
		.map((line) => (LOOKS_OWN.test(line) ? `> ${line}` : line))
		.join("\n");
}

/** One line of display text: line breaks become spaces, control characters go, bounded. */
export function oneLine(text: string, max: number): string {
	return bound(text.replace(BREAKS, " ").replace(/\n/g, " ").replace(CONTROL, "").trim(), max);
}

/** Quotes user or model text for one line of a prompt or tool result (no line breaks, bounded). */
export function quoteInline(text: string, max: number): string {
	return oneLine(text, max).replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
