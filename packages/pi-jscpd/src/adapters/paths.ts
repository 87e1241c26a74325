/**
 * Path rules: everything jscpd scans must stay inside the project root after symlink resolution, and
 * no user-supplied argument can be read as a jscpd option.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isInside, printablePath, toProjectPath } from "../core/project-paths.js";

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
