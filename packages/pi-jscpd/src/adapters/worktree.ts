/**
 * Detects files changed outside the built-in write/edit tools (bash, editors, other processes) with
 * neither git nor trust: a walk of the project's files (project-walk.ts) is taken with the baseline,
 * and each settle compares a fresh walk with the previous one, path by path (size, times, inode; a
 * content hash for racy files). In a trusted git repository git adds what a walk cannot tell: which
 * changes a checkout, pull, reset or stash pop brought in (head-moves.ts), so they count as
 * baseline, not as the session's work; and which recorded paths `.gitignore` hides from jscpd. In
 * an untrusted one git is not run: its HEAD log and index are read instead (git-files.ts).
 */
import { listPaths } from "../core/project-paths.js";
import { diffWalks, renamedFiles } from "../core/walk-diff.js";
import { broughtInByMove, headLogSize, ownGitDir } from "./git-files.js";
import { baseCommit, gitTopLevel, run } from "./git-probe.js";
import { type GitRefs, readRefs, rebaseOfMoves } from "./head-moves.js";
import type { SkippedIgnoreFile } from "./ignore-files.js";
import { type ProjectWalk, walkProject } from "./project-walk.js";

/** How changes outside write/edit are found (`none` before the first walk). */
export type DetectionMode = "none" | "files" | "files+git";

/**
 * Which files changed this session, as a check consumes it: the paths, how they were found, and why
 * the set may miss something. The one interface between change detection and the checks.
 */
export interface ChangeSet {
	/** Project paths (`/`-separated, relative to the root) changed this session by any means. */
	readonly paths: ReadonlySet<string>;
	/** How changes outside write/edit are found. */
	readonly mode: DetectionMode;
	/** Why the set may be incomplete (undefined when it is not). */
	readonly incomplete?: string;
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
	/** Files were renamed outside the tools (walk-diff.ts `renamedFiles`): a check re-baselines them. */
	readonly renamed?: true;
}

/** Where the git top level is, in a trusted git repository. */
interface GitBase {
	readonly topLevel: string;
}

/** A walk and the git refs read with it (trusted git only), or the size of the HEAD log (untrusted, git-files.ts). */
export interface Snapshot {
	readonly walk: ProjectWalk;
	readonly refs?: GitRefs;
	readonly headLog?: number;
}

const CAPTURE_WINDOW = "changed while the baseline was captured (duplicates there may count as old)";

/** Most recorded paths asked about in one `git check-ignore`. */
const MAX_CHECK_IGNORE = 500;

/**
 * Recorded project paths that `.gitignore` hides (`git check-ignore`, exit 1 when none): jscpd honours
 * `.gitignore` in a trusted git repository, so a duplicate written there is never scanned.
 */
async function ignoredPaths(root: string, known: readonly string[], signal: AbortSignal | undefined) {
	if (known.length === 0) return [];
	// `-z` needs `--stdin`; one path per line instead (core.quotePath is off for every probe command).
	const asked = new Set(known.slice(0, MAX_CHECK_IGNORE));
	const out = await run(["check-ignore", "--", ...asked], { root, trusted: true }, signal);
	return out?.split("\n").filter((line) => asked.has(line)) ?? [];
}

/**
 * Owns the walks of one project: the reference walk (taken with the session baseline), then one
 * comparison per settle. Paths already recorded through built-in write/edit since the last walk are
 * not reported again.
 */
export class OutsideChangeDetector {
	readonly #root: string;
	readonly #trusted: boolean;
	#git: GitBase | undefined;
	/** The project's own `.git` folder, read (never run) in an untrusted project (git-files.ts). */
	#gitDir: string | undefined;
	#resolvedGit = false;
	#reference: Snapshot | undefined;
	#last: Snapshot | undefined;
	readonly #recorded = new Set<string>();
	/** Files that existed before and changed outside write/edit while the baseline scan ran. */
	#absorbed: string[] = [];
	/** Recorded paths `.gitignore` hides (trusted git). */
	#gitIgnored: string[] = [];
	/** When the first reference walk was taken (commits after it are the session's own). */
	#startedAt = 0;
	/** The previous runtime's last walk (walk-handover.ts): the first comparison starts from it. */
	#handedOver: Snapshot | undefined;

	/**
	 * @param root Canonical project root.
	 * @param trusted Whether the user trusts the project; git runs and ignore files apply only then.
	 */
	constructor(root: string, trusted = false) {
		this.#root = root;
		this.#trusted = trusted;
	}

	/** How outside changes are detected. */
	get mode(): DetectionMode {
		if (!this.#last) return "none";
		return this.#git && this.#last.refs ? "files+git" : "files";
	}

	/** Ignore files the last walk refused to read (jscpd is kept from them too). */
	get skipped(): readonly SkippedIgnoreFile[] {
		return this.#last?.walk.skipped ?? [];
	}

	/** Why the last comparison may have missed changes (undefined when it saw everything). */
	get incomplete(): string | undefined {
		const window = this.#absorbed.length > 0 ? `${listPaths(this.#absorbed)} ${CAPTURE_WINDOW}` : undefined;
		const ignored =
			this.#gitIgnored.length > 0
				? `${listPaths(this.#gitIgnored)} ignored by .gitignore (jscpd does not scan it)`
				: undefined;
		return [this.#last?.walk.incomplete, window, ignored].filter(Boolean).join("; ") || undefined;
	}

	/** Notes a path recorded through a built-in tool since the last walk. */
	noteRecorded(path: string): void {
		this.#recorded.add(path);
	}

	async #take(signal: AbortSignal | undefined): Promise<Snapshot> {
		const walk = walkProject(this.#root, { trusted: this.#trusted, previous: this.#last?.walk });
		const refs = this.#git ? await readRefs(this.#root, this.#trusted, signal) : undefined;
		const headLog = this.#gitDir ? headLogSize(this.#gitDir) : undefined;
		return refs ? { walk, refs } : headLog === undefined ? { walk } : { walk, headLog };
	}

	/** Takes the reference walk; the first one also finds the git top level (trusted only). */
	async reset(signal?: AbortSignal): Promise<void> {
		if (!this.#resolvedGit) {
			const topLevel = this.#trusted ? await gitTopLevel(this.#root, signal, true) : undefined;
			const commit = topLevel ? await baseCommit(this.#root, signal, true) : undefined;
			this.#git = topLevel && commit ? { topLevel } : undefined;
			this.#gitDir = this.#trusted ? undefined : ownGitDir(this.#root);
			this.#resolvedGit = true;
			this.#startedAt = Date.now();
		}
		const snapshot = await this.#take(signal);
		this.#reference = snapshot;
		this.#last = this.#handedOver ?? snapshot;
		this.#handedOver = undefined;
		this.#recorded.clear();
	}

	/** The last walk, for the next runtime of this session (walk-handover.ts); the adopted one until a walk. */
	get last(): Snapshot | undefined {
		return this.#handedOver ?? this.#last;
	}

	/** Compares the first time with `last` (the previous runtime's last walk), not the reference walk. */
	adopt(last: Snapshot): void {
		this.#handedOver = last;
	}

	/**
	 * The baseline scan has finished. Files created outside write/edit since the reference walk are
	 * returned: they held no code before the session, so the baseline forgets what jscpd read in
	 * them. Files that existed and changed meanwhile are noted: jscpd may have read them after the
	 * change (their duplicates then count as old), so checks say so.
	 */
	captureEnd(hasOriginal: (path: string) => boolean): string[] {
		const before = this.#reference;
		if (!before) return [];
		const after = walkProject(this.#root, { trusted: this.#trusted, previous: before.walk });
		const changed = diffWalks(before.walk.files, after.files);
		this.#absorbed = changed.filter(
			(path) => before.walk.files.has(path) && after.files.has(path) && !hasOriginal(path),
		);
		return changed.filter((path) => !before.walk.files.has(path));
	}

	/** Compares with the previous walk: paths changed outside the built-in tools, and moves to rebase. */
	async detect(known: Iterable<string>, signal: AbortSignal): Promise<Detection> {
		const none: Detection = { outside: [], rebase: new Map() };
		const before = this.#last;
		if (!before) return none;
		const own = new Set(known);
		// Asked beside the walk and `show-ref` (it needs only the recorded paths): one git process less
		// to wait for per check.
		const ignored = this.#git ? ignoredPaths(this.#root, [...own], signal).catch(() => []) : undefined;
		const after = await this.#take(signal);
		if (signal.aborted) return none;
		const changed = diffWalks(before.walk.files, after.walk.files);
		const mine = new Set([...own, ...this.#recorded]);
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
						own: mine,
						signal,
					})
				: new Map<string, string | undefined>();
		if (signal.aborted) return none;
		if (this.#gitDir && changed.length > 0)
			for (const path of broughtInByMove({
				gitDir: this.#gitDir,
				before: before.headLog,
				after: after.headLog,
				changed,
				own: mine,
				files: after.walk.files,
			}))
				rebase.set(path, undefined);
		// A file renamed outside the tools holds baseline code under its new name: both names are
		// rebased from the next scan (the old one drops out), neither is the session's work.
		const renamed = renamedFiles(before.walk.files, after.walk.files, changed, mine);
		for (const [to, from] of renamed) {
			if (!rebase.has(to)) rebase.set(to, undefined);
			if (!rebase.has(from)) rebase.set(from, undefined);
		}
		if (ignored) this.#gitIgnored = await ignored;
		if (signal.aborted) return none;
		const outside = changed.filter((path) => !this.#recorded.has(path) && !rebase.has(path));
		this.#last = after;
		this.#recorded.clear();
		return renamed.size > 0 ? { outside, rebase, renamed: true } : { outside, rebase };
	}
}
