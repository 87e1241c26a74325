/**
 * Every reset carries the work: whoever asks for it (`new_context` with or without a handoff,
 * `/reset` idle or busy), the new window gets the user's latest request and the mechanical digest
 * of the closing window, read from the session when the reset is proposed (resets Pi starts read
 * the same from Pi's compaction preparation, compaction.ts). `/reset --fresh` carries neither.
 *
 * Read at a reset only, never on a hot event: the request lookup walks back over the entries added
 * since the last lookup (last-request.ts), the digest over the closing window's entries.
 */
import type { CompactionEntry, ExtensionContext, SessionEntry } from "@earendil-works/pi-coding-agent";
import { walkBackFromLeaf } from "@pi-lifecycle/lifecycle-kit";
import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import { DIGEST_BUDGET_CHARS, windowDigest } from "../core/digest.js";
import { type CarriedWork, NOTHING_CARRIED } from "../core/reducer.js";
import { bound, FRESH_START_LINE } from "../core/texts.js";
import { BOOT_MESSAGE, contentText, HANDOFF_ENTRY, readHandoff, readResetDetails } from "../core/window.js";
import { EarlierRequests, LastUserRequest } from "./last-request.js";
import { TOOL_NAME } from "./tool.js";

type Session = ExtensionContext["sessionManager"];

/** Reads the work a reset carries. */
export interface WorkReader {
	/**
	 * The work of the window that ends at the leaf of `session`. `windowStart`: the entry the window
	 * starts after when no compaction marks it yet (a run serving an idle `/reset`).
	 */
	read(session: Session, windowStart?: string | null): CarriedWork;
}

/** Most windows that did nothing a digest reads past (each reset in a row without work is one). */
const MAX_EMPTY_WINDOWS = 8;
/** Longest excerpt of an earlier window's handoff carried in a digest. */
const MAX_EARLIER_HANDOFF_CHARS = 1500;

/** The closing window's work: its entries (oldest first) and a handoff it was opened with but did not act on. */
interface WindowWork {
	readonly entries: SessionEntry[];
	readonly earlierHandoff: string | undefined;
}

/** An answer that did something: text, or a tool call other than `new_context` (which only ends the window). */
function didWork(entry: SessionEntry): boolean {
	if (entry.type !== "message" || entry.message.role !== "assistant") return false;
	return entry.message.content.some(
		(block) =>
			(block.type === "text" && block.text.trim() !== "") ||
			(block.type === "toolCall" && block.name !== TOOL_NAME),
	);
}

/**
 * The closing window's entries, back from the leaf to its compaction or `start`, with what the
 * compaction kept (Pi's own rule for a window: the entries after the compaction, and those from its
 * `firstKeptEntryId` on; a window an idle `/reset` opened keeps its run's first turn that way).
 *
 * Rule emptyWindowCarriesEarlierWork: a window that did nothing since it opened (no text and no
 * tool call but `new_context`: a second `/reset` in a row, `new_context` as the first call) has no
 * work of its own to carry, so the window before it is read too, with the handoff given there: a
 * reset in a row never loses the digest and the handoff the first one carried. A window
 * `/reset --fresh` opened, or another extension's compaction, is as far back as it reads.
 */
function windowWork(session: Session, start: string | null | undefined): WindowWork {
	const entries: SessionEntry[] = [];
	let earlierHandoff: string | undefined;
	let answered = false;
	let skipped = 0;
	let fresh = false;
	/** The compaction that opened the window being read, while its kept entries are read. */
	let opening: CompactionEntry | undefined;
	/** Whether the window before `opening` is read too (the window did nothing); else the walk ends. */
	const readsOn = (compaction: CompactionEntry): boolean => {
		const opensFresh = fresh || compaction.summary.includes(FRESH_START_LINE);
		if (answered || opensFresh || !readResetDetails(compaction.details) || skipped >= MAX_EMPTY_WINDOWS)
			return false;
		skipped++;
		fresh = false;
		return true;
	};
	for (const entry of walkBackFromLeaf(session)) {
		if (entry.id === start) break;
		if (entry.type === "compaction") {
			if (opening) break;
			// A compaction that keeps nothing names no entry, or itself.
			if (entry.firstKeptEntryId && entry.firstKeptEntryId !== entry.id) opening = entry;
			else if (readsOn(entry)) continue;
			else break;
			continue;
		}
		// `/reset --fresh` opened this window: the user asked to leave the earlier ones behind.
		if (entry.type === "custom_message" && entry.customType === BOOT_MESSAGE)
			fresh = contentText(entry.content).includes(FRESH_START_LINE);
		if (didWork(entry)) answered = true;
		if (
			skipped > 0 &&
			earlierHandoff === undefined &&
			entry.type === "custom" &&
			entry.customType === HANDOFF_ENTRY
		)
			earlierHandoff = readHandoff(entry.data)?.text;
		entries.push(entry);
		if (opening && entry.id === opening.firstKeptEntryId) {
			if (!readsOn(opening)) break;
			opening = undefined;
		}
	}
	return { entries: entries.reverse(), earlierHandoff };
}

/** The digest of the closing window, with the handoff of an earlier window it did not act on. */
function digestOf(work: WindowWork): string | undefined {
	const digest = windowDigest(work.entries);
	if (work.earlierHandoff === undefined) return digest;
	const handoff = `The handoff it opened with (not acted on yet):\n${bound(work.earlierHandoff, MAX_EARLIER_HANDOFF_CHARS)}`;
	const text = digest ? `${handoff}\n${digest}` : handoff;
	// Within the digest's own budget (README: at most 4,000 characters).
	return text.length <= DIGEST_BUDGET_CHARS ? text : `${cutText(text, DIGEST_BUDGET_CHARS - 1)}…`;
}

/** Creates the reader of one runtime (its request lookup is cached per session). */
export function createWorkReader(maxRequestChars: () => number): WorkReader {
	const userRequest = new LastUserRequest();
	const earlierRequests = new EarlierRequests();
	return {
		read(session, windowStart) {
			try {
				const request = userRequest.find(session);
				return {
					userRequest: request ? bound(request, maxRequestChars()) : undefined,
					earlierRequests: request ? earlierRequests.find(session, maxRequestChars()) : undefined,
					digest: digestOf(windowWork(session, windowStart)),
				};
			} catch {
				// A reset never fails for want of its extras: it opens the window with the handoff alone.
				return NOTHING_CARRIED;
			}
		},
	};
}
