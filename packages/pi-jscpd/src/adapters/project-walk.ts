/**
 * One walk of the project's files (one `readdir` per folder, or one `lstat` for a folder the previous
 * walk read and nothing was added to or removed from since) and a signature per file (one `lstat`):
 * size, mtime, ctime and inode. A file whose ctime is so recent that a later write within
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
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";
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

/** One folder as a walk read it: its own times and inode, when it was read, and its entries' names. */
export interface FolderListing {
	readonly ino: number;
	readonly mtimeMs: number;
	readonly ctimeMs: number;
	/** When the walk that read it started. */
	readonly readAt: number;
	/** Its files and symlinks. */
	readonly files: readonly string[];
	/** Its folders. */
	readonly folders: readonly string[];
	/** The ignore files among its entries (`.ignore`, `.gitignore`). */
	readonly ignoreNames: readonly string[];
}

/** One walk's result. */
export interface ProjectWalk {
	/** Project path (`/`-separated) → signature. */
	readonly files: ReadonlyMap<string, FileSignature>;
	/** Project path of each folder walked ("" for the root) → its listing (reused by the next walk). */
	readonly folders: ReadonlyMap<string, FolderListing>;
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
		const stat = lstatSync(absolute, { throwIfNoEntry: false });
		if (!stat || (!stat.isFile() && !stat.isSymbolicLink())) return undefined;
		const recent = Math.max(stat.ctimeMs, stat.mtimeMs) >= startedAt - RACY_MS;
		// Unchanged and settled (the common case): the previous signature is kept, nothing is allocated.
		if (
			previous !== undefined &&
			previous.hash === undefined &&
			!recent &&
			previous.size === stat.size &&
			previous.mtimeMs === stat.mtimeMs &&
			previous.ctimeMs === stat.ctimeMs &&
			previous.ino === stat.ino
		)
			return previous;
		const signature = { size: stat.size, mtimeMs: stat.mtimeMs, ctimeMs: stat.ctimeMs, ino: stat.ino };
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

/** Names of ignore files a folder listing remembers (of any type: a FIFO there is refused, not missed). */
const IGNORE_NAMES = [".ignore", ".gitignore"];

/**
 * Lists one folder, or hands back its previous listing when the folder's own times and inode are
 * unchanged (creating, deleting or renaming an entry moves them; writing a file does not) and were
 * already old when that listing was read (racy otherwise, like a file). One `lstat` instead of a
 * `readdir` for every folder nothing was added to or removed from. Undefined when not a folder.
 */
function listFolder(
	absolute: string,
	startedAt: number,
	previous?: FolderListing,
): FolderListing | undefined {
	try {
		const stat = lstatSync(absolute, { throwIfNoEntry: false });
		if (!stat?.isDirectory()) return undefined;
		if (
			previous !== undefined &&
			previous.ino === stat.ino &&
			previous.mtimeMs === stat.mtimeMs &&
			previous.ctimeMs === stat.ctimeMs &&
			Math.max(stat.mtimeMs, stat.ctimeMs) < previous.readAt - RACY_MS
		)
			return previous;
		const files: string[] = [];
		const folders: string[] = [];
		const ignoreNames: string[] = [];
		for (const entry of readdirSync(absolute, { withFileTypes: true })) {
			// As a crawler that does not follow symlinks lists them: a symlink is a file, never entered.
			if (entry.isFile() || entry.isSymbolicLink()) files.push(entry.name);
			else if (entry.isDirectory()) folders.push(entry.name);
			if (IGNORE_NAMES.includes(entry.name)) ignoreNames.push(entry.name);
		}
		const { ino, mtimeMs, ctimeMs } = stat;
		return { ino, mtimeMs, ctimeMs, readAt: startedAt, files, folders, ignoreNames };
	} catch {
		return undefined; // unreadable (permissions, removed meanwhile): skipped, as a crawler does
	}
}

/**
 * Walks `root` (canonical) as a scan of it would see it; never throws. With the `previous` walk, an
 * unchanged folder is not read again and an unchanged file keeps its signature object (no
 * allocation): a walk costs one `lstat` per folder and per file.
 */
export function walkProject(
	root: string,
	options: { readonly trusted: boolean; readonly previous?: ProjectWalk },
): ProjectWalk {
	const startedAt = Date.now();
	const { trusted, previous } = options;
	const folders = new Map<string, FolderListing>();
	const ignores = new IgnoreFiles(root, trusted, (folder, name) =>
		folders.get(folder)?.ignoreNames.includes(name),
	);
	const defaults = defaultIgnores(root, trusted).length > 0;
	const rootPrefix = root.endsWith(sep) ? root : root + sep;
	const absoluteOf = (path: string) => (sep === "/" ? rootPrefix + path : join(root, path));
	const files = new Map<string, FileSignature>();
	let listed = 0;
	const stack = [""];
	while (stack.length > 0 && listed <= MAX_WALKED_FILES) {
		const folder = stack.pop() as string;
		const listing = listFolder(
			folder === "" ? root : absoluteOf(folder),
			startedAt,
			previous?.folders.get(folder),
		);
		if (!listing) continue;
		folders.set(folder, listing);
		// Asked once its listing is known, so only the ignore files it holds are read.
		if (folder !== "" && ignores.hides(folder, true)) continue; // its listing is kept for the next walk
		const prefix = folder === "" ? "" : `${folder}/`;
		for (const name of listing.folders)
			if (name !== ".git" && !(defaults && DEFAULT_FOLDERS.has(name))) stack.push(prefix + name);
		for (const name of listing.files) {
			if (defaults && name.endsWith(".min.js")) continue;
			const path = prefix + name;
			if (trusted && ignores.hides(path, false)) continue;
			if (++listed > MAX_WALKED_FILES) break;
			const signature = signFile(absoluteOf(path), startedAt, previous?.files.get(path));
			if (signature) files.set(path, signature);
		}
	}
	const incomplete =
		listed > MAX_WALKED_FILES ? `the project has more than ${MAX_WALKED_FILES} files` : undefined;
	return { files, folders, skipped: ignores.skipped(), startedAt, ...(incomplete ? { incomplete } : {}) };
}

/** The walk's files as absolute paths (what jscpd is handed when an ignore file must not reach it). */
export function walkedFiles(root: string, walk: ProjectWalk): string[] {
	return [...walk.files.keys()].map((path) => join(root, path));
}
