/**
 * Clone identity that does not depend on how jscpd pairs copies (pure).
 *
 * jscpd 5.x reports every copy of a block paired with one other copy (the alphabetically first),
 * so a pair changes whenever a copy is removed, renamed or added, although no code was copied.
 * Identity is therefore defined per **location**, on the duplicated content and the location's own
 * file, never on its partner:
 *
 * - every significant line of a reported fragment (whitespace-normalised, at least two word
 *   characters) gets a 32-bit hash;
 * - a {@link LineIndex} counts, per file and project-wide, how often each hash occurs inside a
 *   reported clone location (a line covered by several pairs counts once);
 * - a current location is **new** when most of its significant lines occur more often now than
 *   in the baseline, both in its own file and in the whole project. A copy that was removed, a
 *   file renamed or moved, a pair that jscpd re-paired, an edit inside or around an old block (the
 *   remaining duplicated lines were duplicated before): none of these grows a count.
 *
 * A finding's identity (what acknowledgement records) is a digest of its new locations only:
 * path and line hashes, never the partner or line numbers. When a file holds the content more
 * than once, the identity carries the number of copies (copy-keys.ts), never which copy it is.
 */
import { createHash } from "node:crypto";
import { withCopies } from "./copy-keys.js";
import { shapeHashes } from "./kinds.js";
import { type CloneGroup, type CloneLocation, fragmentHashes } from "./report.js";

/** Occurrences of line hashes inside clone locations, per project path and in total. */
export interface LineIndex {
	/** Project path → line hash → occurrences. */
	readonly perPath: ReadonlyMap<string, ReadonlyMap<number, number>>;
	/** Line hash → occurrences in the whole project. */
	readonly total: ReadonlyMap<number, number>;
}

/** The empty index. */
export const EMPTY_INDEX: LineIndex = { perPath: new Map(), total: new Map() };

function bump(map: Map<number, number>, hash: number, by = 1): void {
	map.set(hash, (map.get(hash) ?? 0) + by);
}

/**
 * Indexes the clone locations of a report: each covered line of a file counted once per hash
 * family, its exact hash and its shape (kinds.ts). An exact clone records both, since an exact copy
 * is also a renamed one (jscpd reports it once, as exact); renamed and similar clones record
 * shapes. Otherwise a line whose exact clone became a near-copy (an edit inside an old block) or
 * went away (its other copy removed) would show its shape for the first time and look new.
 */
export function indexGroups(groups: readonly CloneGroup[]): LineIndex {
	const lines = new Map<string, Map<number, number>>();
	// Shape-hashed lines are keyed by their negated line number, apart from exact ones.
	const cover = (covered: Map<number, number>, hashes: readonly number[], line: number, sign: 1 | -1) => {
		hashes.forEach((hash, i) => {
			const key = sign * (line + i);
			if (hash >= 0 && !covered.has(key)) covered.set(key, hash);
		});
	};
	for (const group of groups) {
		const exact = group.kind === undefined || group.kind === "exact";
		for (const loc of group.locations) {
			let covered = lines.get(loc.path);
			if (!covered) {
				covered = new Map();
				lines.set(loc.path, covered);
			}
			cover(covered, group.hashes, loc.startLine, exact ? 1 : -1);
			if (exact && group.shapes) cover(covered, group.shapes, loc.startLine, -1);
		}
	}
	const perPath = new Map<string, Map<number, number>>();
	const total = new Map<number, number>();
	for (const [path, covered] of lines) {
		const counts = new Map<number, number>();
		for (const hash of covered.values()) {
			bump(counts, hash);
			bump(total, hash);
		}
		perPath.set(path, counts);
	}
	return { perPath, total };
}

/** Whether `loc` of `group` holds duplicated code that was not there (in its file or anywhere) at the baseline. */
export function isNewLocation(
	group: CloneGroup,
	loc: CloneLocation,
	now: LineIndex,
	base: LineIndex,
): boolean {
	const hashes = group.hashes.filter((hash) => hash >= 0);
	if (hashes.length === 0) return false;
	const nowHere = now.perPath.get(loc.path);
	const baseHere = base.perPath.get(loc.path);
	let grown = 0;
	for (const hash of hashes) {
		const inFile = (nowHere?.get(hash) ?? 0) > (baseHere?.get(hash) ?? 0);
		const inProject = (now.total.get(hash) ?? 0) > (base.total.get(hash) ?? 0);
		if (inFile && inProject) grown++;
	}
	return grown * 2 > hashes.length;
}

/**
 * The identity of a finding: its new locations (path and content), independent of the partner;
 * with the number of copies when a file holds the content more than once (copy-keys.ts).
 */
export function findingIdentity(group: CloneGroup, fresh: readonly CloneLocation[]): string {
	const content = group.hashes.filter((hash) => hash >= 0).join(",");
	// One key per file: two copies in one file are counted (`copies`), not listed twice.
	const keys = [...new Set(fresh.map((loc) => `${loc.path}#${content}`))].sort();
	// Exact identities stay as they were before kinds existed (acknowledgements already recorded).
	const kind = group.kind === undefined || group.kind === "exact" ? [] : [group.kind];
	const base = createHash("sha256")
		.update(JSON.stringify([group.format, keys, ...kind]))
		.digest("hex")
		.slice(0, 32);
	return withCopies(base, copiesOf(fresh));
}

/** Copies a finding over `locations` covers: one, plus each of their files' extra copies. */
export function copiesOf(locations: readonly CloneLocation[]): number {
	const perPath = new Map<string, number>();
	for (const loc of locations) perPath.set(loc.path, Math.max(loc.copies ?? 1, perPath.get(loc.path) ?? 1));
	let copies = 1;
	for (const count of perPath.values()) copies += count - 1;
	return copies;
}

/**
 * About how many copies of `group`'s content `path` held in `index`: the count most of the
 * content's significant lines reach (a line hash occurring k times per copy counts k per copy).
 */
export function copiesInIndex(group: CloneGroup, path: string, index: LineIndex): number {
	const counts = index.perPath.get(path);
	const perCopy = new Map<number, number>();
	for (const hash of group.hashes) if (hash >= 0) bump(perCopy, hash);
	if (!counts || perCopy.size === 0) return 0;
	const reached = [...perCopy]
		.map(([hash, k]) => Math.floor((counts.get(hash) ?? 0) / k))
		.sort((a, b) => b - a);
	return reached[Math.floor(reached.length / 2)] ?? 0;
}

/** The persisted form: project path → space-separated hex hashes (repeated per occurrence). */
export function serialiseIndex(index: LineIndex): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [path, counts] of index.perPath) {
		const parts: string[] = [];
		for (const [hash, count] of counts) {
			const hex = hash.toString(16);
			for (let i = 0; i < count; i++) parts.push(hex);
		}
		out[path] = parts.join(" ");
	}
	return out;
}

/** Reads {@link serialiseIndex}'s form; undefined when it is malformed. */
export function deserialiseIndex(raw: unknown): LineIndex | undefined {
	if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return undefined;
	const perPath = new Map<string, Map<number, number>>();
	const total = new Map<number, number>();
	for (const [path, value] of Object.entries(raw)) {
		if (typeof value !== "string") return undefined;
		const counts = new Map<number, number>();
		for (const hex of value.split(" ")) {
			if (hex === "") continue;
			const hash = Number.parseInt(hex, 16);
			if (!Number.isSafeInteger(hash) || hash < 0 || hash > 0xffffffff) return undefined;
			bump(counts, hash);
			bump(total, hash);
		}
		perPath.set(path, counts);
	}
	return { perPath, total };
}

/**
 * A baseline captured after the session already changed some files: each such file's entry is
 * rebuilt from its content before the change. A line of that content counts as duplicated when it
 * occurs inside a clone location of another file (jscpd did not see this content, so its exact
 * clone ranges are unknown; a line duplicated elsewhere was part of one in all but rare cases).
 * Line shapes (renamed and similar clones, kinds.ts) are rebuilt the same way.
 */
export function rebaseIndex(index: LineIndex, originals: ReadonlyMap<string, string>): LineIndex {
	if (originals.size === 0) return index;
	const perPath = new Map(index.perPath);
	const total = new Map(index.total);
	for (const [path, text] of originals) {
		for (const [hash, count] of perPath.get(path) ?? []) bump(total, hash, -count);
		const counts = new Map<number, number>();
		for (const hash of [...fragmentHashes(text), ...shapeHashes(text)])
			if (hash >= 0 && (total.get(hash) ?? 0) > 0) bump(counts, hash);
		for (const [hash, count] of counts) bump(total, hash, count);
		perPath.set(path, counts);
	}
	return { perPath, total };
}

/**
 * A checkout, pull, reset or stash pop brought `moved` in: code that already existed. Their
 * entries, and those of every file they share a clone group with (the session's own files
 * excepted), are taken from the current report `groups`, so neither side of such a clone counts as
 * new, while a copy the session made still grows the project-wide count.
 */
export function rebaseFromReport(
	index: LineIndex,
	groups: readonly CloneGroup[],
	moved: ReadonlySet<string>,
	own: (path: string) => boolean,
): LineIndex {
	const paths = new Set([...moved].filter((path) => !own(path)));
	for (const group of groups) {
		if (!group.locations.some((loc) => moved.has(loc.path))) continue;
		for (const loc of group.locations) if (!own(loc.path)) paths.add(loc.path);
	}
	if (paths.size === 0) return index;
	const now = indexGroups(groups);
	const perPath = new Map(index.perPath);
	for (const path of paths) {
		const counts = now.perPath.get(path);
		if (counts) perPath.set(path, counts);
		else perPath.delete(path);
	}
	const total = new Map<number, number>();
	for (const counts of perPath.values()) for (const [hash, count] of counts) bump(total, hash, count);
	return { perPath, total };
}

/**
 * After a move, the session's own files get the content the move left them (`contents`): each
 * one's entry becomes the lines the current report finds duplicated in it that the content already
 * held (line hashes and shapes, counted with multiplicity). A pair that the move brought in (the
 * copy and its original, both edited later by the session) is then baseline on both sides, while a
 * line the session added afterwards is not in the content and still counts as new.
 */
export function rebaseFromContents(
	index: LineIndex,
	groups: readonly CloneGroup[],
	contents: ReadonlyMap<string, string>,
): LineIndex {
	if (contents.size === 0) return index;
	const now = indexGroups(groups);
	const perPath = new Map(index.perPath);
	for (const [path, text] of contents) {
		const held = new Map<number, number>();
		for (const hash of [...fragmentHashes(text), ...shapeHashes(text)]) if (hash >= 0) bump(held, hash);
		const counts = new Map<number, number>();
		for (const [hash, count] of now.perPath.get(path) ?? []) {
			const kept = Math.min(count, held.get(hash) ?? 0);
			if (kept > 0) counts.set(hash, kept);
		}
		perPath.set(path, counts);
	}
	const total = new Map<number, number>();
	for (const counts of perPath.values()) for (const [hash, count] of counts) bump(total, hash, count);
	return { perPath, total };
}
