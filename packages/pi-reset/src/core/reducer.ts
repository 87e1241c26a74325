/**
 * The reset control as a pure reducer: `(state, event) → { state, effect }`.
 *
 * Adapters (tool, command, boundary, compaction hook, context hook) turn Pi events into
 * {@link ResetEvent}s and carry out the named {@link ResetEffect}. Nothing here imports Pi, reads
 * the clock or draws random numbers: ids and facts arrive in the events.
 */

import { commit, revive } from "./commit.js";
import { foreignWindow, ownWindow } from "./compaction-peers.js";
import {
	type NextRun,
	NOTHING_CARRIED,
	type PendingHandoff,
	type PendingWarning,
	type Proposal,
	type ResetEffect,
	type ResetEvent,
	type ResetRequest,
	type ResetState,
	type Step,
	type WindowState,
} from "./state.js";
import { thresholdBoundary, thresholdCrossed } from "./threshold.js";

export * from "./state.js";

const NONE: ResetEffect = { type: "none" };

/** Drops pending work. The undelivered handoff is not work: it stays until a reset delivers it. */
function cleared(state: ResetState): ResetState {
	return {
		...state,
		request: undefined,
		nextRun: undefined,
		proposal: undefined,
		warning: undefined,
		thresholdDue: false,
	};
}

/**
 * An aborted run cancels the reset that waited for its boundary. An idle `/reset` whose run already
 * started in the new window is not cancelled: it is kept for the next run. The handoff stays.
 */
function abortedRequest(state: ResetState, request: ResetRequest): Step {
	const kept = state.nextRun ? state.nextRun.request : undefined;
	return {
		state: { ...state, request: kept, nextRun: undefined, warning: undefined },
		effect: { type: "cancelled", request, why: "aborted", handoff: state.handoff },
	};
}

/**
 * A restore or an invalidation drops pending requests (they are not persisted): the user who was
 * told "your next message starts in a fresh context window" is told it was dropped. The handoff stays.
 */
function dropped(state: ResetState): ResetEffect {
	const request = state.request ?? state.nextRun?.request;
	if (!request || request.generation !== state.generation) return { type: "disarm" };
	return { type: "cancelled", request, why: "dropped", handoff: state.handoff };
}

function stale(state: ResetState, request: ResetRequest): Step {
	return {
		state: cleared(state),
		effect: { type: "cancelled", request, why: "stale", handoff: state.handoff },
	};
}

/** A boundary with no threshold reset due: the next-run commit or the explicit reset waiting for it. */
function boundaryStep(state: ResetState, event: Extract<ResetEvent, { type: "boundary" }>): Step {
	const request = state.request;
	if (state.nextRun && request?.mode !== "boundary") {
		const proposal: Proposal = {
			windowId: state.nextRun.windowId,
			kind: "next-run",
			resets: state.window.resets + 1,
			handoff: state.nextRun.handoff,
		};
		return {
			state: { ...state, nextRun: undefined, proposal },
			effect: { type: "propose-next-run", nextRun: state.nextRun, proposal },
		};
	}
	if (request?.mode !== "boundary") return { state, effect: NONE };
	if (request.generation !== state.generation) return stale(state, request);
	if (event.aborted) return abortedRequest(state, request);
	const proposal: Proposal = {
		windowId: state.nextRun?.windowId ?? event.newWindowId,
		kind: "boundary",
		resets: state.window.resets + 1,
		handoff: state.handoff,
	};
	return {
		state: { ...state, request: undefined, nextRun: undefined, proposal },
		effect: { type: "propose-reset", request, proposal },
	};
}

/**
 * Rule: what the user asks with `/reset` while a reset is pending is not dropped. A note becomes the
 * pending handoff: the pending reset carries it, or (when that reset is already handed to Pi with
 * its opening note written) the next reset does. A handoff the model wrote for the pending reset is
 * kept after the user's note (it is the work's state; the note does not replace it), and
 * `--fresh` makes the pending reset a fresh start. The model's second `new_context` is told that it
 * changed nothing (the first handoff of a batch stays).
 */
function alreadyPending(
	state: ResetState,
	pending: ResetRequest,
	event: Extract<ResetEvent, { type: "request" }>,
): Step {
	const served = state.request === pending;
	const fresh = served && event.fresh === true && !pending.fresh;
	if ((!event.handoff && !fresh) || event.source !== "command")
		return { state, effect: { type: "already-pending", request: pending } };
	const model = served && state.handoff?.source === "tool" ? state.handoff.text : undefined;
	const text =
		event.handoff && model
			? `The user's note for this reset (/reset): ${event.handoff}\n\n${model}`
			: event.handoff;
	const handoff: PendingHandoff | undefined = text
		? { text, source: event.source, windowId: pending.windowId }
		: state.handoff;
	const request = served
		? { ...pending, handoff: text ?? pending.handoff, fresh: pending.fresh || fresh }
		: state.request;
	return {
		state: { ...state, handoff, request },
		effect: {
			type: "already-pending",
			request: pending,
			...(event.handoff ? { handoff: served ? "this" : "next" } : {}),
			...(fresh ? { fresh } : {}),
		},
	};
}

/** The pure transition function. */
export function reduceReset(state: ResetState, event: ResetEvent): Step {
	switch (event.type) {
		case "restore":
			return {
				state: {
					...cleared(state),
					enabled: event.enabled,
					window: event.window,
					generation: event.generation,
					handoff: event.handoff,
					othersAnswerCompactions: state.othersAnswerCompactions || event.othersAnswered === true,
				},
				effect: dropped(state),
			};
		case "invalidate":
			return { state: { ...cleared(state), generation: event.generation }, effect: dropped(state) };
		case "toggle": {
			const dropped = event.enabled ? undefined : state.request;
			// A proposal already handed to Pi is a fact in flight, not a wish: off keeps it so that
			// its commit is still confirmed and announced (a reset Pi commits is always announced).
			const next = event.enabled ? state : { ...cleared(state), proposal: state.proposal };
			return {
				state: { ...next, enabled: event.enabled, generation: event.generation },
				effect: { type: "toggled", enabled: event.enabled, dropped },
			};
		}
		case "request": {
			if (!state.enabled) return { state, effect: { type: "rejected-off" } };
			// A run serving an idle /reset is already in its new window: a request made in it is a
			// request to reset that window, served at its next boundary (it replaces the next-run commit).
			const pending = state.request ?? state.proposal?.folded;
			if (pending && pending.generation === state.generation) return alreadyPending(state, pending, event);
			const windowId = state.nextRun?.windowId ?? state.window.id;
			const request: ResetRequest = {
				source: event.source,
				handoff: event.handoff,
				windowId,
				generation: state.generation,
				mode: event.streaming ? "boundary" : "next-run",
				fresh: event.fresh === true,
			};
			const handoff: PendingHandoff | undefined = event.handoff
				? { text: event.handoff, source: event.source, windowId }
				: state.handoff;
			return {
				state: { ...state, request, handoff },
				effect: event.streaming ? { type: "arm-boundary", request } : { type: "queued-next-run", request },
			};
		}
		case "run-start": {
			const request = state.request;
			if (!state.enabled || !request || request.mode !== "next-run") return { state, effect: NONE };
			if (request.generation !== state.generation) return stale(state, request);
			const nextRun: NextRun = {
				request,
				baseLeafId: event.baseLeafId,
				windowId: event.newWindowId,
				handoff: state.handoff,
				carried: request.fresh ? NOTHING_CARRIED : (event.carried ?? NOTHING_CARRIED),
			};
			return {
				state: { ...state, request: undefined, nextRun },
				effect: { type: "project-next-run", nextRun },
			};
		}
		case "threshold":
			return thresholdCrossed(state, event.over);
		case "boundary": {
			if (state.proposal) return { state, effect: NONE };
			// An explicit reset at this boundary serves the threshold too; otherwise the threshold reset first.
			const due = state.request?.mode === "boundary" ? undefined : thresholdBoundary(state, event);
			if (due && due.effect.type !== "none") return due;
			return boundaryStep({ ...state, thresholdDue: false }, event);
		}
		case "confirm":
			return commit(state, event.found);
		case "compacted": {
			const foreign = event.found ? undefined : event.foreignEntryId;
			const others = state.othersAnswerCompactions || (foreign !== undefined && event.fromExtension === true);
			const next =
				foreign === undefined
					? state
					: { ...state, window: foreignWindow(state, foreign), othersAnswerCompactions: others };
			// Only a compaction proposal waits for this event (boundary drafts are confirmed at turn_start).
			const awaited = next.proposal?.kind === "compaction" ? next.proposal : undefined;
			if (awaited && (!event.found || event.found.windowId === awaited.windowId))
				return commit(next, event.found);
			// A pi-reset compaction that is not the awaited one (Pi ran two at once) is still the live window.
			if (event.found)
				return { state: { ...next, window: ownWindow(event.found, event.foundResets) }, effect: NONE };
			return { state: next, effect: NONE };
		}
		case "compaction": {
			if (!state.enabled) return { state, effect: { type: "native-compaction" } };
			if (event.aborted) return { state, effect: { type: "cancel-compaction" } };
			const request = state.request ?? state.nextRun?.request;
			const proposal: Proposal = {
				windowId: event.newWindowId,
				kind: "compaction",
				resets: state.window.resets + 1,
				folded: request,
				foldedRun: state.nextRun,
				handoff: state.handoff,
			};
			return {
				state: { ...cleared(state), proposal },
				effect: { type: "reset-compaction", proposal, request, reason: event.reason },
			};
		}
		case "compaction-failed": {
			const proposal = state.proposal;
			if (proposal?.kind !== "compaction") return { state, effect: NONE };
			if (!state.enabled) return { state: { ...state, proposal: undefined }, effect: NONE };
			const { state: next, requeued } = revive(state, proposal);
			return { state: next, effect: requeued ? { type: "requeued", request: requeued } : NONE };
		}
		case "usage": {
			const busy = state.request !== undefined || state.proposal !== undefined || state.nextRun !== undefined;
			if (!state.enabled || state.window.warned || busy || event.remaining > event.threshold) {
				return { state, effect: NONE };
			}
			const window: WindowState = { ...state.window, warned: true };
			const warning: PendingWarning = {
				windowId: window.id,
				tokensLeft: event.remaining - event.reserve,
				...(event.after === undefined ? {} : { after: event.after }),
			};
			return { state: { ...state, window, warning }, effect: { type: "warn", window, warning } };
		}
		case "take-warning":
			return state.warning
				? {
						state: { ...state, warning: undefined },
						effect: { type: "persist-warning", warning: state.warning },
					}
				: { state, effect: NONE };
		case "settled": {
			const request = state.request;
			if (request?.mode === "boundary") {
				if (event.aborted) return abortedRequest(state, request);
				// No boundary was reached after the request (it came after the last one): the next run starts fresh.
				const deferred: ResetRequest = { ...request, mode: "next-run" };
				return {
					state: { ...state, request: deferred },
					effect: { type: "queued-next-run", request: deferred },
				};
			}
			if (state.nextRun) {
				// The run ended before any boundary: keep the request for the next run.
				return {
					// A newer request made during the run wins (it carries the newest intent).
					state: { ...state, nextRun: undefined, request: state.request ?? state.nextRun.request },
					effect: NONE,
				};
			}
			return { state, effect: NONE };
		}
	}
}
