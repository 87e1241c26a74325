/**
 * Detects files changed outside the built-in write/edit tools (bash, editors, other processes) with a
 * cheap comparison at settle:
 *
 * - in a git work tree of a trusted project: `git status --porcelain -z --untracked-files=all` (the
 *   kit's runProcess: no shell, minimal environment, bounded output and time) lists dirty paths,
 *   and `git diff --name-only <session-start commit>` the tracked paths that differ from the commit
 *   the session started on (so a change that was committed by the same command is still seen);
 *   each gets an mtime/size signature;
 * - elsewhere, and always in an untrusted project (git runs programs a repository's config names,
 *   see docs/security.md): the mtime/size signature of the files already known to this session.
 *
 * Two snapshots are compared path by path; a path whose signature differs changed. A snapshot that
 * could not list everything (output over the bound, more than {@link MAX_TRACKED_PATHS} paths, a
 * command outside the built-in tools in a project without git) says why in `incomplete`.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { isInside, listPaths, toProjectPath } from "../core/project-paths.js";
import { baseCommit, gitTopLevel, MAX_GIT_OUTPUT, parsePorcelain, run, runBounded } from "./git-probe.js";
import { type GitRefs, readRefs, rebaseOfMoves } from "./head-moves.js";

/** Most dirty paths considered. */
export const MAX_TRACKED_PATHS = 20_000;

/** Signatures of project paths. */
export interface WorktreeSnapshot {
	/** How the dirty set was found. */
	readonly mode: "git" | "stat";
	/** Project path → `mtimeMs:size` or `missing`. */
	readonly entries: ReadonlyMap<string, string>;
	/** Why the snapshot may miss changed paths (undefined when it lists them all). */
	readonly incomplete?: string;
	/** `HEAD` and `refs/stash` (git mode only). */
	readonly refs?: GitRefs;
}

/** What one comparison found. */
export interface Detection {
	/** Paths changed outside the built-in tools: the session's work. */
	readonly outside: string[];
	/**
	 * Paths a checkout, pull, reset, rebase, merge or stash pop changed (head-moves.ts): baseline,
	 * not new work. The content the session's own files had after the move (their baseline), or
	 * undefined: rebased from the next scan.
	 */
	readonly rebase: ReadonlyMap<string, string | undefined>;
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

/** Where to find changed paths: the git top level and the session-start commit, or neither. */
export interface GitBase {
	readonly topLevel: string;
	readonly commit: string;
}

/**
 * Takes a snapshot. `known` are project paths to sign even when git does not list them; `opaque`
 * says a command outside the built-in tools ran (only git can see what it changed).
 */
export async function snapshotWorktree(
	root: string,
	git: GitBase | undefined,
	known: Iterable<string>,
	signal?: AbortSignal,
	opaque = false,
	limit = MAX_GIT_OUTPUT,
	trusted = false,
): Promise<WorktreeSnapshot> {
	const paths = [...known];
	const entries = new Map<string, string>();
	const reasons: string[] = [];
	let mode: WorktreeSnapshot["mode"] = "stat";
	let refs: GitRefs | undefined;
	const add = (path: string, absolute: string) => {
		if (entries.has(path)) return;
		if (entries.size >= MAX_TRACKED_PATHS) {
			if (!reasons.includes(CAPPED)) reasons.push(CAPPED);
			return;
		}
		entries.set(path, signature(absolute));
	};
	if (git) {
		const [status, diff, heads] = await Promise.all([
			runBounded(
				["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", "."],
				{ root, trusted },
				signal,
				limit,
			),
			runBounded(
				["diff", "--name-only", "-z", "--no-renames", git.commit, "--", "."],
				{ root, trusted },
				signal,
				limit,
			),
			readRefs(root, trusted, signal),
		]);
		if (status.stdout !== undefined && diff.stdout !== undefined) {
			mode = "git";
			refs = heads;
			if (status.overflow || diff.overflow) reasons.push(`git listed more than ${limit} bytes of paths`);
			const rels = [...parsePorcelain(status.stdout), ...diff.stdout.split("\0").filter(Boolean)];
			for (const rel of rels) {
				const absolute = join(git.topLevel, rel);
				if (isInside(root, absolute)) add(toProjectPath(root, absolute), absolute);
			}
			const ignored = await ignoredPaths(root, paths, signal, trusted);
			if (ignored.length > 0)
				reasons.push(`${listPaths(ignored)} ignored by .gitignore (jscpd does not scan it)`);
		} else if (!signal?.aborted) reasons.push("git status failed");
	}
	if (mode === "stat" && opaque) {
		reasons.push(
			git && !trusted
				? "in an untrusted project git is not run, so files changed by commands (bash) are not visible (/trust the project to use git)"
				: "outside git, files changed by commands (bash) are not visible",
		);
	}
	for (const path of paths) add(path, join(root, path));
	return { mode, entries, incomplete: reasons.join("; ") || undefined, refs };
}

const CAPPED = `more than ${MAX_TRACKED_PATHS} changed paths`;

/** Most changed paths asked about in one `git check-ignore`. */
const MAX_CHECK_IGNORE = 500;

/**
 * Changed project paths that `.gitignore` hides (`git check-ignore`, exit 1 when none): jscpd honours
 * `.gitignore`, so a duplicate written there is never scanned.
 */
async function ignoredPaths(
	root: string,
	known: string[],
	signal: AbortSignal | undefined,
	trusted: boolean,
) {
	if (known.length === 0) return [];
	// `-z` needs `--stdin`; one path per line instead (core.quotePath is off for every probe command).
	const asked = new Set(known.slice(0, MAX_CHECK_IGNORE));
	const out = await run(["check-ignore", "--", ...asked], { root, trusted }, signal);
	return out?.split("\n").filter((line) => asked.has(line)) ?? [];
}

const CAPTURE_WINDOW = "changed while the baseline was captured (duplicates there may count as old)";

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
	#git: GitBase | undefined;
	#resolvedGit = false;
	#snapshot: WorktreeSnapshot | undefined;
	readonly #recorded = new Set<string>();
	/** A command outside the built-in tools ran this session (sticky: outside git its changes stay unseen). */
	#opaque = false;
	/** A command ran since the last snapshot; and whether the last comparison could not see it. */
	#commandSinceSnapshot = false;
	#unseenCommand = false;
	/** Paths changed outside write/edit while the baseline scan ran (see noteCaptureEnd). */
	#absorbed: string[] = [];

	readonly #trusted: boolean;
	/** When the first reference snapshot was taken (commits after it are the session's own). */
	#startedAt = 0;

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

	/** Why the last snapshot may have missed changes (undefined when it saw everything). */
	get incomplete(): string | undefined {
		const window = this.#absorbed.length > 0 ? `${listPaths(this.#absorbed)} ${CAPTURE_WINDOW}` : undefined;
		return [this.#snapshot?.incomplete, window].filter(Boolean).join("; ") || undefined;
	}

	/**
	 * The baseline scan has finished: jscpd may have read paths changed outside write/edit since the
	 * reference snapshot after the change (their duplicates then count as old), so checks say so.
	 */
	async noteCaptureEnd(known: Iterable<string>, signal?: AbortSignal): Promise<void> {
		const before = this.#snapshot;
		if (before?.mode !== "git") return;
		const after = await this.#take(known, signal);
		if (signal?.aborted || after.mode !== "git") return;
		this.#absorbed = diffSnapshots(this.#root, before, after).filter((path) => !this.#recorded.has(path));
	}

	/** Notes a path recorded through a built-in tool since the last snapshot. */
	noteRecorded(path: string): void {
		this.#recorded.add(path);
	}

	/** Notes that a command outside the built-in tools (bash) ran. */
	noteOpaque(): void {
		this.#opaque = true;
		this.#commandSinceSnapshot = true;
	}

	/** Whether a command (bash) ran before the last comparison that could not see its changes (outside git). */
	get unseenCommand(): boolean {
		return this.#unseenCommand;
	}

	#take(known: Iterable<string>, signal: AbortSignal | undefined): Promise<WorktreeSnapshot> {
		return snapshotWorktree(
			this.#root,
			this.#git,
			known,
			signal,
			this.#opaque,
			MAX_GIT_OUTPUT,
			this.#trusted,
		);
	}

	/** Takes the reference snapshot; the first one also fixes the session-start commit. */
	async reset(known: Iterable<string>, signal?: AbortSignal): Promise<void> {
		if (!this.#resolvedGit) {
			const topLevel = await gitTopLevel(this.#root, signal, this.#trusted);
			const commit = topLevel ? await baseCommit(this.#root, signal, this.#trusted) : undefined;
			this.#git = topLevel && commit ? { topLevel, commit } : undefined;
			this.#resolvedGit = true;
			this.#startedAt = Date.now();
		}
		this.#snapshot = await this.#take(known, signal);
		this.#recorded.clear();
		this.#commandSinceSnapshot = false;
	}

	/** Compares with the previous snapshot: paths changed outside the built-in tools, and moves to rebase. */
	async detect(known: Iterable<string>, signal: AbortSignal): Promise<Detection> {
		const none: Detection = { outside: [], rebase: new Map() };
		const before = this.#snapshot;
		if (!before) return none;
		const own = new Set(known);
		const after = await this.#take(own, signal);
		if (signal.aborted) return none;
		const changed = diffSnapshots(this.#root, before, after);
		const rebase =
			this.#git && before.refs && after.refs && changed.length > 0
				? await rebaseOfMoves({
						root: this.#root,
						topLevel: this.#git.topLevel,
						trusted: this.#trusted,
						before: before.refs,
						after: after.refs,
						sessionStart: this.#startedAt,
						changed,
						own: new Set([...own, ...this.#recorded]),
						signal,
					})
				: new Map<string, string | undefined>();
		if (signal.aborted) return none;
		const outside = changed.filter((path) => !this.#recorded.has(path) && !rebase.has(path));
		this.#snapshot = after;
		this.#recorded.clear();
		this.#unseenCommand = this.#commandSinceSnapshot && after.mode === "stat";
		this.#commandSinceSnapshot = false;
		return { outside, rebase };
	}
}
