/**
 * Telling the user something, the same way in every pi-lifecycle package and every Pi mode.
 *
 * The no-UI policy (README "User output"):
 * - with a UI (`ctx.hasUI`): `ctx.ui.notify(text, level)`;
 * - without one, an `info` answer in print mode goes to stdout: it is what the user asked for
 *   (`/goal status`, `/reset status`), and print mode's stdout is text. Pi (1.3 and later) sends
 *   `process.stdout.write`, and so `console.log`, to stderr in print mode to keep stdout for the
 *   final answer; the answer is written to file descriptor 1 then (see {@link writeStdout});
 * - everything else goes to stderr (`console.error`) as one line prefixed with the extension's name
 *   (json and rpc modes keep stdout for the protocol, and a warning must not mix into an answer);
 * - a stale context (one that throws after a reload or session replacement) falls back to stderr.
 * Nothing here throws.
 */
import { writeSync } from "node:fs";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

/** Severity of a notice (Pi's `ctx.ui.notify` levels). */
export type NoticeLevel = "info" | "warning" | "error";

/** The part of a context that output needs. */
export type NoticeContext = Pick<ExtensionContext, "hasUI" | "ui" | "mode">;

function prefixed(source: string, text: string): string {
	return text.startsWith(`${source}:`) ? text : `${source}: ${text}`;
}

/** How often a write to a full non-blocking stdout is retried (1 ms apart) before giving up. */
const STDOUT_RETRIES = 1_000;

/**
 * Writes one line to the process's real stdout. When the host replaced `process.stdout.write` (Pi's
 * output guard in print, json and rpc modes assigns its own `write` that forwards to stderr), the
 * line goes to file descriptor 1 directly; otherwise through `console.log` as usual. A line that
 * cannot be written there goes to stderr, so it is never lost.
 */
export function writeStdout(line: string): void {
	if (!Object.hasOwn(process.stdout, "write")) {
		console.log(line);
		return;
	}
	const bytes = Buffer.from(`${line}\n`, "utf8");
	let written = 0;
	for (let attempt = 0; written < bytes.length; ) {
		try {
			written += writeSync(1, bytes, written, bytes.length - written);
		} catch (error) {
			// A pipe in non-blocking mode that is full: wait for the reader, a bounded number of times.
			if ((error as NodeJS.ErrnoException).code !== "EAGAIN" || ++attempt > STDOUT_RETRIES) {
				if (written === 0) console.error(line);
				return;
			}
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
		}
	}
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
			writeStdout(text);
			return;
		}
	} catch {
		// A stale context: stderr below.
	}
	console.error(prefixed(source, text));
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
