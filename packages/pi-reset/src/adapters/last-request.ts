/**
 * The user's newest request on the current branch, quoted in a reset's boot message. In an
 * autonomous run (a goal, one long prompt) it lies far behind the leaf, and walking back to it at
 * every reset costs O(session). The answer is kept with the leaf it was found from: the next
 * lookup walks back only over the entries added since (O(new entries)) and stops at that leaf,
 * because the branch before it cannot change. A branch that no longer passes through it (tree
 * navigation, another session) is walked in full.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { walkBackFromLeaf } from "@pi-lifecycle/lifecycle-kit";
import { lastUserRequest } from "../core/window.js";

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
