/**
 * Rules for compactions that other extensions answer. Pi asks every `session_before_compact` handler
 * in load order and keeps the last answer; no handler sees an earlier one (docs/coexistence.md,
 * "Compaction extensions"). Pure: state in, facts out.
 */
import type { CommittedWindow, ResetState, WindowState } from "./state.js";

/** The id of a window opened by a compaction that is not pi-reset's (read the same way on restore). */
export function foreignWindowId(entryId: string): string {
	return `x-${entryId.slice(0, 8)}`;
}

/**
 * A compaction that is not pi-reset's (another extension's summary, or Pi's own while off) still
 * starts a new context: the same window id a restore reads from the branch, the same reset count
 * (only pi-reset's compactions count), and no checkpoint warning given yet. Without this the
 * window kept its `warned` mark and the compacted context was never warned before its next compaction.
 */
export function foreignWindow(state: ResetState, entryId: string): WindowState {
	return { id: foreignWindowId(entryId), resets: state.window.resets, warned: false };
}

/**
 * Whether an idle `/reset` may open its window at once through Pi's compaction. Pi asks every
 * extension's `session_before_compact`, so a summarising extension loaded after pi-reset would make
 * (and bill) its summarisation request for a compaction pi-reset only started to draw the reset
 * early, and pi-reset would then reset again at the next message anyway. Once such an answer was
 * seen, the idle reset waits for the next message instead (the model's requests are the same).
 */
export function idleResetMayCompact(state: ResetState): boolean {
	return !state.othersAnswerCompactions;
}

/**
 * A pi-reset compaction in the branch is the live window, also when it is not the one pi-reset
 * awaits: an extension that calls `ctx.compact()` twice (at every `turn_end`: the tool turn and the
 * aborted turn after it) makes Pi run two compactions at once, and pi-reset answers both.
 */
export function ownWindow(found: CommittedWindow, resets: number | undefined): WindowState {
	return { id: found.windowId, resets: resets ?? 0, warned: false };
}
