/**
 * Dialogs that outlive their session.
 *
 * An extension command that asks the user (`ctx.ui.select`, `confirm`, `input`) can still be
 * waiting when the session is replaced (`/new`, `/resume`, a fork) or the extensions reload. Its
 * answer then belongs to a session that is gone, and acting on it would change the wrong session
 * (or throw on a stale `ctx`). A dialog scope gives each opened dialog sequence:
 *
 * - a `signal` to pass to every dialog (`{ signal }`): it is aborted at `session_shutdown`, so
 *   dialogs that honour it close and their promises settle;
 * - `current()`, to check after every answer: false once the session it opened in was shut down,
 *   replaced or reloaded. Tree navigation within the session keeps it current (check your own
 *   state, e.g. an id, for that).
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { LifecycleIdentity } from "./identity.js";

/** One dialog sequence, opened in one session. */
export interface OpenedDialogs {
	/** Pass to every dialog of the sequence; aborted when the session shuts down. */
	readonly signal: AbortSignal;
	/** True while the session the sequence opened in is still the live one of this runtime. */
	current(): boolean;
}

/** Opens dialog sequences bound to the live session. */
export interface DialogScope {
	/** Captures the live session for one dialog sequence (a menu and its follow-up dialogs). */
	open(): OpenedDialogs;
}

/**
 * Creates the dialog scope of one extension runtime: one AbortController per session, aborted at
 * `session_shutdown`, and the session captured from `identity` when a sequence opens.
 *
 * @example
 * const dialogs = createDialogScope(pi, trackLifecycle(pi));
 * pi.registerCommand("tidy", { handler: async (_args, ctx) => {
 *   const opened = dialogs.open();
 *   const ok = await ctx.ui.confirm("Tidy?", "Removes temp files.", { signal: opened.signal });
 *   if (!ok || !opened.current()) return;
 *   // … act on the session the dialog was shown in
 * } });
 */
export function createDialogScope(pi: Pick<ExtensionAPI, "on">, identity: LifecycleIdentity): DialogScope {
	let controller = new AbortController();
	pi.on("session_shutdown", () => {
		controller.abort();
		controller = new AbortController();
	});
	return {
		open() {
			const signal = controller.signal;
			const { nonce, sessionId } = identity.snapshot;
			return {
				signal,
				current: () => {
					const now = identity.snapshot;
					return !signal.aborted && now.active && now.nonce === nonce && now.sessionId === sessionId;
				},
			};
		},
	};
}
