/**
 * Every reset carries the work: whoever asks for it (`new_context` with or without a handoff,
 * `/reset` idle or busy), the new window gets the user's latest request and the mechanical digest
 * of the closing window, read from the session when the reset is proposed (resets Pi starts read
 * the same from Pi's compaction preparation, compaction.ts). `/reset --fresh` carries neither.
 *
 * Read at a reset only, never on a hot event: the request lookup walks back over the entries added
 * since the last lookup (last-request.ts), the digest over the closing window's entries.
 */
import type { ExtensionContext, SessionEntry } from "@earendil-works/pi-coding-agent";
import { walkBackFromLeaf } from "@pi-lifecycle/lifecycle-kit";
import { windowDigest } from "../core/digest.js";
import { type CarriedWork, NOTHING_CARRIED } from "../core/reducer.js";
import { bound } from "../core/texts.js";
import { LastUserRequest } from "./last-request.js";

type Session = ExtensionContext["sessionManager"];

/** Reads the work a reset carries. */
export interface WorkReader {
	/**
	 * The work of the window that ends at the leaf of `session`. `windowStart`: the entry the window
	 * starts after when no compaction marks it yet (a run serving an idle `/reset`).
	 */
	read(session: Session, windowStart?: string | null): CarriedWork;
}

/** The closing window's entries, oldest first: back from the leaf to its compaction (exclusive) or `start`. */
function windowEntries(session: Session, start: string | null | undefined): SessionEntry[] {
	const entries: SessionEntry[] = [];
	for (const entry of walkBackFromLeaf(session)) {
		if (entry.type === "compaction" || entry.id === start) break;
		entries.push(entry);
	}
	return entries.reverse();
}

/** Creates the reader of one runtime (its request lookup is cached per session). */
export function createWorkReader(maxRequestChars: () => number): WorkReader {
	const userRequest = new LastUserRequest();
	return {
		read(session, windowStart) {
			try {
				const request = userRequest.find(session);
				return {
					userRequest: request ? bound(request, maxRequestChars()) : undefined,
					digest: windowDigest(windowEntries(session, windowStart)),
				};
			} catch {
				// A reset never fails for want of its extras: it opens the window with the handoff alone.
				return NOTHING_CARRIED;
			}
		},
	};
}
