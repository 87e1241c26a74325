/**
 * The reset control's state, events and effects (types only, plus the initial state). The
 * transitions are in reducer.ts.
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
	/** `/reset --fresh`: the new window carries neither the earlier request nor the digest. */
	readonly fresh: boolean;
}

/**
 * The work a reset carries into the new window besides the handoff, read from the closing window
 * when the reset is proposed: the user's latest request and the mechanical digest.
 */
export interface CarriedWork {
	/** The user's latest request before the reset, already bounded. */
	readonly userRequest: string | undefined;
	/** The mechanical digest of the closing window. */
	readonly digest: string | undefined;
	/** The user's requests before `userRequest`, each from before a reset, newest first (last-request.ts). */
	readonly earlierRequests?: readonly string[];
}

/**
 * A handoff given by `new_context` or `/reset`: persisted when given (a `pi-reset/handoff` entry)
 * and kept through aborts, failed compactions, `/reset off` and run starts until a committed reset
 * delivers it once.
 */
export interface PendingHandoff {
	/** The note, already bounded. */
	readonly text: string;
	/** Who wrote it. */
	readonly source: RequestSource;
	/** The window it was written in. */
	readonly windowId: string;
}

/** A run that started while a `next-run` request was pending. */
export interface NextRun {
	/** The request being served. */
	readonly request: ResetRequest;
	/** Session leaf before the run's first entry (the new window keeps everything after it). */
	readonly baseLeafId: string | null;
	/** Id the new window gets. */
	readonly windowId: string;
	/** The handoff its boot text carries (rendered identically in the projection and the commit). */
	readonly handoff: PendingHandoff | undefined;
	/** The work carried from the window before the run (read once, when the run started). */
	readonly carried: CarriedWork;
}

/** Entries handed to Pi that are not confirmed in the session yet. */
export interface Proposal {
	/** Id of the window the proposal opens. */
	readonly windowId: string;
	/** What produced it. */
	readonly kind: "boundary" | "next-run" | "compaction";
	/** Window count after the commit. */
	readonly resets: number;
	/** A compaction's folded request, given back if the compaction fails. */
	readonly folded?: ResetRequest;
	/** A compaction's folded next-run projection, given back if the compaction fails. */
	readonly foldedRun?: NextRun;
	/** The handoff the new window's boot text carries (delivered when the proposal commits). */
	readonly handoff?: PendingHandoff;
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
	/** The newest handoff not yet delivered by a committed reset. */
	readonly handoff: PendingHandoff | undefined;
	/**
	 * Another extension answered a compaction with its own summary in this runtime or earlier in this
	 * session file (it loads after pi-reset, or pi-reset was off): an idle `/reset` then stops
	 * starting Pi's compaction.
	 */
	readonly othersAnswerCompactions: boolean;
	/** An answer of this turn went over Pi's compaction threshold: the reset is due at its boundary (threshold.ts). */
	readonly thresholdDue: boolean;
}

/** A checkpoint warning waiting to be written into the session. */
export interface PendingWarning {
	/** The window it belongs to. */
	readonly windowId: string;
	/** Tokens left before Pi's compaction threshold when it fired. */
	readonly tokensLeft: number;
	/** The message the warning followed in the request that gave it (warning-place.ts `messageKey`). */
	readonly after?: string;
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
			/** The undelivered handoff found on the branch, if any. */
			readonly handoff: PendingHandoff | undefined;
			/** The session file holds a compaction another extension answered ({@link ResetState.othersAnswerCompactions}). */
			readonly othersAnswered?: boolean;
	  }
	| { readonly type: "invalidate"; readonly generation: number }
	| { readonly type: "toggle"; readonly enabled: boolean; readonly generation: number }
	| {
			readonly type: "request";
			readonly source: RequestSource;
			readonly handoff: string | undefined;
			/** Whether a run is active (commit at its next boundary) or Pi is idle (next run starts fresh). */
			readonly streaming: boolean;
			/** `/reset --fresh`: carry neither the earlier request nor the digest. */
			readonly fresh?: boolean;
	  }
	| {
			readonly type: "run-start";
			readonly baseLeafId: string | null;
			readonly newWindowId: string;
			/** The work of the window before the run (none when absent; ignored for a fresh request). */
			readonly carried?: CarriedWork;
	  }
	| {
			readonly type: "boundary";
			readonly aborted: boolean;
			readonly newWindowId: string;
			/** A `turn_end` after an answer Pi would compact at its threshold (threshold.ts `preemptableAnswer`). */
			readonly preemptable?: boolean;
	  }
	/** The window's measure after a message: over Pi's threshold or not (a later answer's own usage decides). */
	| { readonly type: "threshold"; readonly over: boolean }
	| { readonly type: "confirm"; readonly found: CommittedWindow | undefined }
	| {
			readonly type: "compaction";
			readonly reason: "manual" | "threshold" | "overflow";
			readonly aborted: boolean;
			readonly newWindowId: string;
	  }
	| {
			readonly type: "compacted";
			readonly found: CommittedWindow | undefined;
			/** The reset count stored in a pi-reset compaction's details (with `found`). */
			readonly foundResets?: number;
			/** Id of the compaction entry when it is not pi-reset's (another extension's or Pi's summary). */
			readonly foreignEntryId?: string;
			/** Whether an extension's `session_before_compact` answer made it (Pi's `fromExtension`). */
			readonly fromExtension?: boolean;
	  }
	| { readonly type: "compaction-failed" }
	| {
			readonly type: "usage";
			/** Tokens left in the window. */
			readonly remaining: number;
			/** Remaining tokens at which to warn (reserve + margin). */
			readonly threshold: number;
			/** Pi's compaction reserve. */
			readonly reserve: number;
			/** The request's last message, which a warning given now follows (warning-place.ts). */
			readonly after?: string;
	  }
	| { readonly type: "take-warning" }
	| { readonly type: "settled"; readonly aborted: boolean };

/** What the adapter must do after an event. */
export type ResetEffect =
	| { readonly type: "none" }
	| { readonly type: "rejected-off" }
	| {
			readonly type: "already-pending";
			readonly request: ResetRequest;
			/** Where the request's handoff went: the pending reset carries it, or the next one does. */
			readonly handoff?: "this" | "next";
			/** `/reset --fresh` made the pending reset a fresh start. */
			readonly fresh?: boolean;
	  }
	| { readonly type: "arm-boundary"; readonly request: ResetRequest }
	| { readonly type: "queued-next-run"; readonly request: ResetRequest }
	| { readonly type: "project-next-run"; readonly nextRun: NextRun }
	| { readonly type: "propose-reset"; readonly request: ResetRequest; readonly proposal: Proposal }
	| { readonly type: "propose-next-run"; readonly nextRun: NextRun; readonly proposal: Proposal }
	| { readonly type: "propose-threshold-reset"; readonly proposal: Proposal }
	| {
			readonly type: "cancelled";
			readonly request: ResetRequest;
			readonly why: "aborted" | "stale" | "dropped";
			/** The undelivered handoff that stays pending for the next reset, if any. */
			readonly handoff: PendingHandoff | undefined;
	  }
	| { readonly type: "announce"; readonly committed: CommittedWindow; readonly proposal: Proposal }
	| {
			readonly type: "commit-missing";
			readonly proposal: Proposal;
			/** A request folded into a compaction another extension replaced: pending again. */
			readonly requeued?: ResetRequest;
	  }
	| { readonly type: "native-compaction" }
	| { readonly type: "cancel-compaction" }
	| {
			readonly type: "reset-compaction";
			readonly proposal: Proposal;
			/** The pending request folded into this compaction (its handoff goes in the boot text). */
			readonly request: ResetRequest | undefined;
			readonly reason: "manual" | "threshold" | "overflow";
	  }
	| {
			readonly type: "requeued";
			/** The request given back after a failed compaction (still pending, served at the next boundary or run). */
			readonly request: ResetRequest;
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

/** Nothing carried (a `/reset --fresh`). */
export const NOTHING_CARRIED: CarriedWork = { userRequest: undefined, digest: undefined };

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
		handoff: undefined,
		othersAnswerCompactions: false,
		thresholdDue: false,
	};
}
