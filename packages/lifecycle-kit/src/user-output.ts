/**
 * Telling the user something, the same way in every pi-lifecycle package and every Pi mode.
 *
 * The no-UI policy (README "User output"):
 * - with a UI (`ctx.hasUI`): `ctx.ui.notify(text, level)`;
 * - without one, an `info` answer in print mode goes to stdout: it is what the user asked for
 *   (`/goal status`, `/reset status`), and print mode's stdout is text. Pi (1.3 and later) sends
 *   `process.stdout.write`, and so `console.log`, to stderr in print mode to keep stdout for the
 *   final answer; the answer is written past that redirect then (see {@link writeStdout});
 * - everything else goes to stderr (`console.error`) as one line prefixed with the extension's name
 *   (json and rpc modes keep stdout for the protocol, and a warning must not mix into an answer);
 * - a stale context (one that throws after a reload or session replacement) falls back to stderr.
 * Nothing here throws.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

/** Severity of a notice (Pi's `ctx.ui.notify` levels). */
export type NoticeLevel = "info" | "warning" | "error";

/** The part of a context that output needs. */
export type NoticeContext = Pick<ExtensionContext, "hasUI" | "ui" | "mode">;

function prefixed(source: string, text: string): string {
	return text.startsWith(`${source}:`) ? text : `${source}: ${text}`;
}

/**
 * Shows `text` to the user under the no-UI policy above. `source` names the extension (the stderr
 * prefix, added unless the text already starts with it). Without a context, writes to stderr.
 */
export function tellUser(
	ctx: NoticeContext | undefined,
	source: string,
	text: string,
	level: NoticeLevel = "info",
): void {
	try {
		if (ctx?.hasUI) {
			ctx.ui.notify(text, level);
			return;
		}
		if (ctx?.mode === "print" && level === "info") {
			if (stdoutRedirected()) writeStdout(`${text}\n`);
			else console.log(text);
			return;
		}
	} catch {
		// A stale context: stderr below.
	}
	console.error(prefixed(source, text));
}

/**
 * Whether this process's `process.stdout.write` is redirected by an instance-level patch. Pi's
 * print and json modes (the `pi` CLI, 1.3 to 1.6 at least) replace `process.stdout.write` with a
 * function that writes to stderr, so that only Pi's own output reaches stdout; an SDK host does
 * not. Used to tell Pi's print-mode CLI from an embedding process.
 */
export function stdoutRedirected(): boolean {
	try {
		return process.stdout.write !== Object.getPrototypeOf(process.stdout).write;
	} catch {
		return false;
	}
}

/**
 * Writes `text` to the process's real stdout, past a print-mode redirect: through the stream's own
 * (prototype) `write`, the function Pi itself keeps for its output, so the text queues in order
 * behind what Pi already wrote (json events) and the stream handles a full pipe. `console.log`
 * and `process.stdout.write` reach stderr in Pi's print mode. Nothing here throws.
 */
export function writeStdout(text: string): void {
	try {
		const write = Object.getPrototypeOf(process.stdout).write as typeof process.stdout.write;
		write.call(process.stdout, text);
	} catch {
		// A closed stdout: nothing to tell.
	}
}

/** A notice shown at most once per reporter (see {@link createOnceReporter}). */
export interface OnceReporter {
	/** Shows `text` as a warning unless this reporter already reported; returns whether it did now. */
	(ctx: NoticeContext | undefined, text: string): boolean;
	/** Whether it has reported. */
	readonly reported: boolean;
}

/**
 * A reporter that tells the user at most once, for example that malformed saved state was
 * skipped: a restore runs on every session start and tree navigation, the notice belongs to the
 * runtime. Create one per extension runtime (in the factory).
 */
export function createOnceReporter(source: string, level: NoticeLevel = "warning"): OnceReporter {
	let reported = false;
	const report = (ctx: NoticeContext | undefined, text: string): boolean => {
		if (reported) return false;
		reported = true;
		tellUser(ctx, source, text, level);
		return true;
	};
	return Object.defineProperty(report, "reported", { get: () => reported }) as OnceReporter;
}

/** One footer status entry (`ctx.ui.setStatus(key, …)`), see {@link createFooterStatus}. */
export interface FooterStatus {
	/**
	 * Shows `text` (undefined clears the entry). Pi is called only when the text or the context
	 * changed; a stale context is ignored (the new runtime owns the footer). Returns whether Pi
	 * took the text.
	 */
	set(ctx: Pick<ExtensionContext, "ui"> | undefined, text: string | undefined): boolean;
}

/** A stale-context-safe footer setter for one status key. */
export function createFooterStatus(key: string): FooterStatus {
	let shown: { ctx: object; text: string | undefined } | undefined;
	return {
		set(ctx, text) {
			if (!ctx) return false;
			if (shown && shown.ctx === ctx && shown.text === text) return true;
			try {
				ctx.ui.setStatus(key, text);
			} catch {
				return false;
			}
			shown = { ctx, text };
			return true;
		},
	};
}
