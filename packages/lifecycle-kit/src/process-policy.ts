/**
 * The trust rules of {@link runProcess} as pure-ish functions (file checks only): which executable
 * may run for a project, which environment a child gets, and containment by resolved real path.
 * See docs/security.md.
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { basename, delimiter, dirname, isAbsolute, join, relative, sep } from "node:path";
import { executableFileNames } from "./platform.js";

/** Whom a child process runs for. */
export interface ProjectTrust {
	/** The project directory (`ctx.cwd`); it is resolved to its real path before comparisons. */
	readonly root: string;
	/** `isExplicitlyTrusted(ctx)`. */
	readonly trusted: boolean;
}

/** The real path of `path`, or undefined when it cannot be resolved. */
export function realPath(path: string): string | undefined {
	try {
		return realpathSync.native(path);
	} catch {
		return undefined;
	}
}

/**
 * The real path of `path` even when its tail does not exist yet: the longest existing prefix is
 * resolved (symlinks, `..`, on-disk case and Unicode form) and the rest appended.
 */
export function realPathOrParent(path: string): string | undefined {
	const tail: string[] = [];
	let current = path;
	for (let depth = 0; depth < 256; depth++) {
		const resolved = realPath(current);
		if (resolved) return tail.length > 0 ? join(resolved, ...tail) : resolved;
		const parent = dirname(current);
		if (parent === current) return undefined;
		tail.unshift(basename(current));
		current = parent;
	}
	return undefined;
}

/** Whether `candidate` is `root` or inside it, comparing both as given (make them real paths first). */
export function isWithin(root: string, candidate: string): boolean {
	const rel = relative(root, candidate);
	return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Whether `path` (absolute) stays inside `root` once both are resolved to real paths. A path that
 * cannot be resolved at all counts as outside.
 */
export function isInsideReal(root: string, path: string): boolean {
	const realRoot = realPath(root) ?? root;
	const real = realPathOrParent(path);
	return real !== undefined && isWithin(realRoot, real);
}

function isExecutableFile(path: string): boolean {
	try {
		if (!statSync(path).isFile()) return false;
		accessSync(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

/**
 * The PATH entries an untrusted project cannot have planted: absolute, and outside the project
 * root after real-path resolution. Relative entries (`.`, `node_modules/.bin`) resolve against
 * the working directory, which is the project, so they are always dropped when untrusted.
 */
export function safePathEntries(pathEnv: string | undefined, trust: ProjectTrust): string[] {
	const entries = (pathEnv ?? "").split(delimiter).filter((entry) => entry.length > 0);
	if (trust.trusted) return entries;
	return entries.filter((entry) => isAbsolute(entry) && !isInsideReal(trust.root, entry));
}

/** The outcome of {@link resolveExecutable}. */
export type ResolvedExecutable =
	| { readonly ok: true; readonly path: string }
	| { readonly ok: false; readonly reason: string };

/**
 * Resolves `command` to an absolute executable: a bare name is searched on the safe PATH entries
 * ({@link safePathEntries}); an absolute path must be an executable file. For an untrusted
 * project the result must lie outside the project root by real path, unless `bundled` says the
 * caller resolved it from its own install (never from project input).
 */
export function resolveExecutable(
	command: string,
	trust: ProjectTrust,
	options: { readonly pathEnv?: string; readonly bundled?: boolean } = {},
): ResolvedExecutable {
	if (command.length === 0 || command.includes("\0")) return { ok: false, reason: "invalid executable name" };
	let found: string | undefined;
	if (isAbsolute(command)) {
		if (isExecutableFile(command)) found = command;
	} else if (!command.includes("/") && !command.includes("\\")) {
		const names = executableFileNames(command);
		search: for (const entry of safePathEntries(options.pathEnv ?? process.env.PATH, trust)) {
			for (const name of names) {
				const candidate = join(entry, name);
				if (isExecutableFile(candidate)) {
					found = candidate;
					break search;
				}
			}
		}
	} else {
		return { ok: false, reason: `${command}: a relative executable path is never run` };
	}
	if (!found) return { ok: false, reason: `${command} was not found` };
	if (!trust.trusted && !options.bundled && isInsideReal(trust.root, found)) {
		return { ok: false, reason: `${found} is inside the project, which is not trusted` };
	}
	return { ok: true, path: found };
}

/** Variables a child inherits from Pi's environment (the rest is dropped). */
export const ENV_ALLOWLIST: readonly string[] = Object.freeze([
	"HOME",
	"USER",
	"LOGNAME",
	"LANG",
	"LANGUAGE",
	"TZ",
	"TMPDIR",
	"TEMP",
	"TMP",
	"SYSTEMROOT",
	"WINDIR",
	"PATHEXT",
]);

/**
 * A minimal environment: {@link ENV_ALLOWLIST} and `LC_*` from `source`, PATH reduced to
 * {@link safePathEntries}, then `extra`. Everything else (`NODE_OPTIONS`, `LD_PRELOAD`, `GIT_*`,
 * tokens and keys) is dropped.
 */
export function minimalEnv(
	source: NodeJS.ProcessEnv,
	trust: ProjectTrust,
	extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [key, value] of Object.entries(source)) {
		if (value === undefined) continue;
		if (ENV_ALLOWLIST.includes(key) || key.startsWith("LC_")) env[key] = value;
	}
	env.PATH = safePathEntries(source.PATH, trust).join(delimiter);
	return { ...env, ...extra };
}
