/**
 * Bounded walks over a Pi session from its leaf back towards the root.
 *
 * Handlers that need "what happened recently" (the newest answer, the entries of the current run,
 * the compaction a boundary just committed) walk back from the leaf and stop early, instead of
 * reading `getBranch()` (a copy of the whole branch, O(session) per call). Only the part of the
 * session manager a walk reads is required, so a stub or Pi's read-only manager both work.
 */

/** The fields of a session entry a walk follows. */
export interface WalkableEntry {
	/** The entry's id. */
	readonly id: string;
	/** Its parent on the branch (`null` or absent at the root). */
	readonly parentId?: string | null;
}

/** The part of Pi's session manager a walk reads (`ctx.sessionManager` satisfies it). */
export interface EntryLookup<E extends WalkableEntry = WalkableEntry> {
	/** Id of the current leaf, `null` in an empty session. */
	getLeafId(): string | null;
	/** One entry by id. */
	getEntry(id: string): E | undefined;
}

/** Options of {@link walkBackFromLeaf}. */
export interface WalkOptions {
	/** Most entries to visit (default: no limit; stop early by breaking out of the loop). */
	readonly limit?: number;
	/** Start from this entry instead of the leaf. */
	readonly from?: string | null;
}

/**
 * Entries from the leaf (or `from`) back towards the root, newest first. Lazy: each step is one
 * `getEntry`, so breaking out early costs only the entries visited.
 *
 * @example
 * for (const entry of walkBackFromLeaf(ctx.sessionManager)) {
 * 	if (entry.type === "compaction") break; // the window starts here
 * }
 */
export function* walkBackFromLeaf<E extends WalkableEntry>(
	session: EntryLookup<E>,
	options: WalkOptions = {},
): Generator<E> {
	const limit = options.limit ?? Number.POSITIVE_INFINITY;
	let id = options.from === undefined ? session.getLeafId() : options.from;
	for (let seen = 0; id && seen < limit; seen++) {
		const entry = session.getEntry(id);
		if (!entry) return;
		yield entry;
		id = entry.parentId ?? null;
	}
}

/**
 * Entries on the current path after `baseId`, oldest first: the entries of a run that started
 * when `baseId` was the leaf (`null`: every entry of the branch). Walks back at most `limit`
 * entries (default: no limit) and returns what it found when `baseId` is not reached.
 */
export function entriesSince<E extends WalkableEntry>(
	session: EntryLookup<E>,
	baseId: string | null,
	limit = Number.POSITIVE_INFINITY,
): E[] {
	const entries: E[] = [];
	for (const entry of walkBackFromLeaf(session, { limit })) {
		if (entry.id === baseId) break;
		entries.push(entry);
	}
	return entries.reverse();
}
