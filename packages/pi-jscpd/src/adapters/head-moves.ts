/**
 * Moves of the work tree that are not the session's own work (issue 17): a checkout, pull, reset,
 * rebase, merge or stash pop brings in code that already existed, so the files it changed are
 * baseline, not new duplicates. Found by comparing `HEAD` and `refs/stash` between two probe
 * snapshots (git only, so only in a trusted project; see git-probe.ts):
 *
 * - `HEAD` moved: the paths that differ between the two commits, minus paths touched by commits the
 *   session made itself (HEAD reflog entries `commit…` since the session started, and commits that
 *   replay one of them with the same patch: a rebase, `pull --rebase` or cherry-pick; without a
 *   reflog, commits whose committer date is after the session start);
 * - the stash entry of the earlier snapshot is gone (popped or dropped) and was made before the
 *   session: the paths it held.
 *
 * The caller keeps only paths whose content changed since the last snapshot (a dropped stash changes
 * nothing) and that the session did not change itself.
 */
import { join } from "node:path";
import { patchKeys, samePatchAs } from "../core/patch-keys.js";
import { isInside, toProjectPath } from "../core/project-paths.js";
import { run } from "./git-probe.js";

/** `HEAD` and `refs/stash` at one snapshot (undefined: none, or git unavailable). */
export interface GitRefs {
	readonly head: string | undefined;
	readonly stash: string | undefined;
}

/** Largest file whose content is read back from git for a rebase (jscpd's default `--max-size`). */
const MAX_CONTENT_BYTES = 1024 * 1024;

/** Parses `git show-ref --head HEAD refs/stash` (pure). */
export function parseRefs(output: string | undefined): GitRefs {
	let head: string | undefined;
	let stash: string | undefined;
	for (const line of output?.split("\n") ?? []) {
		const [sha, name] = line.split(" ");
		if (name === "HEAD") head = sha;
		else if (name === "refs/stash") stash = sha;
	}
	return { head, stash };
}

/** Reads `HEAD` and `refs/stash` (both undefined when git fails). */
export async function readRefs(root: string, trusted: boolean, signal?: AbortSignal): Promise<GitRefs> {
	return parseRefs(await run(["show-ref", "--head", "HEAD", "refs/stash"], { root, trusted }, signal));
}

/**
 * Own commits among `HEAD` reflog lines `HEAD@{<unix time>}\t<sha>\t<subject>` (pure): `commit`,
 * `commit (amend)`, `commit (merge)`… entries made at or after `sinceSec`.
 */
export function ownCommitsOfReflog(output: string, sinceSec: number): Set<string> {
	const own = new Set<string>();
	for (const line of output.split("\n")) {
		const [selector = "", sha = "", subject = ""] = line.split("\t");
		const time = Number(/\{(\d+)\}/.exec(selector)?.[1]);
		if (time >= sinceSec && subject.startsWith("commit") && sha) own.add(sha);
	}
	return own;
}

/** Most commits compared by patch on one side (the session's own, or the ones a move brought in). */
const MAX_PATCH_COMMITS = 200;

/**
 * The commits among `others` (in the range a move brought in) that replay one of the session's own
 * commits (`own`, from the reflog): a rebase, `pull --rebase` or cherry-pick gives the session's
 * commit a new id with the same patch (patch-keys.ts). Their paths are the session's work.
 */
async function replayedOwnCommits(
	trust: { readonly root: string; readonly trusted: boolean },
	others: readonly string[],
	own: readonly string[],
	signal?: AbortSignal,
): Promise<string[]> {
	const candidates = others.slice(0, MAX_PATCH_COMMITS);
	const originals = own.filter((sha) => !others.includes(sha)).slice(0, MAX_PATCH_COMMITS);
	if (candidates.length === 0 || originals.length === 0) return [];
	const shown = await run(
		[
			"show",
			"--no-color",
			"--no-ext-diff",
			"--no-textconv",
			"--no-renames",
			"--format=%x00%H",
			"-p",
			...candidates,
			...originals,
			"--",
		],
		trust,
		signal,
	);
	return shown === undefined ? [] : samePatchAs(patchKeys(shown), candidates, originals);
}

function nulList(output: string | undefined): string[] {
	return output?.split("\0").filter(Boolean) ?? [];
}

/** What a move brought in: project path → the commit its content is read from. */
export type MovedPaths = ReadonlyMap<string, string>;

/** Finds the paths that {@link GitRefs} changes between two snapshots brought in (see the module comment). */
export async function movedPaths(options: {
	readonly root: string;
	readonly topLevel: string;
	readonly trusted: boolean;
	readonly before: GitRefs;
	readonly after: GitRefs;
	/** When the session started (ms since the epoch). */
	readonly sessionStart: number;
	readonly signal?: AbortSignal;
}): Promise<MovedPaths> {
	const { root, topLevel, before, after, signal } = options;
	const trust = { root, trusted: options.trusted };
	const since = Math.floor(options.sessionStart / 1000);
	const moved = new Map<string, string>();
	const add = (rels: readonly string[], source: string) => {
		for (const rel of rels) {
			const absolute = join(topLevel, rel);
			if (isInside(root, absolute)) moved.set(toProjectPath(root, absolute), source);
		}
	};
	if (before.head && after.head && before.head !== after.head) {
		const range = `${before.head}..${after.head}`;
		const [changed, reflog, commits] = await Promise.all([
			run(["diff", "--name-only", "-z", "--no-renames", before.head, after.head, "--", "."], trust, signal),
			run(
				["log", "-g", "--date=unix", "--format=%gd%x09%H%x09%gs", "-n", "2000", "HEAD", "--"],
				trust,
				signal,
			),
			run(["log", "--format=%H%x09%ct", range, "--"], trust, signal),
		]);
		const inRange = (commits ?? "").split("\n").filter(Boolean);
		const ownByReflog = ownCommitsOfReflog(reflog ?? "", since);
		const own = inRange
			.filter((line) => {
				const [sha = "", time = "0"] = line.split("\t");
				return reflog ? ownByReflog.has(sha) : Number(time) >= since;
			})
			.map((line) => line.split("\t")[0] ?? "");
		if (reflog) {
			const others = inRange.map((line) => line.split("\t")[0] ?? "").filter((sha) => !own.includes(sha));
			own.push(...(await replayedOwnCommits(trust, others, [...ownByReflog], signal)));
		}
		const ownPaths = new Set<string>();
		if (own.length > 0) {
			const names = await run(
				["log", "--no-walk=unsorted", "--format=", "--name-only", "-z", "--no-renames", ...own, "--"],
				trust,
				signal,
			);
			for (const rel of nulList(names)) ownPaths.add(rel);
		}
		add(
			nulList(changed).filter((rel) => !ownPaths.has(rel)),
			after.head,
		);
	}
	if (before.stash && before.stash !== after.stash) {
		const [list, time] = await Promise.all([
			after.stash ? run(["log", "-g", "--format=%H", "refs/stash", "--"], trust, signal) : "",
			run(["log", "-1", "--format=%ct", before.stash, "--"], trust, signal),
		]);
		const gone = list !== undefined && !list.split("\n").includes(before.stash);
		if (gone && time !== undefined && Number(time.trim()) < since) {
			const [tracked, untracked] = await Promise.all([
				run(
					["diff", "--name-only", "-z", "--no-renames", `${before.stash}^1`, before.stash, "--", "."],
					trust,
					signal,
				),
				run(["ls-tree", "-r", "--name-only", "-z", `${before.stash}^3`, "--", "."], trust, signal),
			]);
			add(nulList(tracked), before.stash);
			add(nulList(untracked), `${before.stash}^3`);
		}
	}
	return moved;
}

/** The content of `path` (a project path) at `source`, for rebasing a file the session also changed. */
export async function contentAt(
	root: string,
	trusted: boolean,
	source: string,
	path: string,
	signal?: AbortSignal,
): Promise<string | undefined> {
	// `./` makes the path relative to the working directory (the project root), not the top level.
	const text = await run(["show", `${source}:./${path}`], { root, trusted }, signal);
	return text === undefined || text.length > MAX_CONTENT_BYTES ? undefined : text;
}

/** Most of the session's own files read back at `HEAD` after a move (one `git show` each). */
export const MAX_OWN_READ_BACK = 200;

/**
 * The paths among `changed` (since the last snapshot) that a move brought in: baseline, with the
 * content right after the move for the session's own files (`own`), undefined for the rest (rebased
 * from the next scan). A file whose content cannot be read back stays as it is.
 *
 * After a move, the session's other own files (at most {@link MAX_OWN_READ_BACK}) are
 * read back at `HEAD` too: one may hold the original of a copy the move brought in, and with its
 * committed content both sides of that old pair are baseline (identity.ts `rebaseFromContents`).
 * A file not in `HEAD` (the session created it) stays as it is.
 */
export async function rebaseOfMoves(
	options: Parameters<typeof movedPaths>[0] & {
		readonly changed: readonly string[];
		/** The session's own files (written, edited or changed by its commands). */
		readonly own: ReadonlySet<string>;
	},
): Promise<Map<string, string | undefined>> {
	const rebase = new Map<string, string | undefined>();
	const moved = await movedPaths(options);
	const read = (source: string, path: string) =>
		contentAt(options.root, options.trusted, source, path, options.signal);
	for (const path of options.changed) {
		const source = moved.get(path);
		if (source === undefined) continue;
		if (!options.own.has(path)) rebase.set(path, undefined);
		else {
			const content = await read(source, path);
			if (content !== undefined) rebase.set(path, content);
		}
	}
	const head = options.after.head;
	if (moved.size === 0 || head === undefined) return rebase;
	let budget = MAX_OWN_READ_BACK;
	for (const path of options.own) {
		if (rebase.has(path) || moved.has(path)) continue;
		if (budget-- <= 0 || options.signal?.aborted) break;
		const content = await read(head, path);
		if (content !== undefined) rebase.set(path, content);
	}
	return rebase;
}
