/**
 * Committing a proposal: confirmed as Pi committed it, or given back when another extension's
 * compaction replaced it (pure, used by the reducer).
 */
import type { CommittedWindow, Proposal, ResetRequest, ResetState, Step, WindowState } from "./state.js";

/**
 * A compaction that did not reset (it failed, or another extension's compaction replaced ours):
 * what was folded into it is pending again, unless it was dropped meanwhile (a toggle bumps the
 * generation and tells the user) or a newer request took its place — a revived old request must
 * never overwrite a newer one.
 */
export function revive(
	state: ResetState,
	proposal: Proposal,
): { state: ResetState; requeued: ResetRequest | undefined } {
	const current = (request: ResetRequest | undefined) =>
		state.enabled && request?.generation === state.generation;
	const run = proposal.foldedRun;
	const revivedRun = state.nextRun === undefined && run && current(run.request) ? run : undefined;
	const folded = proposal.folded !== run?.request ? proposal.folded : undefined;
	const revived = state.request === undefined && current(folded) ? folded : undefined;
	return {
		state: {
			...state,
			proposal: undefined,
			request: revived ?? state.request,
			nextRun: revivedRun ?? state.nextRun,
		},
		requeued: revived ?? revivedRun?.request,
	};
}

export function commit(state: ResetState, found: CommittedWindow | undefined): Step {
	const proposal = state.proposal;
	if (!proposal) return { state, effect: { type: "none" } };
	if (!found || found.windowId !== proposal.windowId) {
		// Another extension's compaction replaced ours: a reset request folded into it was not served.
		const revived = proposal.kind === "compaction" ? revive(state, proposal) : undefined;
		return {
			state: revived?.state ?? { ...state, proposal: undefined },
			effect: { type: "commit-missing", proposal, requeued: revived?.requeued },
		};
	}
	const window: WindowState = { id: proposal.windowId, resets: proposal.resets, warned: false };
	// The boot text of the committed window carried this handoff: it is delivered.
	const handoff =
		proposal.handoff !== undefined && state.handoff === proposal.handoff ? undefined : state.handoff;
	return {
		state: { ...state, window, proposal: undefined, handoff },
		effect: { type: "announce", committed: found, proposal },
	};
}
