/**
 * Resets at Pi's threshold, taken at the turn's boundary instead of in Pi's compaction.
 *
 * Pi compacts an answer whose context is over its threshold (`compaction.enabled` and
 * `contextTokens > contextWindow - reserveTokens`, Pi's `shouldCompact`) after the run or before
 * the next request, asking every `session_before_compact` handler in load order: an extension that
 * summarises there bills its summary even when pi-reset's later answer replaces it. A reset
 * committed at that answer's `turn_end` comes first: Pi skips an answer older than the newest
 * compaction and the next request's context is small, so Pi starts no compaction and no handler
 * bills anything, in either load order. Overflow recovery (an error or cut answer) still goes
 * through Pi's compaction, which retries the request.
 */
import type { Proposal, ResetState, Step } from "./state.js";

/** What Pi's threshold rule reads. */
export interface ThresholdFacts {
	/** Pi's `compaction.enabled`. */
	readonly autoCompaction: boolean;
	/** Tokens in the next request: the answer's usage plus an estimate of what came after it. */
	readonly contextTokens: number | undefined;
	/** The model's context window (0 or less: unknown). */
	readonly contextWindow: number;
	/** Pi's effective `compaction.reserveTokens`. */
	readonly reserveTokens: number;
}

/** Pi's own threshold rule (`shouldCompact`): true when Pi would start its threshold compaction. */
export function overPiThreshold(facts: ThresholdFacts): boolean {
	if (!facts.autoCompaction || facts.contextWindow <= 0 || facts.contextTokens === undefined) return false;
	return facts.contextTokens > facts.contextWindow - facts.reserveTokens;
}

/**
 * Pi's compaction eligibility (`prepareCompaction`): Pi keeps the window's newest `keepRecentTokens`
 * and compacts only when a message is before them, so a window whose messages after its oldest fit
 * in that budget is never compacted, whatever its usage. The boundary reset takes Pi's compaction
 * over, so it resets only such a window too: otherwise a model whose answers stay over the
 * threshold would get a reset after every answer, in every new window. Message tokens newest
 * first, read lazily (stops once an older message is found past the budget).
 */
export function piCompactsWindow(tokensNewestFirst: Iterable<number>, keepRecentTokens: number): boolean {
	let kept = 0;
	for (const tokens of tokensNewestFirst) {
		if (kept >= keepRecentTokens) return true;
		kept += tokens;
	}
	return false;
}

/** Tokens above Pi's keep-recent budget a window must have for an idle `/reset` to ask Pi to compact it. */
export const IDLE_COMPACTION_MARGIN_TOKENS = 1024;

/**
 * Whether Pi surely compacts a window asked for now (an idle `/reset` asks Pi's manual compaction):
 * {@link piCompactsWindow} with a margin, the messages after the oldest more than `keepRecentTokens`
 * plus {@link IDLE_COMPACTION_MARGIN_TOKENS}. Pi refuses a window below its budget with an error
 * ("Nothing to compact"), and the caller counts only the window's own messages, so it errs towards
 * "no" (the reset then opens with the next run).
 */
export function piSurelyCompactsWindow(
	tokensNewestFirst: Iterable<number>,
	keepRecentTokens: number,
): boolean {
	// Token counts are whole numbers: more than `budget` is at least `floor(budget) + 1`.
	return piCompactsWindow(
		tokensNewestFirst,
		Math.floor(keepRecentTokens + IDLE_COMPACTION_MARGIN_TOKENS) + 1,
	);
}

/**
 * Answers whose threshold compaction the boundary can take over: a finished answer or a tool turn.
 * An error or a cut answer (`length`) goes to Pi's overflow recovery, which compacts and retries;
 * an aborted one is compacted by Pi only before the next prompt.
 */
export function preemptableAnswer(stopReason: string | undefined): boolean {
	return stopReason === "stop" || stopReason === "toolUse";
}

/**
 * The window's measure after a message: over Pi's threshold, the reset is due at this turn's
 * boundary; under it again, it is not. Only an answer lowers the measure: its provider usage
 * replaces the estimate of what came before it (a long prompt estimated over the threshold whose
 * answer reports under it), and Pi reads that usage after the run, so it compacts nothing either.
 */
export function thresholdCrossed(state: ResetState, over: boolean): Step {
	if (!over) {
		return state.thresholdDue
			? { state: { ...state, thresholdDue: false }, effect: { type: "none" } }
			: { state, effect: { type: "none" } };
	}
	if (!state.enabled || state.proposal || state.thresholdDue) return { state, effect: { type: "none" } };
	return { state: { ...state, thresholdDue: true }, effect: { type: "none" } };
}

/**
 * The boundary after an answer over Pi's threshold: the reset Pi's compaction would have drawn,
 * proposed here (a run serving an idle `/reset` is folded in: its window opens now). Undefined
 * when no threshold reset is due; a boundary that cannot take it over leaves it to Pi.
 */
export function thresholdBoundary(
	state: ResetState,
	event: { readonly aborted: boolean; readonly preemptable?: boolean; readonly newWindowId: string },
): Step | undefined {
	if (!state.thresholdDue) return undefined;
	const next = { ...state, thresholdDue: false };
	if (event.aborted || event.preemptable !== true) return { state: next, effect: { type: "none" } };
	const proposal: Proposal = {
		windowId: state.nextRun?.windowId ?? event.newWindowId,
		kind: "boundary",
		resets: state.window.resets + 1,
		handoff: state.handoff,
	};
	return {
		state: { ...next, nextRun: undefined, proposal },
		effect: { type: "propose-threshold-reset", proposal },
	};
}
