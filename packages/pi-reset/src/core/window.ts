/**
 * Pure reads of session entries: what pi-reset persisted, which window a branch is in, the user's
 * most recent request, what a compaction keeps, and what a /tree summary may see.
 *
 * Only Pi's types are imported (erased at build time); a test checks this module stays pure.
 */

import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import { foreignWindowId } from "./compaction-peers.js";
import { INITIAL_WINDOW, type PendingHandoff, type WindowState } from "./reducer.js";
import { FRESH_START_LINE } from "./texts.js";

/** Key of pi-reset's data in a compaction entry's `details`. */
export const DETAILS_KEY = "pi-reset";
/** Custom entry recording `/reset on|off`. */
export const STATE_ENTRY = "pi-reset/state";
/** Hidden message that opens a window after an explicit reset. */
export const BOOT_MESSAGE = "pi-reset/boot";
/** Hidden checkpoint warning message. */
export const WARNING_MESSAGE = "pi-reset/warning";
/** Custom entry persisting a handoff when it is given (delivered by the next pi-reset compaction). */
export const HANDOFF_ENTRY = "pi-reset/handoff";
/** Longest handoff read back from a session. */
const MAX_SAVED_HANDOFF_CHARS = 20_000;

/** Reads a persisted handoff (never throws; undefined when malformed). */
export function readHandoff(data: unknown): PendingHandoff | undefined {
	const saved = record(data);
	if (!saved) return undefined;
	const { text, source, windowId } = saved;
	if (typeof text !== "string" || text.length === 0 || text.length > MAX_SAVED_HANDOFF_CHARS)
		return undefined;
	if (source !== "tool" && source !== "command") return undefined;
	if (typeof windowId !== "string" || windowId.length > MAX_WINDOW_ID_CHARS) return undefined;
	return { text, source, windowId };
}

/** What pi-reset stores in its compaction entries. */
export interface ResetDetails {
	readonly v: 1;
	/** The window the compaction opens. */
	readonly windowId: string;
	/** Resets on the branch including this one. */
	readonly resets: number;
	/** What caused it. */
	readonly cause: string;
}

function record(value: unknown): Record<string, unknown> | undefined {
	return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
}

/** Longest window id pi-reset accepts from a session (it mints ids like `w12-ab3k`). */
const MAX_WINDOW_ID_CHARS = 64;

/** Reads pi-reset's details from a compaction entry's `details` (never throws). */
export function readResetDetails(details: unknown): ResetDetails | undefined {
	const ours = record(record(details)?.[DETAILS_KEY]);
	if (!ours) return undefined;
	const { windowId, resets } = ours;
	if (typeof windowId !== "string" || windowId.length === 0 || windowId.length > MAX_WINDOW_ID_CHARS)
		return undefined;
	if (typeof resets !== "number" || !Number.isSafeInteger(resets) || resets < 0) return undefined;
	const cause = typeof ours.cause === "string" ? cutText(ours.cause, MAX_WINDOW_ID_CHARS) : "";
	return { v: 1, windowId, resets, cause };
}

/** Whether a compaction's `details` carry a pi-reset key that {@link readResetDetails} rejects. */
function malformedDetails(details: unknown): boolean {
	return record(details)?.[DETAILS_KEY] !== undefined && readResetDetails(details) === undefined;
}

/** Builds compaction details for a new window. */
export function resetDetails(windowId: string, resets: number, cause: string): Record<string, ResetDetails> {
	return { [DETAILS_KEY]: { v: 1, windowId, resets, cause } };
}

/** What a branch says about pi-reset. */
export interface Restored {
	/** The last `/reset on|off` on the branch, if any. */
	readonly enabled: boolean | undefined;
	/** The window the branch ends in. */
	readonly window: WindowState;
	/** pi-reset entries read on the way that were malformed and ignored. */
	readonly malformed: number;
	/** The newest handoff after the branch's last pi-reset compaction (not delivered yet). */
	readonly handoff: PendingHandoff | undefined;
}

/** Reads the window and switch state from a branch (root first). One backward pass. */
export function restoreFromBranch(branch: readonly SessionEntry[]): Restored {
	let enabled: boolean | undefined;
	let windowId: string | undefined;
	let resets: number | undefined;
	let warned = false;
	let malformed = 0;
	let handoff: PendingHandoff | undefined;
	let delivered = false;
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as SessionEntry;
		if (entry.type === "custom" && entry.customType === HANDOFF_ENTRY && !delivered && !handoff) {
			handoff = readHandoff(entry.data);
			if (!handoff) malformed++;
		} else if (entry.type === "custom" && entry.customType === STATE_ENTRY && enabled === undefined) {
			const data = record(entry.data);
			if (typeof data?.enabled === "boolean") enabled = data.enabled;
			else malformed++;
		} else if (
			entry.type === "custom_message" &&
			entry.customType === WARNING_MESSAGE &&
			windowId === undefined
		) {
			warned = true;
		} else if (entry.type === "compaction") {
			const ours = readResetDetails(entry.details);
			if (ours) delivered = true;
			if (!ours && malformedDetails(entry.details)) malformed++;
			if (windowId === undefined) windowId = ours ? ours.windowId : foreignWindowId(entry.id);
			if (ours && resets === undefined) resets = ours.resets;
		}
		if (enabled !== undefined && windowId !== undefined && resets !== undefined && delivered) break;
	}
	return {
		enabled,
		window: {
			id: windowId ?? INITIAL_WINDOW.id,
			resets: resets ?? 0,
			warned,
		},
		malformed,
		handoff,
	};
}

/**
 * The session's on/off switch: the newest `/reset on|off` anywhere in the session file, on any
 * branch. The switch holds for the session (README), so it is never read per branch: navigating
 * the tree to a point before `/reset off` must not turn pi-reset back on. O(entries), newest first;
 * read at session start only.
 */
export function sessionSwitch(entries: readonly SessionEntry[]): boolean | undefined {
	for (let i = entries.length - 1; i >= 0; i--) {
		const entry = entries[i] as SessionEntry;
		if (entry.type !== "custom" || entry.customType !== STATE_ENTRY) continue;
		const data = record(entry.data);
		if (typeof data?.enabled === "boolean") return data.enabled;
	}
	return undefined;
}

/**
 * Whether the session file holds a compaction another extension answered (Pi's `fromHook`, without
 * pi-reset's details). Read at session start, so `idleResetMayCompact` (compaction-peers.ts) holds across `/reload`
 * and resume: a new runtime would otherwise start one more compaction that extension bills. Another
 * extension's boundary-draft compaction has the same mark and counts too (erring towards waiting for
 * the next message, which costs nothing). O(entries).
 */
export function othersAnsweredIn(entries: readonly SessionEntry[]): boolean {
	return entries.some(
		(entry) => entry.type === "compaction" && entry.fromHook === true && !readResetDetails(entry.details),
	);
}

/** Text of a user message's content. */
export function contentText(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.map((block) => (record(block)?.type === "text" ? String(record(block)?.text ?? "") : ""))
		.filter((text) => text.length > 0)
		.join("\n");
}

/** The most recent user message text found walking back over entries (newest first). */
export function lastUserRequest(newestFirst: Iterable<SessionEntry>): string | undefined {
	for (const entry of sinceFreshStart(newestFirst)) {
		if (entry.type === "message" && entry.message.role === "user") {
			const text = contentText(entry.message.content).trim();
			if (text) return text;
		}
	}
	return undefined;
}

/**
 * Rule: a fresh start ends what is carried. The entries of a newest-first walk up to the opening of
 * the window a `/reset --fresh` opened (its summary or its boot note says so), the entries that
 * window's compaction kept included: a later reset quotes no request from before the fresh start,
 * also when the run that was going on then goes on in the fresh window.
 */
export function* sinceFreshStart(newestFirst: Iterable<SessionEntry>): Generator<SessionEntry> {
	let fresh = false;
	/** The first entry a fresh window's compaction kept: the walk ends after it. */
	let lastKept: string | undefined;
	for (const entry of newestFirst) {
		if (entry.type === "compaction") {
			const opensFresh = fresh || entry.summary.includes(FRESH_START_LINE);
			fresh = false;
			if (opensFresh) {
				// A compaction that keeps nothing names no entry, or itself.
				if (!entry.firstKeptEntryId || entry.firstKeptEntryId === entry.id) return;
				lastKept = entry.firstKeptEntryId;
			}
		} else if (entry.type === "custom_message" && entry.customType === BOOT_MESSAGE) {
			fresh = contentText(entry.content).includes(FRESH_START_LINE);
		}
		yield entry;
		if (entry.id === lastKept) return;
	}
}

/** Entries of `branch` from the newest back. */
export function* newestFirst(branch: readonly SessionEntry[]): Generator<SessionEntry> {
	for (let i = branch.length - 1; i >= 0; i--) yield branch[i] as SessionEntry;
}

/**
 * What a Pi-started compaction keeps. When the window ends in tool results (a threshold or
 * overflow compaction between turns of a run), the turn in progress is kept from its assistant
 * message so its tool calls and results stay paired. Otherwise nothing is kept.
 */
export function turnInProgress(
	branch: readonly SessionEntry[],
): { firstKeptEntryId: string; index: number } | undefined {
	const omitted = new Set<string>();
	let sawToolResult = false;
	for (let i = branch.length - 1; i >= 0; i--) {
		const entry = branch[i] as SessionEntry;
		if (entry.type === "compaction") return undefined;
		if (entry.type === "context_edit") {
			if (entry.replacement === null) omitted.add(entry.targetId);
			continue;
		}
		if (entry.type !== "message" || omitted.has(entry.id)) continue;
		const role = entry.message.role;
		if (role === "toolResult") {
			sawToolResult = true;
			continue;
		}
		if (role === "assistant" && sawToolResult) return { firstKeptEntryId: entry.id, index: i };
		return undefined;
	}
	return undefined;
}

/**
 * How many leading entries of a /tree summary span lie before a window boundary and must not be
 * summarised: everything before the newest compaction in the span, except what it kept.
 */
export function erasedPrefixLength(span: readonly SessionEntry[]): number {
	for (let i = span.length - 1; i >= 0; i--) {
		const entry = span[i] as SessionEntry;
		if (entry.type !== "compaction") continue;
		const kept = span.findIndex((candidate) => candidate.id === entry.firstKeptEntryId);
		return kept >= 0 && kept < i ? kept : i;
	}
	return 0;
}
