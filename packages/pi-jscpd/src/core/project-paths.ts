/**
 * Project paths as pure arithmetic and text: containment and project-relative spelling of paths
 * that are already canonical (resolving them is the file system's job, adapters/paths.ts), and a
 * path printed so that it cannot forge a line or reorder a message.
 */
import { isAbsolute, relative, sep } from "node:path";

/** Whether `candidate` is `root` or inside it (both canonical). */
export function isInside(root: string, candidate: string): boolean {
	const rel = relative(root, candidate);
	return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * A relative path spelled with `/`, whatever the platform's separator: the one place pi-jscpd
 * converts separators (Windows writes `\`), for display, identities and ignore-file matching.
 */
export function posixPath(rel: string): string {
	return sep === "/" ? rel : rel.split(sep).join("/");
}

/** A project-relative POSIX path for display and identities. */
export function toProjectPath(root: string, absolute: string): string {
	const rel = relative(root, absolute);
	return posixPath(rel === "" ? "." : rel);
}

/**
 * Characters no repository- or model-controlled text may carry into a message raw: C0 and C1
 * controls (terminal escapes, line breaks), line and paragraph separators, bidi overrides and
 * isolates (which reorder what a line appears to say). One class for every sanitiser here.
 */
export const UNPRINTABLE_CLASS = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069";

const ESCAPED = new RegExp(`[\\\\${UNPRINTABLE_CLASS}]`, "g");

/**
 * A path (or a text embedding one) for the model or the user: {@link UNPRINTABLE_CLASS} escaped as
 * `\u{a}`, and a literal backslash doubled, so a file name cannot start a line of its own, reorder
 * what the message says, or spell an escape that reads like one of ours (`a\u{a}b`).
 */
export function printablePath(path: string): string {
	return path.replace(ESCAPED, (char) =>
		char === "\\" ? "\\\\" : `\\u{${char.codePointAt(0)?.toString(16)}}`,
	);
}

/** A clone location as text: `path:start-end`, the path printable. */
export function locationText(loc: {
	readonly path: string;
	readonly startLine: number;
	readonly endLine: number;
}) {
	return `${printablePath(loc.path)}:${loc.startLine}-${loc.endLine}`;
}

/** Up to three paths, then how many more (for status texts). */
export function listPaths(paths: readonly string[]): string {
	return (
		paths.slice(0, 3).map(printablePath).join(", ") +
		(paths.length > 3 ? ` and ${paths.length - 3} more` : "")
	);
}
