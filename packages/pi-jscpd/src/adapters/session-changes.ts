/**
 * The one owner of a runtime's {@link MutationState}: every change to the session's changed files
 * and acknowledgements goes through here (write/edit results, outside changes, deliveries, resets,
 * branch replay). Others read it through {@link SessionChanges.view}.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { type AckRecord, type EntryLookup, lostAtReset } from "../core/deliveries.js";
import { MutationState, type ReplayEntry, replayBranch } from "../core/mutations.js";
import { OUTSIDE_CHANGES_ENTRY, outsideChangesData } from "../core/outside-entries.js";
import { FINDINGS_MESSAGE } from "../core/presentation.js";
import { projectPathOf } from "./paths.js";
import type { Detection } from "./worktree.js";

/** What the owner is told. */
export interface ChangeListeners {
	/** A new mutation generation (the scheduler). */
	readonly markMutation: () => void;
	/** A path recorded through a built-in tool (the outside probe does not count it twice). */
	readonly noteRecorded: (path: string) => void;
	/** Paths a move of the work tree brought in (the baseline rebases them). */
	readonly noteMoves: (moves: Detection["rebase"]) => void;
	/** Outside changes new to the session, to save in it (replayed by a new runtime). */
	readonly saveOutside: (paths: readonly string[]) => void;
}

/** See the module comment. */
export class SessionChanges {
	readonly #state = new MutationState();
	readonly #listeners: ChangeListeners;

	constructor(listeners: ChangeListeners) {
		this.#listeners = listeners;
	}

	/** Read-only view. */
	get view(): Pick<MutationState, "changed" | "isAcknowledged" | "acknowledgedCount"> {
		return this.#state;
	}

	/** Rebuilds from a branch (session start, tree navigation). */
	replay(
		entries: readonly ReplayEntry[],
		root: string,
		cwd: string,
	): { mutations: number; malformed: number } {
		return replayBranch(this.#state, entries, {
			findingsType: FINDINGS_MESSAGE,
			canonical: (path) => projectPathOf(root, cwd, path),
		});
	}

	/** A successful built-in write/edit of `path` (as the tool got it). */
	recordTool(root: string, cwd: string, path: string): void {
		const projectPath = projectPathOf(root, cwd, path);
		if (!projectPath) return;
		this.#state.record(projectPath);
		this.#listeners.noteRecorded(projectPath);
		this.#listeners.markMutation();
	}

	/**
	 * What an outside-change probe found: changed paths are the session's (`newGeneration` unless a
	 * running check covers them); paths a checkout, pull, reset or stash pop brought in go to the baseline.
	 */
	recordOutside(found: Detection, newGeneration: boolean): void {
		this.#listeners.noteMoves(found.rebase);
		if (found.outside.length === 0 && !found.renamed) return;
		// Saved only when the set grows: O(new paths), never an entry per settle.
		const fresh = found.outside.filter((path) => !this.#state.changed.has(path));
		for (const path of found.outside) this.#state.record(path);
		if (fresh.length > 0) this.#listeners.saveOutside(fresh);
		if (newGeneration) this.#listeners.markMutation();
	}

	/** Findings were delivered to the model. */
	acknowledge(acks: readonly AckRecord[]): void {
		this.#state.acknowledge(acks);
	}

	/**
	 * A reset dropped deliveries the model never saw: withdraws them, except those `stays` keeps (a
	 * finding the user dismissed since is not delivered again); returns how many. Throws on a stale ctx.
	 */
	withdrawLost(sessionManager: EntryLookup, entryId: string, stays: (identity: string) => boolean): number {
		const lost = lostAtReset(sessionManager, entryId, FINDINGS_MESSAGE).filter((ack) => !stays(ack.identity));
		return this.#state.unacknowledge(lost);
	}
}

/**
 * Saves outside changes in the session so a new runtime replays them. A failed append (a stale
 * runtime after replacement) only loses the record; this runtime still counts the paths.
 */
export function saveOutsideChanges(pi: Pick<ExtensionAPI, "appendEntry">, paths: readonly string[]): void {
	try {
		for (const data of outsideChangesData(paths)) pi.appendEntry(OUTSIDE_CHANGES_ENTRY, data);
	} catch {
		// See above.
	}
}
