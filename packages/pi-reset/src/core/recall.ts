/**
 * `context_recall`, the pure part: finding an entry by reference and searching a branch's text
 * (tool outputs, the model's messages, handoffs and window-opening notes) with bounded output. No
 * model call. Only Pi's types are imported.
 */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { foreignWindowId } from "./compaction-peers.js";
import { cutText, sliceText } from "./cut.js";
import { describeCall, MAX_RECALL_CHARS } from "./masking.js";
import { BOOT_MESSAGE, contentText, HANDOFF_ENTRY, readHandoff, readResetDetails } from "./window.js";

/** The recall tool's name (its own answers are copies: a search skips them). */
export const RECALL_TOOL = "context_recall";

/** Longest query searched. */
export const MAX_QUERY_CHARS = 200;
/** Longest reference accepted. */
export const MAX_REF_CHARS = 128;
/** Most matches listed. */
export const MAX_MATCHES = 8;
/** Longest search answer. */
export const MAX_SEARCH_CHARS = 4000;
/** Longest recalled text (a tool output is returned whole up to this; stubs say so). */
export { MAX_RECALL_CHARS } from "./masking.js";

/** Characters shown before and after a match. */
const SNIPPET_BEFORE = 80;
const SNIPPET_AFTER = 200;

/** A searchable text of the branch. */
export interface RecallText {
	/** The entry's id (the reference `context_recall` takes). */
	readonly ref: string;
	/** What the text is, in plain words. */
	readonly what: string;
	/** The window it belongs to. */
	readonly windowId: string;
	/** The text. */
	readonly text: string;
}

/** Notes the calls of an assistant entry (a later call with a reused id names the later output). */
function noteCalls(entry: SessionEntry, names: Map<string, string>): void {
	if (entry.type !== "message" || entry.message.role !== "assistant") return;
	for (const block of entry.message.content) {
		if (block.type === "toolCall") names.set(block.id, describeCall(block.name, block.arguments));
	}
}

/** What an entry says, if it is searchable. */
function textOf(entry: SessionEntry, calls: Map<string, string>): { what: string; text: string } | undefined {
	if (entry.type === "message") {
		const message = entry.message;
		if (message.role === "toolResult") {
			// A recall answer repeats text found elsewhere: searching it would list old answers first.
			if (message.toolName === RECALL_TOOL) return undefined;
			const call = calls.get(message.toolCallId) ?? message.toolName;
			return {
				what: `output of ${call}${message.isError ? " (error)" : ""}`,
				text: contentText(message.content),
			};
		}
		if (message.role === "assistant") {
			const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
			return text ? { what: "your message", text } : undefined;
		}
		return undefined;
	}
	if (entry.type === "custom" && entry.customType === HANDOFF_ENTRY) {
		const handoff = readHandoff(entry.data);
		return handoff ? { what: "handoff", text: handoff.text } : undefined;
	}
	if (entry.type === "custom_message" && entry.customType === BOOT_MESSAGE)
		return { what: "window start note", text: contentText(entry.content) };
	if (entry.type === "compaction")
		return { what: readResetDetails(entry.details) ? "reset note" : "summary", text: entry.summary };
	return undefined;
}

/** The branch's searchable texts, oldest first, each with its window. O(branch); read per call. */
export function recallTexts(branch: readonly SessionEntry[], firstWindowId: string): RecallText[] {
	const calls = new Map<string, string>();
	const texts: RecallText[] = [];
	let windowId = firstWindowId;
	for (const entry of branch) {
		if (entry.type === "compaction")
			windowId = readResetDetails(entry.details)?.windowId ?? foreignWindowId(entry.id);
		noteCalls(entry, calls);
		const found = textOf(entry, calls);
		if (found?.text) texts.push({ ref: entry.id, windowId, ...found });
	}
	return texts;
}

/** A recall answer: text and, for a tool output, its original content blocks. */
export interface RecallAnswer {
	readonly text: string;
	/** Set when the answer is a tool output returned as it was. */
	readonly original?: readonly unknown[];
	/** Whether the answer is a refusal or a miss. */
	readonly miss?: boolean;
}

/** Checks a reference; an answer when it cannot be one. */
export function checkRef(ref: string): RecallAnswer | undefined {
	if (ref.length === 0) return { text: "The reference is empty.", miss: true };
	if (ref.length > MAX_REF_CHARS)
		return {
			text: `That is not a reference (${ref.length} characters; references are short, like the ref in a hidden-output note).`,
			miss: true,
		};
	return undefined;
}

/** The answer for a reference that names nothing in this session. */
export function unknownRef(ref: string): RecallAnswer {
	return {
		text: `No output or message with ref ${JSON.stringify(ref)} in this session. Use the ref from a hidden-output note or a search result, or search with query.`,
		miss: true,
	};
}

/** Whole text of an entry found by reference, bounded. */
export function recallText(found: RecallText): RecallAnswer {
	const text =
		found.text.length <= MAX_RECALL_CHARS
			? found.text
			: `${cutText(found.text, MAX_RECALL_CHARS)}\n[… ${found.text.length - MAX_RECALL_CHARS} more characters are in the session file]`;
	return { text: `${found.what} (window ${found.windowId}):\n${text}` };
}

function oneLine(text: string): string {
	return text.replace(/\s+/g, " ");
}

/** A snippet around the first match. */
function snippet(text: string, at: number, length: number): string {
	const start = Math.max(0, at - SNIPPET_BEFORE);
	const end = Math.min(text.length, at + length + SNIPPET_AFTER);
	return `${start > 0 ? "…" : ""}${oneLine(sliceText(text, start, end))}${end < text.length ? "…" : ""}`;
}

/**
 * Searches texts for `query` (literal, case-insensitive: no pattern syntax), newest first, with at
 * most {@link MAX_MATCHES} matches in at most {@link MAX_SEARCH_CHARS} characters.
 */
export function searchTexts(texts: readonly RecallText[], rawQuery: string): RecallAnswer {
	const query = rawQuery.trim();
	if (!query) return { text: "The query is empty: give a word or phrase to look for.", miss: true };
	if (query.length > MAX_QUERY_CHARS)
		return {
			text: `The query is ${query.length} characters; search with at most ${MAX_QUERY_CHARS} (a distinctive word or phrase).`,
			miss: true,
		};
	// Case-insensitive by simple case folding (the `iu` flags), which keeps each character's length,
	// so the match index is an index into the text itself (toLowerCase can lengthen characters).
	const needle = new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "iu");
	const lines: string[] = [];
	let matches = 0;
	let used = 0;
	for (let i = texts.length - 1; i >= 0; i--) {
		const found = texts[i] as RecallText;
		const at = found.text.search(needle);
		if (at < 0) continue;
		matches++;
		if (lines.length >= MAX_MATCHES) continue;
		const line = `- ref ${found.ref} · window ${found.windowId} · ${found.what} (${found.text.length} characters): ${snippet(found.text, at, query.length)}`;
		const bounded = cutText(line, 600);
		if (used + bounded.length > MAX_SEARCH_CHARS) continue;
		lines.push(bounded);
		used += bounded.length + 1;
	}
	if (matches === 0)
		return {
			text: `No match for ${JSON.stringify(query)} in this session's earlier output, messages or handoffs.`,
			miss: true,
		};
	const more = matches > lines.length ? ` (showing the newest ${lines.length})` : "";
	return {
		text: [
			`${matches} match${matches === 1 ? "" : "es"} for ${JSON.stringify(query)}, newest first${more}. context_recall with a ref returns the whole text.`,
			...lines,
		].join("\n"),
	};
}
