/**
 * Pi-started compactions (manual /compact, threshold, overflow) become instant reset boundaries in
 * `session_before_compact`: never cancelled, never a model turn. The boot text goes in the
 * compaction summary, which Pi projects as a user-role message, so an overflow retry still sees the
 * user's request. When the window ends in tool results (a compaction between turns of a run), the
 * turn in progress is kept from its assistant message so tool calls and results stay paired.
 *
 * Also here: `/tree` branch summaries never see history a reset erased.
 */
import type {
	ExtensionAPI,
	ExtensionContext,
	SessionBeforeCompactEvent,
} from "@earendil-works/pi-coding-agent";
import { foreignWindowId } from "../core/compaction-peers.js";
import { windowDigest } from "../core/digest.js";
import { bootText, bound, MAX_HANDOFF_CHARS } from "../core/texts.js";
import {
	erasedPrefixLength,
	lastUserRequest,
	newestFirst,
	readResetDetails,
	resetDetails,
} from "../core/window.js";
import { confirmProposal } from "./boundary.js";
import type { ResetControl } from "./control.js";
import { requestsBeforeResets } from "./last-request.js";
import { keptTurn } from "./threshold-reset.js";

/** Per-runtime knobs. */
export interface CompactionOptions {
	/** Largest excerpt of the user's request carried over. */
	readonly maxRequestChars: () => number;
	/** Pi's effective `compaction.reserveTokens` for the current model. */
	readonly reserveTokens: (ctx: ExtensionContext) => number;
	/** Whether the model has `context_recall` now (the boot text offers it only then). */
	readonly recallActive?: () => boolean;
}

/** `/compact <instructions>` is the user's handoff; a pending handoff follows it. */
function compactionHandoff(
	instructions: string | undefined,
	pending: string | undefined,
): string | undefined {
	const given = instructions?.trim();
	if (!given) return pending;
	const theirs = `The user's instructions for this reset (/compact): ${bound(given, MAX_HANDOFF_CHARS)}`;
	return pending ? `${theirs}\n\n${pending}` : theirs;
}

function onBeforeCompact(
	control: ResetControl,
	event: SessionBeforeCompactEvent,
	ctx: ExtensionContext,
	options: CompactionOptions,
) {
	// A boundary committed just before this compaction is confirmed first, so it is announced.
	confirmProposal(control, ctx);
	const effect = control.dispatch(
		{
			type: "compaction",
			reason: event.reason,
			aborted: event.signal.aborted,
			newWindowId: control.mintWindowId(),
		},
		ctx,
	);
	if (effect.type === "native-compaction") return undefined;
	if (effect.type === "cancel-compaction") return { cancel: true };
	if (effect.type !== "reset-compaction") return undefined;
	const branch = event.branchEntries;
	// A manual compaction aborted any run first: there is no turn in progress to keep.
	const keep =
		event.reason === "manual"
			? { firstKeptEntryId: undefined, dropped: false }
			: keptTurn(branch, ctx, options.reserveTokens);
	// A folded `/reset --fresh` carries only its handoff; every other reset carries the work.
	const fresh = effect.request?.fresh === true;
	const request = fresh ? undefined : lastUserRequest(newestFirst(branch));
	const cause = effect.request ? (effect.request.source === "tool" ? "new_context" : "/reset") : event.reason;
	const summary = bootText({
		windowId: effect.proposal.windowId,
		cause,
		handoff: compactionHandoff(event.customInstructions, effect.proposal.handoff?.text),
		userRequest: request ? bound(request, options.maxRequestChars()) : undefined,
		earlierRequests: request
			? requestsBeforeResets(ctx.sessionManager, options.maxRequestChars())
			: undefined,
		// An idle /reset folded in before its run started: the user's next message follows.
		kept: keep.firstKeptEntryId
			? "turn"
			: effect.request?.mode === "next-run" && !effect.proposal.foldedRun
				? "prompt"
				: "nothing",
		droppedTurn: keep.dropped,
		// Zero model calls: read from the entries and Pi's own file lists.
		digest: fresh ? undefined : windowDigest(branch, event.preparation.fileOps),
		fresh,
		recallUnavailable: options.recallActive?.() === false,
	});
	return {
		compaction: {
			summary,
			// Pi's type says string; null is the documented retain-none value (pi-host-api.md §6.2).
			firstKeptEntryId: (keep.firstKeptEntryId ?? null) as unknown as string,
			tokensBefore: event.preparation.tokensBefore,
			details: resetDetails(effect.proposal.windowId, effect.proposal.resets, cause),
		},
	};
}

/**
 * Another extension's compaction committed as a boundary draft (Pi 1.6 `turn_end` and
 * `agent_before_settle` results) fires no `session_compact`; the context hook finds it among the
 * drafts and it is followed here like one that did: a new window, warned again, the id a reload reads.
 */
export function followDraftCompaction(
	control: ResetControl,
	entryId: string | undefined,
	ctx: ExtensionContext,
): void {
	if (entryId === undefined || control.state.window.id === foreignWindowId(entryId)) return;
	control.dispatch({ type: "compacted", found: undefined, foreignEntryId: entryId }, ctx);
}

/** Registers the compaction and tree hooks. */
export function registerCompactionHooks(
	pi: Pick<ExtensionAPI, "on">,
	control: ResetControl,
	options: CompactionOptions,
): void {
	pi.on("session_before_compact", (event, ctx) => onBeforeCompact(control, event, ctx, options));
	pi.on("session_compact", (event, ctx) => {
		const ours = readResetDetails(event.compactionEntry.details);
		// Every compaction opens a new context, followed even without a proposal of ours (another
		// extension's, Pi's own while off, or a second one of ours Pi ran at once), so the live
		// window is the one a reload would read.
		control.dispatch(
			{
				type: "compacted",
				found: ours ? { entryId: event.compactionEntry.id, windowId: ours.windowId } : undefined,
				foundResets: ours?.resets,
				foreignEntryId: ours ? undefined : event.compactionEntry.id,
				fromExtension: event.fromExtension,
			},
			ctx,
		);
	});
	pi.on("session_compact_failed", (_event, ctx) => {
		control.dispatch({ type: "compaction-failed" }, ctx);
	});
	pi.on("session_before_tree", (event) => {
		if (!control.state.enabled || !event.preparation.userWantsSummary) return undefined;
		// The summariser reads this array after the hook (Pi documents the preparation as mutable).
		const erased = erasedPrefixLength(event.preparation.entriesToSummarize);
		if (erased > 0) event.preparation.entriesToSummarize.splice(0, erased);
		return undefined;
	});
}
