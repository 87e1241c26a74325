/**
 * The overview's dialog scope: one AbortController per session, aborted at `session_shutdown`, so
 * a session replacement or reload dismisses an open dialog. Each opened overview also captures the
 * lifecycle identity pi-jscpd uses to reject stale work, so an answer that arrives anyway (a
 * dialog that ignored the signal) is recognised as belonging to a session that is gone.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { LifecycleIdentity } from "@pi-lifecycle/lifecycle-kit";

/** The session one overview opened in. */
export interface OpenedDialogs {
	/** Passed to every dialog of this overview; aborted when the session shuts down. */
	readonly signal: AbortSignal;
	/** True while the session (and branch) the overview opened in is still the live one. */
	current(): boolean;
}

/** Dismisses open overview dialogs when the session is replaced or reloaded. */
export interface DialogScope {
	/** Captures the live session for one overview. */
	open(): OpenedDialogs;
}

/** Creates the dialog scope of one extension runtime. */
export function createDialogScope(pi: Pick<ExtensionAPI, "on">, identity: LifecycleIdentity): DialogScope {
	let controller = new AbortController();
	pi.on("session_shutdown", () => {
		controller.abort();
		controller = new AbortController();
	});
	return {
		open() {
			const signal = controller.signal;
			const guard = identity.guard();
			return { signal, current: () => !signal.aborted && guard.isCurrent() };
		},
	};
}
