/**
 * Detects files changed outside the built-in write/edit tools (bash, editors, other processes) with a
 * cheap comparison at settle:
 *
 * - in a git work tree of a trusted project: `git status --porcelain -z --untracked-files=all` (the
 *   kit's runProcess: no shell, minimal environment, bounded output and time) lists dirty paths;
 *   each gets an mtime/size signature;
 * - elsewhere, and always in an untrusted project (git runs programs a repository's config names,
 *   see docs/security.md): the mtime/size signature of the files already known to this session.
 *
 * Two snapshots are compared path by path; a path whose signature differs changed.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { type ProjectTrust, runProcess } from "@pi-lifecycle/lifecycle-kit";
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
 * Runs git on a later macrotask (never inside the caller's handler); undefined on any failure,
 * abort, truncated output, or when the project is not trusted (git is never run then).
 *
 * - `GIT_OPTIONAL_LOCKS=0`: a background `git status` must not take the index lock it would
 *   otherwise take to refresh stat data, or the user's own git commands could fail with
 *   "index.lock exists" while a probe runs.
 * - Abort kills git on a later macrotask: the abort comes from inside a Pi handler (such as
 *   `input`), which must not pay for the kill.
 */
async function run(args: string[], trust: ProjectTrust, signal?: AbortSignal): Promise<string | undefined> {
	await nextMacrotask();
	if (signal?.aborted || !trust.trusted) return undefined;
	const deferred = new AbortController();
	const onAbort = () => setImmediate(() => deferred.abort());
	signal?.addEventListener("abort", onAbort, { once: true });
	const outcome = await runProcess({
		command: "git",
		args,
		cwd: trust.root,
		trust,
		env: { GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" },
		timeoutMs: 5_000,
		maxOutputBytes: 1024 * 1024,
		killGraceMs: 200,
		signal: deferred.signal,
	});
	signal?.removeEventListener("abort", onAbort);
	if (signal?.aborted || outcome.status !== "exited" || outcome.exitCode !== 0) return undefined;
	return outcome.stdout.truncated ? undefined : outcome.stdout.text;
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

/** Finds the git top level for `root` (undefined outside git and in an untrusted project). */
export async function gitTopLevel(
	root: string,
	signal?: AbortSignal,
	trusted = false,
): Promise<string | undefined> {
	const out = await run(["rev-parse", "--show-toplevel"], { root, trusted }, signal);
	return out?.trim() || undefined;
}

/** Takes a snapshot. `known` are project paths to sign even when git does not list them. */
export async function snapshotWorktree(
	root: string,
	topLevel: string | undefined,
	known: Iterable<string>,
	signal?: AbortSignal,
	trusted = false,
): Promise<WorktreeSnapshot> {
	const entries = new Map<string, string>();
	let mode: WorktreeSnapshot["mode"] = "stat";
	if (topLevel) {
		const out = await run(
			["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", "."],
			{ root, trusted },
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

	readonly #trusted: boolean;

	/**
	 * @param root Canonical project root.
	 * @param trusted Whether Pi trusts the project; git is never run otherwise.
	 */
	constructor(root: string, trusted = false) {
		this.#root = root;
		this.#trusted = trusted;
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
			this.#topLevel = await gitTopLevel(this.#root, signal, this.#trusted);
			this.#resolvedTopLevel = true;
		}
		this.#snapshot = await snapshotWorktree(this.#root, this.#topLevel, known, signal, this.#trusted);
		this.#recorded.clear();
	}

	/** Compares with the previous snapshot; returns paths changed outside the built-in tools. */
	async detect(known: Iterable<string>, signal: AbortSignal): Promise<string[]> {
		const before = this.#snapshot;
		if (!before) return [];
		const after = await snapshotWorktree(this.#root, this.#topLevel, known, signal, this.#trusted);
		if (signal.aborted) return [];
		const outside = diffSnapshots(this.#root, before, after).filter((path) => !this.#recorded.has(path));
		this.#snapshot = after;
		this.#recorded.clear();
		return outside;
	}
}
