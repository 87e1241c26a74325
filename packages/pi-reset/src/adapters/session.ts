/**
 * Bounded walks over the live session from its leaf backwards (the kit's `walkBackFromLeaf`).
 * Used at rare moments (a reset, a confirmation) and always stopped early: hot handlers never
 * rescan the branch.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { walkBackFromLeaf } from "@pi-lifecycle/lifecycle-kit";
import type { CommittedWindow } from "../core/reducer.js";
import { readResetDetails } from "../core/window.js";

type Walkable = Pick<ExtensionContext["sessionManager"], "getLeafId" | "getEntry">;

/** Entries a freshly committed boundary can sit behind (other owners' drafts, queued messages). */
const CONFIRM_LIMIT = 256;

/** Finds the compaction entry that opened `windowId`, near the leaf. */
export function findCommitted(sessionManager: Walkable, windowId: string): CommittedWindow | undefined {
	for (const entry of walkBackFromLeaf(sessionManager, { limit: CONFIRM_LIMIT })) {
		if (entry.type !== "compaction") continue;
		const details = readResetDetails(entry.details);
		return details?.windowId === windowId ? { entryId: entry.id, windowId } : undefined;
	}
	return undefined;
}
