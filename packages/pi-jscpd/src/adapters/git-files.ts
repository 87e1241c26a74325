/**
 * Checkouts in a project the user has not trusted, told from git's own files without running git
 * (a repository's config can name programs git runs, docs/security.md). The `pi` CLI's default
 * state is such a project, and an agent's `git checkout`, `pull`, `reset` or `merge` there writes
 * files that hold code that already existed: reported as new, an old copy among them is a false
 * finding. So, only when the project root itself holds a real `.git` folder (nothing outside the
 * project is read, no `.git` pointer file or symlink is followed):
 *
 * - `.git/logs/HEAD` (plain text, read in bounded slices) tells whether `HEAD` moved other than by
 *   a commit since the last snapshot;
 * - `.git/index` (bounded) holds the size, modification time and inode git recorded for each file
 *   it wrote: a changed file whose listing matches its entry exactly was written by git, so after
 *   such a move it is baseline, not the session's work.
 *
 * A file the session wrote or changed before stays its own; a copy a command makes and stages with
 * `git add` in the same turn as a checkout is indistinguishable and is left out (silence over a
 * false finding). A trusted repository asks git instead (head-moves.ts).
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { join } from "node:path";
import type { WalkedFile } from "../core/walk-diff.js";

/** Largest slice of the HEAD log read at once (its newest entries). */
const MAX_REFLOG_SLICE = 1024 * 1024;
/** Largest index read (about 200,000 entries). */
const MAX_INDEX_BYTES = 32 * 1024 * 1024;
/**
 * Longest path git stores (PATH_MAX). A version 4 index builds each path from the previous one: a
 * crafted index could grow one without bound and make each entry cost its length (minutes).
 */
const MAX_PATH_BYTES = 4096;

/** The project's own `.git` folder (a real folder in the root, not a symlink or pointer file). */
export function ownGitDir(root: string): string | undefined {
	const dir = join(root, ".git");
	return lstatSync(dir, { throwIfNoEntry: false })?.isDirectory() ? dir : undefined;
}

/** Reads `length` bytes at `offset` of a regular file (never a FIFO or device); undefined otherwise. */
function readSlice(file: string, offset: number, length: number): Buffer | undefined {
	let fd: number | undefined;
	try {
		if (!lstatSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
		fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
		if (!fstatSync(fd).isFile()) return undefined;
		const buffer = Buffer.alloc(length);
		const read = readSync(fd, buffer, 0, length, offset);
		return buffer.subarray(0, read);
	} catch {
		return undefined;
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

/** The HEAD log, when `logs` is a real folder (a symlink there could lead outside the project). */
function headLog(gitDir: string): string | undefined {
	const logs = join(gitDir, "logs");
	return lstatSync(logs, { throwIfNoEntry: false })?.isDirectory() ? join(logs, "HEAD") : undefined;
}

/** The size of the HEAD log (undefined without one): a snapshot's mark. */
export function headLogSize(gitDir: string): number | undefined {
	const log = headLog(gitDir);
	const stat = log ? lstatSync(log, { throwIfNoEntry: false }) : undefined;
	return stat?.isFile() ? stat.size : undefined;
}

/**
 * Whether the HEAD log entries written between two marks include a move other than a commit
 * (`checkout:`, `pull:`, `reset:`, `merge …`, `commit (merge)`, `rebase …`). A log that shrank was rewritten: moved.
 * An entry that leaves HEAD where it was wrote no file (`checkout -b`), unless it is a reset
 * (`reset --hard HEAD`, `stash`): read as a move, a copy staged beside it would be silent.
 */
export function movedBetween(gitDir: string, before: number, after: number): boolean {
	if (after === before) return false;
	if (after < before) return true;
	const from = Math.max(before, after - MAX_REFLOG_SLICE);
	const log = headLog(gitDir);
	const slice = log ? readSlice(log, from, after - from) : undefined;
	if (!slice) return true;
	return slice
		.toString("utf8")
		.split("\n")
		.some((line) => {
			const tab = line.indexOf("\t");
			const message = line.slice(tab + 1);
			const [from, to] = line.split(" ", 2);
			if (from === to && !message.startsWith("reset:")) return false;
			// A merge whose conflicts were resolved ends with `commit (merge)`: it wrote the other side's files.
			return tab >= 0 && (!message.startsWith("commit") || message.startsWith("commit (merge)"));
		});
}

/** What git recorded for a file it wrote (`.git/index`). */
interface IndexStat {
	readonly size: number;
	readonly mtimeMs: number;
	readonly ino: number;
}

/** The index entries of `wanted` paths (index versions 2–4; SHA-1 or SHA-256 object ids). */
export function indexEntries(gitDir: string, wanted: ReadonlySet<string>): Map<string, IndexStat> {
	const found = new Map<string, IndexStat>();
	const size = lstatSync(join(gitDir, "index"), { throwIfNoEntry: false })?.size ?? 0;
	if (wanted.size === 0 || size < 12 || size > MAX_INDEX_BYTES) return found;
	const data = readSlice(join(gitDir, "index"), 0, size);
	if (data?.toString("latin1", 0, 4) !== "DIRC") return found;
	const version = data.readUInt32BE(4);
	const count = data.readUInt32BE(8);
	if (version < 2 || version > 4) return found;
	const idLength = sha256Repository(gitDir) ? 32 : 20;
	let offset = 12;
	let previous = "";
	try {
		for (let i = 0; i < count && offset + 42 + idLength <= data.length; i++) {
			const start = offset;
			const flags = data.readUInt16BE(start + 40 + idLength);
			let at = start + 42 + idLength + (version >= 3 && flags & 0x4000 ? 2 : 0);
			let path: string;
			if (version === 4) {
				let byte = data[at++] ?? 0;
				let strip = byte & 0x7f;
				while (byte & 0x80) {
					byte = data[at++] ?? 0;
					strip = ((strip + 1) << 7) | (byte & 0x7f);
				}
				const end = data.indexOf(0, at);
				if (end < 0) break;
				const kept = Math.max(0, previous.length - strip);
				if (kept + end - at > MAX_PATH_BYTES) return new Map();
				path = previous.slice(0, kept) + data.toString("utf8", at, end);
				offset = end + 1;
			} else {
				const end = data.indexOf(0, at);
				if (end < 0) break;
				path = data.toString("utf8", at, end);
				offset = start + ((end - start + 8) & ~7);
			}
			previous = path;
			if (wanted.has(path))
				found.set(path, {
					mtimeMs: data.readUInt32BE(start + 8) * 1000 + data.readUInt32BE(start + 12) / 1e6,
					ino: data.readUInt32BE(start + 20),
					size: data.readUInt32BE(start + 36),
				});
		}
	} catch {
		return new Map();
	}
	return found;
}

/** Whether the repository names SHA-256 object ids (`objectformat` in its config). */
function sha256Repository(gitDir: string): boolean {
	const config = readSlice(join(gitDir, "config"), 0, 64 * 1024);
	return config !== undefined && /objectformat\s*=\s*sha256/i.test(config.toString("utf8"));
}

/** Whether git wrote the file as it is now: its listing matches the index entry exactly. */
function writtenByGit(file: WalkedFile, entry: IndexStat | undefined): boolean {
	return (
		entry !== undefined &&
		entry.size === file.size % 2 ** 32 &&
		entry.ino === file.ino % 2 ** 32 &&
		Math.abs(entry.mtimeMs - file.mtimeMs) < 0.01
	);
}

/**
 * The changed files a checkout, pull, reset or merge brought in between two HEAD log marks: files
 * not the session's (`own`) whose listing matches what git recorded for them. Empty when HEAD only
 * moved by commits, or without a HEAD log.
 */
export function broughtInByMove(options: {
	readonly gitDir: string;
	readonly before: number | undefined;
	readonly after: number | undefined;
	readonly changed: readonly string[];
	readonly own: ReadonlySet<string>;
	readonly files: ReadonlyMap<string, WalkedFile>;
}): string[] {
	const { gitDir, before, after, files } = options;
	if (before === undefined || after === undefined || !movedBetween(gitDir, before, after)) return [];
	const candidates = new Set(options.changed.filter((path) => !options.own.has(path) && files.has(path)));
	const entries = indexEntries(gitDir, candidates);
	return [...candidates].filter((path) => writtenByGit(files.get(path) as WalkedFile, entries.get(path)));
}
