/**
 * Detects files changed outside the built-in write/edit tools (bash, editors, other processes) with a
 * cheap comparison at settle:
 *
 * - in a git work tree: `git status --porcelain -z --untracked-files=all` (execFile, no shell,
 *   bounded output and time) lists dirty paths; each gets an mtime/size signature;
 * - elsewhere: the mtime/size signature of the files already known to this session.
 *
 * Two snapshots are compared path by path; a path whose signature differs changed.
 */
import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { nextMacrotask } from "./defer.js";
import { isInside, toProjectPath } from "./paths.js";

/** Most dirty paths considered. */
export const MAX_TRACKED_PATHS = 2_000;

/** Signatures of project paths. */
export interface WorktreeSnapshot {
	/** How the dirty set was found. */
	readonly mode: "git" | "stat";
	/** Project path → `mtimeMs:size` or `missing`. */
	readonly entries: ReadonlyMap<string, string>;
}

/** The mtime/size signature of one file. */
export function signature(absolute: string): string {
	try {
		const stat = statSync(absolute);
		return `${stat.mtimeMs}:${stat.size}`;
	} catch {
		return "missing";
	}
}

/**
 * Runs git on a later macrotask (never inside the caller's handler); undefined on any failure or abort.
 *
 * - `GIT_OPTIONAL_LOCKS=0`: a background `git status` must not take the index lock it would
 *   otherwise take to refresh stat data, or the user's own git commands could fail with
 *   "index.lock exists" while a probe runs.
 * - Abort kills git on a later macrotask with a plain `kill()`: execFile's own `signal` handling
 *   runs inside the aborting call (a Pi handler such as `input`) and costs about 0.5 ms there.
 */
async function run(args: string[], cwd: string, signal?: AbortSignal): Promise<string | undefined> {
	await nextMacrotask();
	if (signal?.aborted) return undefined;
	return new Promise((resolve) => {
		const onAbort = () => setImmediate(() => child.kill());
		const child = execFile(
			"git",
			args,
			{
				cwd,
				timeout: 5_000,
				maxBuffer: 1024 * 1024,
				encoding: "utf8",
				env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
			},
			(error, stdout) => {
				signal?.removeEventListener("abort", onAbort);
				resolve(error || signal?.aborted ? undefined : stdout);
			},
		);
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}

/** Parses `git status --porcelain -z` output into repository-relative paths (pure). */
export function parsePorcelain(output: string): string[] {
	const paths: string[] = [];
	const records = output.split("\0");
	for (let i = 0; i < records.length; i++) {
		const record = records[i] ?? "";
		if (record.length < 4) continue;
		const status = record.slice(0, 2);
		paths.push(record.slice(3));
		// Renames and copies carry the source path in the next record.
		if (status.includes("R") || status.includes("C")) i++;
	}
	return paths;
}

/** Finds the git top level for `root` (undefined outside git). */
export async function gitTopLevel(root: string, signal?: AbortSignal): Promise<string | undefined> {
	const out = await run(["rev-parse", "--show-toplevel"], root, signal);
	return out?.trim() || undefined;
}

/** Takes a snapshot. `known` are project paths to sign even when git does not list them. */
export async function snapshotWorktree(
	root: string,
	topLevel: string | undefined,
	known: Iterable<string>,
	signal?: AbortSignal,
): Promise<WorktreeSnapshot> {
	const entries = new Map<string, string>();
	let mode: WorktreeSnapshot["mode"] = "stat";
	if (topLevel) {
		const out = await run(
			["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", "."],
			root,
			signal,
		);
		if (out !== undefined) {
			mode = "git";
			for (const rel of parsePorcelain(out)) {
				if (entries.size >= MAX_TRACKED_PATHS) break;
				const absolute = join(topLevel, rel);
				if (!isInside(root, absolute)) continue;
				entries.set(toProjectPath(root, absolute), signature(absolute));
			}
		}
	}
	for (const path of known) {
		if (entries.size >= MAX_TRACKED_PATHS) break;
		if (!entries.has(path)) entries.set(path, signature(join(root, path)));
	}
	return { mode, entries };
}

/** Paths whose signature changed between two snapshots; paths missing from one side are re-signed. */
export function diffSnapshots(root: string, before: WorktreeSnapshot, after: WorktreeSnapshot): string[] {
	const changed: string[] = [];
	const paths = new Set([...before.entries.keys(), ...after.entries.keys()]);
	for (const path of paths) {
		const now = after.entries.get(path) ?? signature(join(root, path));
		const then = before.entries.get(path);
		// A path that was clean before and is dirty now changed; a clean-before path that is still
		// clean is not listed at all.
		if (then === undefined ? after.entries.has(path) : then !== now) changed.push(path);
	}
	return changed.sort();
}

/**
 * Owns the snapshots of one project: a baseline snapshot (taken with the session baseline), then
 * one comparison per settle. Paths already recorded through built-in write/edit since the last
 * snapshot are not reported again.
 */
export class OutsideChangeDetector {
	readonly #root: string;
	#topLevel: string | undefined;
	#resolvedTopLevel = false;
	#snapshot: WorktreeSnapshot | undefined;
	readonly #recorded = new Set<string>();

	/** @param root Canonical project root. */
	constructor(root: string) {
		this.#root = root;
	}

	/** How outside changes are detected (`none` before the first snapshot). */
	get mode(): WorktreeSnapshot["mode"] | "none" {
		return this.#snapshot?.mode ?? "none";
	}

	/** Notes a path recorded through a built-in tool since the last snapshot. */
	noteRecorded(path: string): void {
		this.#recorded.add(path);
	}

	/** Takes the reference snapshot. */
	async reset(known: Iterable<string>, signal?: AbortSignal): Promise<void> {
		if (!this.#resolvedTopLevel) {
			this.#topLevel = await gitTopLevel(this.#root, signal);
			this.#resolvedTopLevel = true;
		}
		this.#snapshot = await snapshotWorktree(this.#root, this.#topLevel, known, signal);
		this.#recorded.clear();
	}

	/** Compares with the previous snapshot; returns paths changed outside the built-in tools. */
	async detect(known: Iterable<string>, signal: AbortSignal): Promise<string[]> {
		const before = this.#snapshot;
		if (!before) return [];
		const after = await snapshotWorktree(this.#root, this.#topLevel, known, signal);
		if (signal.aborted) return [];
		const outside = diffSnapshots(this.#root, before, after).filter((path) => !this.#recorded.has(path));
		this.#snapshot = after;
		this.#recorded.clear();
		return outside;
	}
}
