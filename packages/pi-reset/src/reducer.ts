/**
 * The reset control as a pure reducer: `(state, event) → { state, effect }`.
 *
 * Adapters (tool, command, boundary, compaction hook, context hook) turn Pi events into
 * {@link ResetEvent}s and carry out the named {@link ResetEffect}. Nothing here imports Pi, reads
 * the clock or draws random numbers: ids and facts arrive in the events.
 */

/** The context window the model is working in. */
export interface WindowState {
	/** Window id (`w0` before the first reset of a branch). */
	readonly id: string;
	/** Resets committed on this branch so far. */
	readonly resets: number;
	/** Whether the final checkpoint warning was given in this window. */
	readonly warned: boolean;
}

/** Who asked for a reset. */
export type RequestSource = "tool" | "command";

/** A reset asked for and not committed yet. */
export interface ResetRequest {
	/** `new_context` (tool) or `/reset` (command). */
	readonly source: RequestSource;
	/** The handoff note for the new window, already bounded. */
	readonly handoff: string | undefined;
	/** The window the request was made in. */
	readonly windowId: string;
	/** Lifecycle generation at request time; a request from an older generation is stale. */
	readonly generation: number;
	/** `boundary`: commit at the next boundary of this run; `next-run`: the next run starts fresh. */
	readonly mode: "boundary" | "next-run";
}

/** A run that started while a `next-run` request was pending. */
export interface NextRun {
	/** The request being served. */
	readonly request: ResetRequest;
	/** Session leaf before the run's first entry (the new window keeps everything after it). */
	readonly baseLeafId: string | null;
	/** Id the new window gets. */
	readonly windowId: string;
}

/** Entries handed to Pi that are not confirmed in the session yet. */
export interface Proposal {
	/** Id of the window the proposal opens. */
	readonly windowId: string;
	/** What produced it. */
	readonly kind: "boundary" | "next-run" | "compaction";
	/** Window count after the commit. */
	readonly resets: number;
}

/** Everything the control knows. Immutable. */
export interface ResetState {
	/** Per-session switch (`/reset on|off`). Off means Pi behaves as if pi-reset were not installed. */
	readonly enabled: boolean;
	/** Lifecycle generation (moves on session start, shutdown, tree navigation, toggle off). */
	readonly generation: number;
	/** The current window. */
	readonly window: WindowState;
	/** The pending request, if any. */
	readonly request: ResetRequest | undefined;
	/** The run serving a `next-run` request, if one started. */
	readonly nextRun: NextRun | undefined;
	/** Drafts or a compaction handed to Pi and awaiting confirmation. */
	readonly proposal: Proposal | undefined;
	/** A checkpoint warning shown to the model and not yet persisted (it is, at the turn's boundary). */
	readonly warning: PendingWarning | undefined;
}

/** A checkpoint warning waiting to be written into the session. */
export interface PendingWarning {
	/** The window it belongs to. */
	readonly windowId: string;
	/** Tokens left before Pi's compaction threshold when it fired. */
	readonly tokensLeft: number;
}

/** Facts about a committed window, read from the session. */
export interface CommittedWindow {
	/** Compaction entry that starts the window. */
	readonly entryId: string;
	/** The window id stored in its details. */
	readonly windowId: string;
}

/** Everything that can happen to the control. */
export type ResetEvent =
	| {
			readonly type: "restore";
			readonly enabled: boolean;
			readonly window: WindowState;
			readonly generation: number;
	  }
	| { readonly type: "invalidate"; readonly generation: number }
	| { readonly type: "toggle"; readonly enabled: boolean; readonly generation: number }
	| {
			readonly type: "request";
			readonly source: RequestSource;
			readonly handoff: string | undefined;
			/** Whether a run is active (commit at its next boundary) or Pi is idle (next run starts fresh). */
			readonly streaming: boolean;
	  }
	| { readonly type: "run-start"; readonly baseLeafId: string | null; readonly newWindowId: string }
	| { readonly type: "boundary"; readonly aborted: boolean; readonly newWindowId: string }
	| { readonly type: "confirm"; readonly found: CommittedWindow | undefined }
	| {
			readonly type: "compaction";
			readonly reason: "manual" | "threshold" | "overflow";
			readonly aborted: boolean;
			readonly newWindowId: string;
	  }
	| { readonly type: "compacted"; readonly found: CommittedWindow | undefined }
	| { readonly type: "compaction-failed" }
	| {
			readonly type: "usage";
			/** Tokens left in the window. */
			readonly remaining: number;
			/** Remaining tokens at which to warn (reserve + margin). */
			readonly threshold: number;
			/** Pi's compaction reserve. */
			readonly reserve: number;
	  }
	| { readonly type: "take-warning" }
	| { readonly type: "settled"; readonly aborted: boolean };

/** What the adapter must do after an event. */
export type ResetEffect =
	| { readonly type: "none" }
	| { readonly type: "rejected-off" }
	| { readonly type: "already-pending"; readonly request: ResetRequest }
	| { readonly type: "arm-boundary"; readonly request: ResetRequest }
	| { readonly type: "queued-next-run"; readonly request: ResetRequest }
	| { readonly type: "project-next-run"; readonly nextRun: NextRun }
	| { readonly type: "propose-reset"; readonly request: ResetRequest; readonly proposal: Proposal }
	| { readonly type: "propose-next-run"; readonly nextRun: NextRun; readonly proposal: Proposal }
	| { readonly type: "cancelled"; readonly request: ResetRequest; readonly why: "aborted" | "stale" }
	| { readonly type: "announce"; readonly committed: CommittedWindow; readonly proposal: Proposal }
	| { readonly type: "commit-missing"; readonly proposal: Proposal }
	| { readonly type: "native-compaction" }
	| { readonly type: "cancel-compaction" }
	| {
			readonly type: "reset-compaction";
			readonly proposal: Proposal;
			/** The pending request folded into this compaction (its handoff goes in the boot text). */
			readonly request: ResetRequest | undefined;
			readonly reason: "manual" | "threshold" | "overflow";
	  }
	| { readonly type: "warn"; readonly window: WindowState; readonly warning: PendingWarning }
	| { readonly type: "persist-warning"; readonly warning: PendingWarning }
	| { readonly type: "toggled"; readonly enabled: boolean; readonly dropped: ResetRequest | undefined }
	| { readonly type: "disarm" };

/** A transition result. */
export interface Step {
	/** The next state. */
	readonly state: ResetState;
	/** What the adapter does. */
	readonly effect: ResetEffect;
}

/** The first window of a branch. */
export const INITIAL_WINDOW: WindowState = { id: "w0", resets: 0, warned: false };

/** State for a fresh runtime before session_start. */
export function initialState(enabled = true): ResetState {
	return {
		enabled,
		generation: 0,
		window: INITIAL_WINDOW,
		request: undefined,
		nextRun: undefined,
		proposal: undefined,
		warning: undefined,
	};
}

const NONE: ResetEffect = { type: "none" };

function cleared(state: ResetState): ResetState {
	return { ...state, request: undefined, nextRun: undefined, proposal: undefined, warning: undefined };
}

function commit(state: ResetState, found: CommittedWindow | undefined): Step {
	const proposal = state.proposal;
	if (!proposal) return { state, effect: NONE };
	if (!found || found.windowId !== proposal.windowId) {
		return { state: { ...state, proposal: undefined }, effect: { type: "commit-missing", proposal } };
	}
	const window: WindowState = { id: proposal.windowId, resets: proposal.resets, warned: false };
	return {
		state: { ...state, window, proposal: undefined },
		effect: { type: "announce", committed: found, proposal },
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
				},
				effect: { type: "disarm" },
			};
		case "invalidate":
			return { state: { ...cleared(state), generation: event.generation }, effect: { type: "disarm" } };
		case "toggle": {
			const dropped = event.enabled ? undefined : state.request;
			const next = event.enabled ? state : cleared(state);
			return {
				state: { ...next, enabled: event.enabled, generation: event.generation },
				effect: { type: "toggled", enabled: event.enabled, dropped },
			};
		}
		case "request": {
			if (!state.enabled) return { state, effect: { type: "rejected-off" } };
			const pending = state.request ?? state.nextRun?.request;
			if (pending && pending.generation === state.generation) {
				return { state, effect: { type: "already-pending", request: pending } };
			}
			const request: ResetRequest = {
				source: event.source,
				handoff: event.handoff,
				windowId: state.window.id,
				generation: state.generation,
				mode: event.streaming ? "boundary" : "next-run",
			};
			return {
				state: { ...state, request },
				effect: event.streaming ? { type: "arm-boundary", request } : { type: "queued-next-run", request },
			};
		}
		case "run-start": {
			const request = state.request;
			if (!state.enabled || !request || request.mode !== "next-run") return { state, effect: NONE };
			if (request.generation !== state.generation) {
				return { state: cleared(state), effect: { type: "cancelled", request, why: "stale" } };
			}
			const nextRun: NextRun = { request, baseLeafId: event.baseLeafId, windowId: event.newWindowId };
			return {
				state: { ...state, request: undefined, nextRun },
				effect: { type: "project-next-run", nextRun },
			};
		}
		case "boundary": {
			if (state.proposal) return { state, effect: NONE };
			if (state.nextRun) {
				const proposal: Proposal = {
					windowId: state.nextRun.windowId,
					kind: "next-run",
					resets: state.window.resets + 1,
				};
				return {
					state: { ...state, nextRun: undefined, proposal },
					effect: { type: "propose-next-run", nextRun: state.nextRun, proposal },
				};
			}
			const request = state.request;
			if (request?.mode !== "boundary") return { state, effect: NONE };
			if (request.generation !== state.generation) {
				return { state: cleared(state), effect: { type: "cancelled", request, why: "stale" } };
			}
			if (event.aborted)
				return { state: cleared(state), effect: { type: "cancelled", request, why: "aborted" } };
			const proposal: Proposal = {
				windowId: event.newWindowId,
				kind: "boundary",
				resets: state.window.resets + 1,
			};
			return {
				state: { ...state, request: undefined, proposal },
				effect: { type: "propose-reset", request, proposal },
			};
		}
		case "confirm":
		case "compacted":
			return commit(state, event.found);
		case "compaction": {
			if (!state.enabled) return { state, effect: { type: "native-compaction" } };
			if (event.aborted) return { state, effect: { type: "cancel-compaction" } };
			const request = state.request ?? state.nextRun?.request;
			const proposal: Proposal = {
				windowId: event.newWindowId,
				kind: "compaction",
				resets: state.window.resets + 1,
			};
			return {
				state: { ...cleared(state), proposal },
				effect: { type: "reset-compaction", proposal, request, reason: event.reason },
			};
		}
		case "compaction-failed":
			return state.proposal?.kind === "compaction"
				? { state: { ...state, proposal: undefined }, effect: NONE }
				: { state, effect: NONE };
		case "usage": {
			const busy = state.request !== undefined || state.proposal !== undefined || state.nextRun !== undefined;
			if (!state.enabled || state.window.warned || busy || event.remaining > event.threshold) {
				return { state, effect: NONE };
			}
			const window: WindowState = { ...state.window, warned: true };
			const warning: PendingWarning = { windowId: window.id, tokensLeft: event.remaining - event.reserve };
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
				if (event.aborted)
					return { state: cleared(state), effect: { type: "cancelled", request, why: "aborted" } };
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
					state: { ...state, nextRun: undefined, request: state.nextRun.request },
					effect: NONE,
				};
			}
			return { state, effect: NONE };
		}
	}
}
