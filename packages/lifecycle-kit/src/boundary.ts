/**
 * Boundary participation: continuations and reset boundaries ride Pi's actionable boundaries
 * (`turn_end`, `agent_before_settle`), where Pi merges every extension's proposal into one
 * decision inside the run. This removes the idle-send race of settled dispatch.
 *
 * Two things here:
 * - {@link mergeBoundaryDrafts}: a pure merge that keeps a retain-none compaction (a reset) ahead
 *   of every draft meant for the new window, whatever order the extensions' handlers ran in;
 * - {@link createBoundaryParticipant}: subscribes an owner to the boundary events only while it is
 *   armed. In Pi 1.6 the mere presence of a `turn_end` handler makes Pi build a context preview of
 *   the whole session every turn, so an owner with nothing pending must not be subscribed.
 */
import type {
	AgentBeforeSettleEvent,
	BoundaryResult,
	CompactionEntryDraft,
	ExtensionAPI,
	ExtensionContext,
	SessionBoundaryDraft,
	TurnEndEvent,
} from "@earendil-works/pi-coding-agent";
import { type ArmedSubscription, createArmedSubscription } from "./subscription.js";

/** The boundary events an owner can take part in. */
export type BoundaryEventName = "turn_end" | "agent_before_settle";

/** The event a participant sees: either boundary event. */
export type BoundaryEvent = TurnEndEvent | AgentBeforeSettleEvent;

/** What an owner wants at one boundary. */
export interface BoundaryProposal {
	/** Drafts to add. A retain-none compaction among them marks a reset boundary. */
	readonly drafts?: readonly SessionBoundaryDraft[];
	/** Ask Pi for exactly one more provider request in this run. */
	readonly continue?: boolean;
}

/** Whether a draft is a retain-none compaction, i.e. a reset boundary. */
export function isResetDraft(draft: SessionBoundaryDraft): draft is CompactionEntryDraft {
	return draft.type === "compaction" && draft.firstKeptEntryId === null;
}

/**
 * Drafts that belong to the window being closed even when a reset follows, such as the state
 * entries an extension records about the finished turn. Mark such a draft with
 * `details: { [WINDOW_KEY]: "closing" }` (custom_message) or `data: { [WINDOW_KEY]: "closing" }` (custom).
 */
export const WINDOW_KEY = "piLifecycleWindow";

function belongsToClosingWindow(draft: SessionBoundaryDraft): boolean {
	if (draft.type === "custom_message") return hasClosingMark(draft.details);
	if (draft.type === "custom") return hasClosingMark(draft.data);
	// context_edit targets an existing entry: it applies to the closing window.
	return draft.type === "context_edit";
}

function hasClosingMark(value: unknown): boolean {
	return (
		typeof value === "object" &&
		value !== null &&
		(value as Record<string, unknown>)[WINDOW_KEY] === "closing"
	);
}

/**
 * Merges an owner's drafts into the drafts proposed so far at one boundary.
 *
 * Rules (each covered by a unit test of the same name):
 * - additions without a reset are appended in order;
 * - a reset is inserted before the first proposed draft meant for the new window, so drafts that
 *   an earlier handler proposed for the next request (a goal continuation) survive the reset;
 * - proposed drafts marked as belonging to the closing window stay before the reset;
 * - the owner's own drafts keep their side of its reset: those listed before it close the old
 *   window, those listed after it open the new one (after the drafts already proposed for it);
 * - if a reset is already proposed, a second one is dropped (one boundary, one new window) and the
 *   owner's other drafts go around the existing reset by the same rules (new-window drafts last);
 * - an owner's drafts marked as belonging to the closing window go before the reset, wherever it is.
 *
 * A draft belongs to the closing window when it is a `context_edit` (it edits an existing entry)
 * or carries the {@link WINDOW_KEY} mark. Pure: the inputs are not modified.
 */
export function mergeBoundaryDrafts(
	proposed: readonly SessionBoundaryDraft[],
	additions: readonly SessionBoundaryDraft[],
): SessionBoundaryDraft[] {
	const addedResetIndex = additions.findIndex(isResetDraft);
	const existingResetIndex = proposed.findIndex(isResetDraft);
	if (addedResetIndex < 0 && existingResetIndex < 0) return [...proposed, ...additions];
	const addedClosing: SessionBoundaryDraft[] = [];
	const addedOpening: SessionBoundaryDraft[] = [];
	additions.forEach((draft, index) => {
		if (isResetDraft(draft)) return; // the owner's reset is placed below; extra resets are dropped
		if (belongsToClosingWindow(draft) || index < addedResetIndex) addedClosing.push(draft);
		else addedOpening.push(draft);
	});
	if (existingResetIndex >= 0) {
		return [
			...proposed.slice(0, existingResetIndex),
			...addedClosing,
			...proposed.slice(existingResetIndex),
			...addedOpening,
		];
	}
	const reset = additions[addedResetIndex] as SessionBoundaryDraft;
	const closing = proposed.filter(belongsToClosingWindow);
	const opening = proposed.filter((draft) => !belongsToClosingWindow(draft));
	return [...closing, ...addedClosing, reset, ...opening, ...addedOpening];
}

/** Options for {@link createBoundaryParticipant}. */
export interface BoundaryParticipantOptions {
	/** Which boundaries the owner takes part in while armed. */
	readonly events: readonly BoundaryEventName[];
	/**
	 * Called once per boundary event while armed. Return undefined to stay out. Keep it fast: Pi
	 * awaits every boundary handler before the next request.
	 */
	readonly propose: (
		event: BoundaryEvent,
		ctx: ExtensionContext,
	) => BoundaryProposal | undefined | Promise<BoundaryProposal | undefined>;
}

/** A subscription to boundary events that exists only while armed (see subscription.ts). */
export type BoundaryParticipant = ArmedSubscription;

/** Applies a proposal to the boundary state a handler received. */
export function applyProposal(
	event: Pick<BoundaryEvent, "entries" | "continue">,
	proposal: BoundaryProposal | undefined,
): BoundaryResult | undefined {
	if (!proposal) return undefined;
	const drafts = proposal.drafts ?? [];
	if (drafts.length === 0 && !proposal.continue) return undefined;
	return {
		entries: drafts.length > 0 ? mergeBoundaryDrafts(event.entries, drafts) : event.entries,
		// Never withdraw another owner's continuation: continue is an OR across owners.
		continue: event.continue || proposal.continue === true,
	};
}

/** Creates a boundary participant for one owner. Call in the factory; arm when work is pending. */
export function createBoundaryParticipant(
	pi: Pick<ExtensionAPI, "on">,
	options: BoundaryParticipantOptions,
): BoundaryParticipant {
	const handler = async (event: BoundaryEvent, ctx: ExtensionContext) =>
		applyProposal(event, await options.propose(event, ctx));
	return createArmedSubscription(
		...options.events.map((name) =>
			name === "turn_end"
				? () => pi.on("turn_end", (event, ctx) => handler(event, ctx))
				: () => pi.on("agent_before_settle", (event, ctx) => handler(event, ctx)),
		),
	);
}
