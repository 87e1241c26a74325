/**
 * The user's newest request on the current branch, quoted in a reset's boot message. In an
 * autonomous run (a goal, one long prompt) it lies far behind the leaf, and walking back to it at
 * every reset costs O(session). The answer is kept with the leaf it was found from: the next
 * lookup walks back only over the entries added since (O(new entries)) and stops at that leaf,
 * because the branch before it cannot change. A branch that no longer passes through it (tree
 * navigation, another session) is walked in full.
 */
import type { CompactionEntry, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { walkBackFromLeaf } from "@pi-lifecycle/lifecycle-kit";
import { bound, FRESH_START_LINE } from "../core/texts.js";
import { BOOT_MESSAGE, contentText, lastUserRequest, readResetDetails } from "../core/window.js";

type Session = Pick<ExtensionContext["sessionManager"], "getLeafId" | "getEntry" | "getSessionId">;

/** One runtime's cached lookup. */
export class LastUserRequest {
	#sessionId: string | undefined;
	#leafId: string | null = null;
	#text: string | undefined;

	/** The newest non-empty user request on the branch of `session`, or undefined. */
	find(session: Session): string | undefined {
		const sessionId = session.getSessionId();
		const stop = sessionId === this.#sessionId ? this.#leafId : null;
		let reachedStop = false;
		const sinceStop = function* () {
			for (const entry of walkBackFromLeaf(session)) {
				if (entry.id === stop) {
					reachedStop = true;
					return;
				}
				yield entry;
			}
		};
		const found = lastUserRequest(sinceStop());
		const text = found ?? (reachedStop ? this.#text : undefined);
		this.#sessionId = sessionId;
		this.#leafId = session.getLeafId();
		this.#text = text;
		return text;
	}
}

/** The walk reached the leaf an earlier walk started from: that walk's answer stands. */
const UNCHANGED = Symbol("unchanged");

/**
 * One runtime's cached {@link requestsBeforeResets}. In an autonomous run the newest request lies
 * far behind the leaf, and every reset would walk back to it (O(session)); the answer is kept with
 * the leaf it was read from, and the next reset walks back only over the entries added since.
 */
export class EarlierRequests {
	#key: string | undefined;
	#leafId: string | null = null;
	#found: string[] = [];

	/** The user's requests before the newest one (see {@link requestsBeforeResets}). */
	find(session: Session, budget: number): string[] {
		const key = `${session.getSessionId()}\n${budget}`;
		const stop = key === this.#key ? (this.#leafId ?? undefined) : undefined;
		const read = readRequestsBeforeResets(session, budget, stop);
		const found = read === UNCHANGED ? this.#found : read;
		this.#key = key;
		this.#leafId = session.getLeafId();
		this.#found = found;
		return found;
	}
}

/** Most earlier requests a new window carries. */
const MAX_EARLIER_REQUESTS = 4;
/** Least room (characters) worth quoting one more earlier request in. */
const MIN_EARLIER_CHARS = 200;

/**
 * Rule requestsBeforeResets: the user's requests before the newest one, each from a window before
 * a pi-reset reset (newest first). After an idle `/reset` the user's next message ("continue") is
 * the newest request of the next window; without these, a second `/reset` and "continue" would
 * carry "continue" alone and the task would be lost. Windows the model opened with no user message
 * in them (an autonomous run) are read past to the newest request, so the chain is the same as in
 * the window that run started in. Within one window only its newest request counts; a
 * `/reset --fresh` or another extension's compaction ends the chain. At most
 * {@link MAX_EARLIER_REQUESTS}, within `budget` characters in all. Walks back to the newest request
 * and the windows before it up to the requests found (read at a reset only).
 */
export function requestsBeforeResets(
	session: Pick<ExtensionContext["sessionManager"], "getLeafId" | "getEntry">,
	budget: number,
): string[] {
	const read = readRequestsBeforeResets(session, budget, undefined);
	return read === UNCHANGED ? [] : read;
}

/**
 * {@link requestsBeforeResets}; with `stopAt` (the leaf an earlier walk started from) it returns
 * {@link UNCHANGED} when it reaches that entry with nothing read that could change the answer (no
 * request, no chain-ending reset, no window half read).
 */
function readRequestsBeforeResets(
	session: Pick<ExtensionContext["sessionManager"], "getLeafId" | "getEntry">,
	budget: number,
	stopAt: string | undefined,
): string[] | typeof UNCHANGED {
	const found: string[] = [];
	let used = 0;
	let newestSeen = false;
	const said = new Set<string>();
	/** A reset lies between the last request seen and the entries now read. */
	let crossed = false;
	let fresh = false;
	/** The compaction whose kept entries are read (they belong to the window it opened). */
	let opening: CompactionEntry | undefined;
	const cross = (compaction: CompactionEntry): boolean => {
		const ours = readResetDetails(compaction.details) !== undefined;
		if (!ours || fresh || compaction.summary.includes(FRESH_START_LINE)) return false;
		// Before the newest request is seen (an autonomous run: windows the model opened with no
		// user message in them), the chain starts where the newest request is.
		crossed = newestSeen;
		fresh = false;
		return true;
	};
	for (const entry of walkBackFromLeaf(session)) {
		if (entry.id === stopAt && !newestSeen && !fresh && !opening) return UNCHANGED;
		if (entry.type === "compaction") {
			if (opening) return found;
			if (entry.firstKeptEntryId && entry.firstKeptEntryId !== entry.id) opening = entry;
			else if (!cross(entry)) return found;
			continue;
		}
		if (entry.type === "custom_message" && entry.customType === BOOT_MESSAGE)
			fresh = contentText(entry.content).includes(FRESH_START_LINE);
		const text =
			entry.type === "message" && entry.message.role === "user"
				? contentText(entry.message.content).trim()
				: "";
		if (text && !newestSeen) {
			newestSeen = true;
			said.add(text);
		} else if (text && crossed) {
			crossed = false;
			// The same words again ("continue" after each reset) are quoted once.
			if (!said.has(text)) {
				said.add(text);
				// A long request is cut, not dropped: the task is what the chain is for.
				if (budget - used < MIN_EARLIER_CHARS || found.length >= MAX_EARLIER_REQUESTS) return found;
				const kept = bound(text, budget - used - 64);
				found.push(kept);
				used += kept.length;
			}
		}
		if (opening && entry.id === opening.firstKeptEntryId) {
			if (!cross(opening)) return found;
			opening = undefined;
		}
	}
	return found;
}
