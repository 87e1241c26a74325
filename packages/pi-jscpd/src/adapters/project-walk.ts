/**
 * One walk of the project's files (fdir: one `readdir` per folder) and a signature per file (one
 * `lstat`): size, mtime, ctime and inode. A file whose ctime is so recent that a later write within
 * the same clock tick could keep every field also gets a content hash (racy files, as git calls
 * them), so the signature can always decide. No file is opened otherwise; only regular files and
 * symlinks are listed (a FIFO or device is never opened).
 *
 * What is walked is what jscpd scans: folders of the default ignores are skipped when the scan
 * adds them (ignores.ts), and, in a trusted project only, the project's `.gitignore`, `.ignore` and
 * `.git/info/exclude` patterns apply. Ignore files are read only through {@link IgnoreFiles}
 * (regular, bounded); the ones it refuses are listed so a scan can keep jscpd away from them.
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fdir } from "fdir";
import type { WalkedFile } from "../core/walk-diff.js";
import { IgnoreFiles, type SkippedIgnoreFile } from "./ignore-files.js";
import { DEFAULT_IGNORES, defaultIgnores } from "./ignores.js";

/** Most files a walk lists (a larger project is compared on the first ones, and says so). */
export const MAX_WALKED_FILES = 500_000;
/** A file changed this recently (ms before the walk started) is hashed: its times may not tell a later change. */
const RACY_MS = 2_000;
/** Largest file hashed (jscpd skips larger files by default, so their content never matters). */
const MAX_HASHED_BYTES = 1024 * 1024;

/** What is known about one file: size, times, inode, and a content hash for a racy file only. */
export type FileSignature = WalkedFile;

/** One walk's result. */
export interface ProjectWalk {
	/** Project path (`/`-separated) → signature. */
	readonly files: ReadonlyMap<string, FileSignature>;
	/** Ignore files that were not read (and must not reach jscpd), with why. */
	readonly skipped: readonly SkippedIgnoreFile[];
	/** Why the walk may have missed files (undefined when it listed them all). */
	readonly incomplete?: string;
	/** When the walk started (ms since the epoch). */
	readonly startedAt: number;
}

function hashOf(absolute: string, size: number): string | undefined {
	if (size > MAX_HASHED_BYTES) return undefined;
	try {
		return createHash("sha1").update(readFileSync(absolute)).digest("hex");
	} catch {
		return undefined;
	}
}

/**
 * The signature of one listed file (lstat: a symlink is signed itself, never followed). Hashed when
 * racy now, or when `previous` was hashed and the times still match (only the content can tell then).
 */
export function signFile(
	absolute: string,
	startedAt: number,
	previous?: FileSignature,
): FileSignature | undefined {
	try {
		const stat = lstatSync(absolute);
		if (!stat.isFile() && !stat.isSymbolicLink()) return undefined;
		const signature = { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino };
		const recent = Math.max(stat.ctimeMs, stat.mtimeMs) >= startedAt - RACY_MS;
		const wasRacy =
			previous?.hash !== undefined && previous.size === stat.size && previous.mtimeMs === stat.mtimeMs;
		if (!stat.isFile() || !(recent || wasRacy)) return signature;
		const hash = hashOf(absolute, stat.size);
		// Kept while racy; once the times are old, kept only to show a change the times missed.
		return hash && (recent || hash !== previous?.hash) ? { ...signature, hash } : signature;
	} catch {
		return undefined;
	}
}

const DEFAULT_FOLDERS = new Set(
	DEFAULT_IGNORES.filter((glob) => glob.startsWith("**/") && glob.endsWith("/**")).map((glob) =>
		glob.slice(3, -3),
	),
);

/** Walks `root` (canonical) as a scan of it would see it; never throws. */
export function walkProject(
	root: string,
	options: {
		readonly trusted: boolean;
		/** The previous walk's files: a file hashed then is hashed again while its times match. */
		readonly previous?: ReadonlyMap<string, FileSignature>;
	},
): ProjectWalk {
	const startedAt = Date.now();
	const ignores = new IgnoreFiles(root, options.trusted);
	const defaults = defaultIgnores(root, options.trusted).length > 0;
	// fdir's full paths start with the root and a separator: slicing is the cheapest relative path.
	const cut = root.endsWith(sep) ? root.length : root.length + 1;
	const relativeOf = (absolute: string) =>
		sep === "/" ? absolute.slice(cut) : relative(root, absolute).split(sep).join("/");
	let crawler = new fdir()
		.withFullPaths()
		.withMaxFiles(MAX_WALKED_FILES + 1)
		.exclude((name, path) => {
			if (name === ".git" || (defaults && DEFAULT_FOLDERS.has(name))) return true;
			const rel = relativeOf(path.endsWith(sep) ? path.slice(0, -1) : path);
			return ignores.hides(rel, true);
		});
	// Folders of the default ignores were pruned above; minified files remain. An untrusted project's
	// ignore files hide nothing from the walk, so no file is asked about then.
	if (options.trusted || defaults)
		crawler = crawler.filter(
			(path) =>
				!(defaults && path.endsWith(".min.js")) &&
				!(options.trusted && ignores.hides(relativeOf(path), false)),
		);
	const paths = crawler.crawl(root).sync() as string[];
	const files = new Map<string, FileSignature>();
	const previous = options.previous;
	for (let i = 0; i < paths.length && i < MAX_WALKED_FILES; i++) {
		const absolute = paths[i] as string;
		const path = relativeOf(absolute);
		const signature = signFile(absolute, startedAt, previous?.get(path));
		if (signature) files.set(path, signature);
	}
	const incomplete =
		paths.length > MAX_WALKED_FILES ? `the project has more than ${MAX_WALKED_FILES} files` : undefined;
	return { files, skipped: ignores.skipped(), startedAt, ...(incomplete ? { incomplete } : {}) };
}

/** The walk's files as absolute paths (what jscpd is handed when an ignore file must not reach it). */
export function walkedFiles(root: string, walk: ProjectWalk): string[] {
	return [...walk.files.keys()].map((path) => join(root, path));
}
