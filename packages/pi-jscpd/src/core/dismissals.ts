/**
 * Findings the user dismissed as intended (pure). A dismissal is the user's decision: it is made
 * only from `/jscpd` (never from `jscpd_run`), recorded as one `pi-jscpd/dismissal` session entry
 * (so it survives reload and resume and follows the branch like every session entry), and keyed
 * by stable clone identities (identity.ts): an edit that changes the duplicated content makes a
 * new finding, which is reported again.
 */

import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import { copyCounts, covers, splitCopies } from "./copy-keys.js";

/** Custom entry type of a dismissal or its undo. */
export const DISMISSAL_ENTRY = "pi-jscpd/dismissal";

/** Most keys one entry may carry (a finding has at most two). */
const MAX_KEYS = 8;

/** The data of a `pi-jscpd/dismissal` entry. */
export interface DismissalData {
	/** `dismiss`, or `undismiss` (the undo). */
	readonly action: "dismiss" | "undismiss";
	/** The finding's clone identities. */
	readonly keys: readonly string[];
	/** Where it was, for people reading the session file (`path:start-end ≈ path:start-end`). */
	readonly where: string;
}

/** Narrows entry data to a dismissal (malformed entries are ignored and counted by the caller). */
export function isDismissalData(value: unknown): value is DismissalData {
	const data = value as DismissalData | null;
	return (
		typeof data === "object" &&
		data !== null &&
		(data.action === "dismiss" || data.action === "undismiss") &&
		Array.isArray(data.keys) &&
		data.keys.length > 0 &&
		data.keys.length <= MAX_KEYS &&
		data.keys.every((key) => typeof key === "string" && key.length > 0 && key.length <= 128) &&
		typeof data.where === "string"
	);
}

/**
 * Applies one dismissal or undo to the set of dismissed keys (pure: returns a new set). An undo
 * removes every dismissed key of the same content that covers a key (copy-keys.ts): a dismissal
 * made when a file held two copies is undone by undoing the one copy left.
 */
export function applyDismissal(dismissed: ReadonlySet<string>, data: DismissalData): ReadonlySet<string> {
	const next = new Set(dismissed);
	for (const key of data.keys) {
		if (data.action === "dismiss") {
			next.add(key);
			continue;
		}
		const { base, copies } = splitCopies(key);
		for (const other of next) {
			const held = splitCopies(other);
			if (held.base === base && held.copies >= copies) next.delete(other);
		}
	}
	return next;
}

/** The entry fields {@link replayDismissals} reads. */
export interface DismissalEntry {
	readonly type: string;
	readonly customType?: string;
	readonly data?: unknown;
}

/**
 * Rebuilds the dismissed keys from a branch, in order; `malformed` counts unreadable entries.
 * `saved` lists where each dismissal still in force was (what the user can undo once a check finds
 * the finding again: findings themselves are not saved).
 */
export function replayDismissals(entries: readonly DismissalEntry[]): {
	readonly dismissed: ReadonlySet<string>;
	readonly malformed: number;
	readonly saved: readonly string[];
	/** Where each dismissal was, by its keys joined with a space (for {@link savedDismissals}). */
	readonly where: ReadonlyMap<string, string>;
} {
	let dismissed: ReadonlySet<string> = new Set();
	let malformed = 0;
	const where = new Map<string, string>();
	for (const entry of entries) {
		if (entry.type !== "custom" || entry.customType !== DISMISSAL_ENTRY) continue;
		if (!isDismissalData(entry.data)) {
			malformed++;
			continue;
		}
		dismissed = applyDismissal(dismissed, entry.data);
		const key = entry.data.keys.join(" ");
		if (entry.data.action === "dismiss") where.set(key, cutText(entry.data.where, 400));
		else where.delete(key);
	}
	return { dismissed, malformed, saved: savedDismissals(dismissed, where), where };
}

/** Where each dismissal still in force was (`where`: by keys joined with a space). */
export function savedDismissals(
	dismissed: ReadonlySet<string>,
	where: ReadonlyMap<string, string>,
): string[] {
	return [...where].filter(([key]) => isDismissed(dismissed, key.split(" "))).map(([, text]) => text);
}

/**
 * Whether a finding with these keys is dismissed (any of them): that key, or the same content
 * with at least as many copies (copy-keys.ts). O(dismissed keys): the list is the user's own.
 */
export function isDismissed(dismissed: ReadonlySet<string>, keys: readonly string[]): boolean {
	if (keys.some((key) => dismissed.has(key))) return true;
	const counts = copyCounts(dismissed);
	return keys.some((key) => covers(counts, key));
}
