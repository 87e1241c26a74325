/**
 * Path rules: everything jscpd scans must stay inside the project root after symlink resolution, and
 * no user-supplied argument can be read as a jscpd option.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** Most paths accepted by one `scan`. */
export const MAX_SCAN_PATHS = 32;
/** Longest accepted path argument. */
export const MAX_PATH_LENGTH = 4096;

/** The canonical (realpath) form of a directory, or undefined when it cannot be resolved. */
export function canonicalPath(path: string): string | undefined {
	try {
		return realpathSync.native(path);
	} catch {
		return undefined;
	}
}

/** Whether `candidate` is `root` or inside it (both canonical). */
export function isInside(root: string, candidate: string): boolean {
	const rel = relative(root, candidate);
	return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** A project-relative POSIX path for display and identities. */
export function toProjectPath(root: string, absolute: string): string {
	const rel = relative(root, absolute);
	return (rel === "" ? "." : rel).split(sep).join("/");
}

/** Unicode spaces Pi's tools read as a plain space (`normalizeUnicodeSpaces` in Pi's path utils). */
const UNICODE_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/**
 * The file a built-in write/edit tool touched for `path`, spelled as Pi's tools accept it
 * (`resolveToCwd` in Pi's `core/tools/path-utils`): Unicode spaces become plain spaces, one
 * leading `@` is dropped, `~` and `~/…` are the home directory, `file://` URLs are file paths.
 */
export function toolPath(cwd: string, path: string): string | undefined {
	let spelled = path.replace(UNICODE_SPACES, " ");
	if (spelled.startsWith("@")) spelled = spelled.slice(1);
	if (spelled === "~") spelled = homedir();
	else if (spelled.startsWith("~/")) spelled = join(homedir(), spelled.slice(2));
	else if (spelled.startsWith("file://")) {
		try {
			spelled = fileURLToPath(spelled);
		} catch {
			return undefined;
		}
	}
	return resolve(cwd, spelled);
}

/**
 * Canonicalises a path the agent wrote or edited: resolves it against the project root the way
 * Pi's tools do ({@link toolPath}), follows symlinks of the longest existing prefix, and returns the
 * project-relative path, or undefined when it ends up outside the project.
 */
export function projectPathOf(root: string, cwd: string, path: string): string | undefined {
	if (typeof path !== "string" || path.length === 0 || path.includes("\0")) return undefined;
	const absolute = toolPath(cwd, path);
	if (!absolute) return undefined;
	const canonical = canonicalPath(absolute) ?? canonicalParent(absolute);
	if (!canonical || !isInside(root, canonical)) return undefined;
	return toProjectPath(root, canonical);
}

function canonicalParent(absolute: string): string | undefined {
	const tail: string[] = [];
	let current = absolute;
	for (let depth = 0; depth < 256; depth++) {
		const parent = dirname(current);
		if (parent === current) return undefined;
		tail.unshift(basename(current));
		const canonical = canonicalPath(parent);
		if (canonical) return join(canonical, ...tail);
		current = parent;
	}
	return undefined;
}

/** Splits a command argument string on whitespace, honouring simple single/double quotes. */
export function tokenize(text: string): string[] {
	const tokens: string[] = [];
	const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
	for (const match of text.matchAll(pattern)) tokens.push(match[1] ?? match[2] ?? match[3] ?? "");
	return tokens;
}

/** The outcome of {@link validateScanPaths}. */
export type ScanPathsResult =
	| { readonly ok: true; readonly paths: readonly string[] }
	| { readonly ok: false; readonly error: string };

/**
 * Validates `scan` arguments: at most {@link MAX_SCAN_PATHS}, none empty, none starting with `-`,
 * none containing NUL, each existing and inside the canonical project root after symlink
 * resolution. Returns canonical absolute paths (jscpd also receives them after `--`).
 */
export function validateScanPaths(root: string, args: readonly string[]): ScanPathsResult {
	if (args.length > MAX_SCAN_PATHS) {
		return { ok: false, error: `too many paths (${args.length}); at most ${MAX_SCAN_PATHS} are accepted` };
	}
	// The argument is the model's (or the user's) text, the root the repository's name: both printable.
	const shown = (arg: string) => `"${printablePath(arg)}"`;
	const paths: string[] = [];
	for (const arg of args) {
		if (typeof arg !== "string" || arg.length === 0) return { ok: false, error: "empty path argument" };
		if (arg.includes("\0")) return { ok: false, error: "path arguments must not contain NUL bytes" };
		if (arg.length > MAX_PATH_LENGTH) return { ok: false, error: "path argument is too long" };
		if (arg.startsWith("-")) {
			return {
				ok: false,
				error: `${shown(arg)} looks like an option; jscpd options cannot be passed through scan`,
			};
		}
		const canonical = canonicalPath(resolve(root, arg));
		if (!canonical) return { ok: false, error: `${shown(arg)} does not exist` };
		if (!isInside(root, canonical)) {
			return {
				ok: false,
				error: `${shown(arg)} resolves outside the project root (${printablePath(root)})`,
			};
		}
		if (!paths.includes(canonical)) paths.push(canonical);
	}
	return { ok: true, paths };
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
