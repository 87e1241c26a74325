/**
 * Bounded walks over the live session from its leaf backwards. Used at rare moments (a reset, a
 * confirmation) and always stopped early: hot handlers never rescan the branch.
 */
import type { ExtensionContext, SessionEntry } from "@earendil-works/pi-coding-agent";
import type { CommittedWindow } from "./reducer.js";
import { readResetDetails } from "./window.js";

type Walkable = Pick<ExtensionContext["sessionManager"], "getLeafEntry" | "getEntry">;

/** Entries from the leaf back towards the root, at most `limit` of them. */
export function* walkBack(
	sessionManager: Walkable,
	limit = Number.POSITIVE_INFINITY,
): Generator<SessionEntry> {
	let entry = sessionManager.getLeafEntry();
	let seen = 0;
	while (entry && seen < limit) {
		yield entry;
		seen++;
		entry = entry.parentId ? sessionManager.getEntry(entry.parentId) : undefined;
	}
}

/** Entries a freshly committed boundary can sit behind (other owners' drafts, queued messages). */
const CONFIRM_LIMIT = 256;

/** Finds the compaction entry that opened `windowId`, near the leaf. */
export function findCommitted(sessionManager: Walkable, windowId: string): CommittedWindow | undefined {
	for (const entry of walkBack(sessionManager, CONFIRM_LIMIT)) {
		if (entry.type !== "compaction") continue;
		const details = readResetDetails(entry.details);
		return details?.windowId === windowId ? { entryId: entry.id, windowId } : undefined;
	}
	return undefined;
}

/**
 * Entries appended after `baseLeafId` on the current path, oldest first (the entries of the run
 * that started at that leaf).
 */
export function entriesAfter(sessionManager: Walkable, baseLeafId: string | null): SessionEntry[] {
	const entries: SessionEntry[] = [];
	for (const entry of walkBack(sessionManager)) {
		if (entry.id === baseLeafId) break;
		entries.push(entry);
	}
	return entries.reverse();
}

/** How many context messages an entry contributes (compactions excluded: they open windows). */
export function projectedMessageCount(entry: SessionEntry): number {
	if (entry.type === "message") return entry.message.role === "system" ? 0 : 1;
	if (entry.type === "custom_message") return 1;
	if (entry.type === "branch_summary") return entry.summary ? 1 : 0;
	return 0;
}
