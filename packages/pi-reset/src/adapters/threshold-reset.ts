/**
 * The reset Pi's threshold compaction would have drawn, as a boundary draft (core/threshold.ts says
 * why at the boundary): the boot text in the compaction summary with the user's latest request, the
 * digest and any pending handoff, and the turn in progress kept when the window ends in tool
 * results (compaction.ts keeps it the same way). Also here: the watch that notices an answer over
 * Pi's threshold from the window meter.
 */
import {
	type CompactionEntryDraft,
	type ExtensionContext,
	estimateTokens,
	type SessionEntry,
} from "@earendil-works/pi-coding-agent";
import type { Proposal } from "../core/reducer.js";
import { bootText } from "../core/texts.js";
import { overPiThreshold } from "../core/threshold.js";
import { resetDetails, turnInProgress } from "../core/window.js";
import type { WorkReader } from "./carry.js";
import type { ResetControl } from "./control.js";

/** Pi's effective `compaction.reserveTokens` for the current model. */
export type ReserveTokens = (ctx: ExtensionContext) => number;

/** Keeps the turn in progress only if it fits comfortably: at most half of the usable window. */
export function keptTurn(
	branch: readonly SessionEntry[],
	ctx: ExtensionContext,
	reserveTokens: ReserveTokens,
): { firstKeptEntryId: string | undefined; dropped: boolean } {
	const turn = turnInProgress(branch);
	if (!turn) return { firstKeptEntryId: undefined, dropped: false };
	const window = ctx.model?.contextWindow ?? 0;
	if (window <= 0) return { firstKeptEntryId: turn.firstKeptEntryId, dropped: false };
	const budget = Math.max(0, (window - reserveTokens(ctx)) / 2);
	let tokens = 0;
	for (let i = turn.index; i < branch.length; i++) {
		const entry = branch[i] as SessionEntry;
		if (entry.type === "message") tokens += estimateTokens(entry.message);
	}
	return tokens <= budget
		? { firstKeptEntryId: turn.firstKeptEntryId, dropped: false }
		: { firstKeptEntryId: undefined, dropped: true };
}

/** What the threshold reset needs besides the proposal. */
export interface ThresholdDraftInputs {
	readonly work: WorkReader;
	readonly reserveTokens: ReserveTokens;
	readonly recallActive?: () => boolean;
	/** Where the window starts when no compaction marks it yet (a run serving an idle `/reset`). */
	readonly windowStart: string | null | undefined;
}

/** The threshold reset's compaction draft. Read once, at the reset (never on a hot event). */
export function thresholdDraft(
	proposal: Proposal,
	ctx: ExtensionContext,
	inputs: ThresholdDraftInputs,
): CompactionEntryDraft {
	const carried = inputs.work.read(ctx.sessionManager, inputs.windowStart);
	const keep = keptTurn(ctx.sessionManager.getBranch(), ctx, inputs.reserveTokens);
	return {
		type: "compaction",
		summary: bootText({
			windowId: proposal.windowId,
			cause: "threshold",
			handoff: proposal.handoff?.text,
			userRequest: carried.userRequest,
			earlierRequests: carried.earlierRequests,
			digest: carried.digest,
			kept: keep.firstKeptEntryId ? "turn" : "nothing",
			droppedTurn: keep.dropped,
			recallUnavailable: inputs.recallActive?.() === false,
		}),
		firstKeptEntryId: keep.firstKeptEntryId ?? null,
		details: resetDetails(proposal.windowId, proposal.resets, "threshold"),
	};
}

/** What the watch reads besides the meter. */
export interface ThresholdWatchInputs {
	readonly reserveTokens: ReserveTokens;
	/** Pi's `compaction.enabled`. */
	readonly autoCompaction: () => boolean;
}

/**
 * Called with the window meter's estimate after every message (the answer's usage plus what came
 * after it, Pi's own measure): over Pi's threshold, the reset is due at this turn's boundary; an
 * answer whose own usage is under it again takes that back.
 */
export function createThresholdWatch(
	control: ResetControl,
	inputs: ThresholdWatchInputs,
): (contextTokens: number | undefined, ctx: ExtensionContext) => void {
	return (contextTokens, ctx) => {
		const state = control.state;
		if (!state.enabled || state.proposal) return;
		const over = overPiThreshold({
			autoCompaction: inputs.autoCompaction(),
			contextTokens,
			contextWindow: ctx.model?.contextWindow ?? 0,
			reserveTokens: inputs.reserveTokens(ctx),
		});
		// Dispatched only on a change: due when over, no longer due when an answer measured it under.
		if (over !== state.thresholdDue) control.dispatch({ type: "threshold", over }, ctx);
	};
}
