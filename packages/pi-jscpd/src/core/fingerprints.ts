/**
 * The project's fingerprint index (pure): which files hold which pairs of consecutive code lines,
 * so a check can hand jscpd the changed files and only the files that could share a clone with
 * them, instead of the whole project (find-new.ts).
 *
 * A fingerprint is the hash of two consecutive significant lines (at least two word characters,
 * whitespace-normalised): their exact text for exact clones, their shapes (kinds.ts `shapeOf`:
 * names, strings and numbers replaced) for renamed and near-copies. jscpd's smallest exact clone
 * spans 5 lines, so the two sides of an exact clone share at least two pairs of whole lines; a
 * renamed copy shares every pair of shapes, a near-copy most of them.
 *
 * The index is one sorted `Float64Array` of `hash · 2^21 + file` (exact in a double), about 8 bytes
 * per distinct pair and file: 2 MB for 20,000 files of 50 lines with one family.
 */
import { fnv } from "./line-hash.js";

/** Most files the index numbers (a file id takes 21 bits). */
export const MAX_INDEXED_FILES = 2 ** 21 - 1;

/** Which fingerprint families a detection needs. */
export interface Families {
	/** Exact line pairs (exact clones). */
	readonly exact: boolean;
	/** Shape pairs (renamed and near-copies). */
	readonly shapes: boolean;
}

const FILE_BITS = 2 ** 21;

/** At least two word characters: a line with code of its own (as identity.ts counts lines). */
const SIGNIFICANT = /\w.*\w/;

/**
 * The distinct fingerprints of a file's text. `shapeOf` is passed in (kinds.ts) so this module
 * stays free of the kind rules.
 */
export function fingerprintsOf(
	text: string,
	families: Families,
	shapeOf: (line: string) => string,
): Set<number> {
	const prints = new Set<number>();
	let previousExact: number | undefined;
	let previousShape: number | undefined;
	for (const raw of text.split("\n")) {
		const line = raw.replace(/\s+/g, " ").trim();
		if (!SIGNIFICANT.test(line)) continue;
		if (families.exact) {
			const hash = fnv(line);
			if (previousExact !== undefined) prints.add(fnv(`${previousExact}|${hash}`));
			previousExact = hash;
		}
		if (families.shapes) {
			const hash = fnv(`~${shapeOf(line)}`);
			if (previousShape !== undefined) prints.add(fnv(`~${previousShape}|${hash}`));
			previousShape = hash;
		}
	}
	return prints;
}

/** The built index: project paths by id, and the sorted fingerprint/file entries. */
export interface FingerprintIndex {
	/** Project path of each file id. */
	readonly paths: readonly string[];
	/** `hash · 2^21 + id`, ascending. */
	readonly entries: Float64Array;
	/** The families it was built with. */
	readonly families: Families;
}

/** Collects files into an index; {@link FingerprintIndexBuilder.build} sorts once. */
export class FingerprintIndexBuilder {
	readonly #paths: string[] = [];
	#entries = new Float64Array(1024);
	#length = 0;

	constructor(readonly families: Families) {}

	/** Files added so far. */
	get files(): number {
		return this.#paths.length;
	}

	/** Adds one file's fingerprints; false when the index is full. */
	add(path: string, prints: Iterable<number>): boolean {
		if (this.#paths.length >= MAX_INDEXED_FILES) return false;
		const id = this.#paths.length;
		this.#paths.push(path);
		for (const hash of prints) {
			if (this.#length === this.#entries.length) {
				const grown = new Float64Array(this.#entries.length * 2);
				grown.set(this.#entries);
				this.#entries = grown;
			}
			this.#entries[this.#length++] = hash * FILE_BITS + id;
		}
		return true;
	}

	/** The sorted index. */
	build(): FingerprintIndex {
		const entries = this.#entries.slice(0, this.#length).sort();
		return { paths: this.#paths, entries, families: this.families };
	}
}

function lowerBound(entries: Float64Array, value: number): number {
	let low = 0;
	let high = entries.length;
	while (low < high) {
		const mid = (low + high) >>> 1;
		if ((entries[mid] ?? 0) < value) low = mid + 1;
		else high = mid;
	}
	return low;
}

/** Limits of {@link partnersOf}. */
export interface PartnerLimits {
	/** Holders looked at per fingerprint (any holder of a common pair is as good a partner as another). */
	readonly perPrint: number;
	/** Partner files kept per changed file, those sharing the most fingerprints first. */
	readonly perFile: number;
}

/** Default {@link PartnerLimits}. */
export const PARTNER_LIMITS: PartnerLimits = Object.freeze({ perPrint: 16, perFile: 48 });

/**
 * The files of `index` sharing fingerprints with one changed file (`prints`), most shared first,
 * at most `limits.perFile`; paths in `exclude` (the changed files themselves) are left out.
 */
export function partnersOf(
	index: FingerprintIndex,
	prints: Iterable<number>,
	exclude: ReadonlySet<string>,
	limits: PartnerLimits = PARTNER_LIMITS,
): string[] {
	const shared = new Map<number, number>();
	for (const hash of prints) {
		let at = lowerBound(index.entries, hash * FILE_BITS);
		const end = (hash + 1) * FILE_BITS;
		let seen = 0;
		for (; at < index.entries.length && (index.entries[at] ?? end) < end; at++) {
			const id = (index.entries[at] ?? 0) - hash * FILE_BITS;
			if (exclude.has(index.paths[id] ?? "")) continue;
			shared.set(id, (shared.get(id) ?? 0) + 1);
			if (++seen >= limits.perPrint) break;
		}
	}
	return [...shared]
		.sort((a, b) => b[1] - a[1] || a[0] - b[0])
		.slice(0, limits.perFile)
		.map(([id]) => index.paths[id] ?? "")
		.filter((path) => path !== "");
}
