/**
 * Reset boundaries: while a reset is pending, pi-reset takes part in Pi's actionable boundaries
 * (turn_end, agent_before_settle) through the kit's boundary participant and proposes the new
 * window there, atomically with the run. No summarisation request, no idle send.
 *
 * - explicit reset (`new_context`, `/reset` while streaming): a retain-none compaction, then the
 *   hidden boot message; `new_context` also asks for exactly one continuation;
 * - a run that started after `/reset` while idle: its first request already saw only the new window
 *   (context.ts); the compaction committed here keeps from the run's first entry, so the session
 *   projects the same window from then on.
 *
 * Other extensions' drafts for the new window (pi-goal's contract) come as offers on the kit's
 * `pi-lifecycle:new-window:v1` channel, accepted while an explicit reset waits for its boundary and
 * proposed after the boot message: they need no `turn_end` handler of their own, and Pi rebuilds a
 * whole-branch preview after every boundary handler.
 */
import type {
	CompactionEntryDraft,
	CustomMessageEntryDraft,
	ExtensionAPI,
	ExtensionContext,
	SessionBoundaryDraft,
} from "@earendil-works/pi-coding-agent";
import {
	type BoundaryEvent,
	type BoundaryParticipant,
	type BoundaryProposal,
	createBoundaryParticipant,
	entriesSince,
	NewWindowCollector,
	WINDOW_KEY,
} from "@pi-lifecycle/lifecycle-kit";
import type { NextRun, PendingWarning, Proposal, ResetRequest } from "../core/reducer.js";
import { bootText, resetSummary, warningText } from "../core/texts.js";
import { preemptableAnswer } from "../core/threshold.js";
import { WARNED_AFTER_KEY } from "../core/warning-place.js";
import { BOOT_MESSAGE, resetDetails, WARNING_MESSAGE } from "../core/window.js";
import type { WorkReader } from "./carry.js";
import type { ResetControl } from "./control.js";
import { findCommitted } from "./session.js";
import { type ReserveTokens, thresholdDraft } from "./threshold-reset.js";

/** Per-runtime knobs the boundary needs. */
export interface BoundaryOptions {
	/** Reads the user's latest request and the digest the new window carries. */
	readonly work: WorkReader;
	/** Whether `context_recall` is among the model's tools (the boot text offers it only then). */
	readonly recallActive?: () => boolean;
	/** Pi's effective `compaction.reserveTokens` (the threshold reset keeps a turn within half the usable window). */
	readonly reserveTokens?: ReserveTokens;
	/** Whether Pi would compact the window now (threshold-reset.ts `createPiCompacts`); absent: yes. */
	readonly piCompacts?: (ctx: ExtensionContext) => boolean;
}

/** The boot text of a run that started after `/reset` while idle (rendered identically twice). */
export function nextRunBoot(nextRun: NextRun, recallAvailable = true): string {
	return bootText({
		recallUnavailable: !recallAvailable,
		windowId: nextRun.windowId,
		cause: nextRun.request.source === "tool" ? "new_context" : "/reset",
		handoff: nextRun.handoff?.text,
		userRequest: nextRun.carried.userRequest,
		earlierRequests: nextRun.carried.earlierRequests,
		digest: nextRun.carried.digest,
		fresh: nextRun.request.fresh,
		kept: "prompt",
	});
}

/**
 * The checkpoint warning, marked as belonging to the window it warns about. It is shown in the TUI
 * transcript (collapsed by pi-reset's renderer) and kept out of the transcript in other modes.
 */
export function warningMessage(
	warning: PendingWarning,
	display = false,
): Omit<CustomMessageEntryDraft, "type"> {
	return {
		customType: WARNING_MESSAGE,
		content: warningText(warning.windowId, warning.tokensLeft),
		display,
		details: {
			windowId: warning.windowId,
			[WINDOW_KEY]: "closing",
			// Later requests show it where it was sent (warning-place.ts), keeping the cached prefix.
			...(warning.after === undefined ? {} : { [WARNED_AFTER_KEY]: warning.after }),
		},
	};
}

function explicitDrafts(
	request: ResetRequest,
	proposal: Proposal,
	ctx: ExtensionContext,
	options: BoundaryOptions & { windowStart: string | null | undefined },
): [CompactionEntryDraft, CustomMessageEntryDraft] {
	// Every reset carries the work (carry.ts), with or without a handoff, unless the user asked for a fresh start.
	const carried = request.fresh ? undefined : options.work.read(ctx.sessionManager, options.windowStart);
	const cause = request.source === "tool" ? "new_context" : "/reset";
	return [
		{
			type: "compaction",
			summary: resetSummary(proposal.windowId),
			firstKeptEntryId: null,
			details: resetDetails(proposal.windowId, proposal.resets, cause),
		},
		{
			type: "custom_message",
			customType: BOOT_MESSAGE,
			// The model sees it either way; the TUI shows it collapsed (renderers.ts).
			display: ctx.hasUI,
			content: bootText({
				windowId: proposal.windowId,
				cause,
				handoff: proposal.handoff?.text,
				userRequest: carried?.userRequest,
				earlierRequests: carried?.earlierRequests,
				digest: carried?.digest,
				fresh: request.fresh,
				kept: "nothing",
				recallUnavailable: options.recallActive?.() === false,
			}),
			details: { windowId: proposal.windowId },
		},
	];
}

function propose(
	control: ResetControl,
	event: BoundaryEvent,
	ctx: ExtensionContext,
	options: BoundaryOptions,
	newWindow: NewWindowOffers,
): BoundaryProposal | undefined {
	const taken = control.dispatch({ type: "take-warning" }, ctx);
	const closing: SessionBoundaryDraft[] =
		taken.type === "persist-warning"
			? [{ type: "custom_message", ...warningMessage(taken.warning, ctx.hasUI) }]
			: [];
	const aborted = event.outcome === "aborted" || ctx.signal?.aborted === true;
	// A run serving an idle /reset has no compaction yet: its window starts after the run's base leaf.
	const windowStart = control.state.nextRun?.baseLeafId;
	// Pi checks an answer against its threshold after its turn_end: only there can the reset come first.
	// Only a window Pi would compact: where Pi would not, no reset either (read only when one is due).
	const preemptable =
		event.type === "turn_end" &&
		preemptableAnswer((event.message as { stopReason?: string }).stopReason) &&
		control.state.thresholdDue &&
		options.piCompacts?.(ctx) !== false;
	const effect = control.dispatch(
		{ type: "boundary", aborted, preemptable, newWindowId: control.mintWindowId() },
		ctx,
	);
	if (effect.type === "propose-threshold-reset") {
		const reserveTokens = options.reserveTokens ?? (() => 0);
		return { drafts: [thresholdDraft(effect.proposal, ctx, { ...options, reserveTokens, windowStart })] };
	}
	if (effect.type === "propose-reset") {
		return {
			// A warning for the window being closed is not persisted: it was shown in its request, and
			// the kit's merge would place an owner's own drafts after its reset (in the new window).
			drafts: [
				...explicitDrafts(effect.request, effect.proposal, ctx, { ...options, windowStart }),
				...newWindow.take(effect.request, ctx.sessionManager),
			],
			// new_context promises one continuation; a user's /reset lets the run go on or end as it would.
			continue: effect.request.source === "tool",
		};
	}
	if (effect.type === "propose-next-run") {
		const first = entriesSince(ctx.sessionManager, effect.nextRun.baseLeafId)[0];
		const draft: CompactionEntryDraft = {
			type: "compaction",
			summary: nextRunBoot(effect.nextRun, options.recallActive?.() !== false),
			firstKeptEntryId: first?.id ?? null,
			details: resetDetails(effect.proposal.windowId, effect.proposal.resets, "/reset"),
		};
		return { drafts: [...closing, draft] };
	}
	return closing.length > 0 ? { drafts: closing } : undefined;
}

/** Offers accepted for one pending reset request. */
interface NewWindowOffers {
	/** The drafts offered for `request` (none when they were accepted for another one). */
	take(request: ResetRequest, session: object): SessionBoundaryDraft[];
}

/**
 * Accepts offers while an explicit reset waits for its boundary. Offers belong to the request that
 * accepted them: one that went away without its boundary (an abort, `/reset off`, a stale
 * generation) takes its offers with it, so a later reset never proposes drafts meant for another.
 */
function listenForOffers(pi: Pick<ExtensionAPI, "events">, control: ResetControl): NewWindowOffers {
	const collector = new NewWindowCollector();
	let acceptedFor: ResetRequest | undefined;
	collector.listen(pi.events, () => {
		const request = control.state.request;
		if (request?.mode !== "boundary") return false;
		if (request !== acceptedFor) collector.clear();
		acceptedFor = request;
		return true;
	});
	return {
		take(request, session) {
			const drafts = request === acceptedFor ? collector.take(session) : [];
			collector.clear();
			acceptedFor = undefined;
			return drafts;
		},
	};
}

/** Creates the participant (armed by the control only while a reset is pending). */
export function createResetBoundary(
	pi: Pick<ExtensionAPI, "on" | "events">,
	control: ResetControl,
	options: BoundaryOptions,
): BoundaryParticipant {
	const newWindow = listenForOffers(pi, control);
	return createBoundaryParticipant(pi, {
		events: ["turn_end", "agent_before_settle"],
		propose: (event, ctx) => propose(control, event, ctx, options, newWindow),
	});
}

/** Confirms a proposed boundary once Pi committed it (or reports that it did not). */
export function confirmProposal(control: ResetControl, ctx: ExtensionContext): void {
	const proposal = control.state.proposal;
	if (!proposal || proposal.kind === "compaction") return;
	control.dispatch({ type: "confirm", found: findCommitted(ctx.sessionManager, proposal.windowId) }, ctx);
}

/**
 * Confirms a proposed boundary only if Pi already committed it (nothing is said otherwise: the
 * drafts may still be on their way). Used before `/reset off` clears the proposal.
 */
export function confirmCommitted(control: ResetControl, ctx: ExtensionContext): void {
	const proposal = control.state.proposal;
	if (!proposal || proposal.kind === "compaction") return;
	const found = findCommitted(ctx.sessionManager, proposal.windowId);
	if (found) control.dispatch({ type: "confirm", found }, ctx);
}
