/**
 * Parses jscpd 5.x JSON reports (the file written by `--reporters json --output DIR --absolute`)
 * into clone groups with stable identities. Pure: no I/O.
 *
 * A group's `identity` names the reported pair (for listing). Whether a group is new since the
 * baseline, and what acknowledgement records, is decided per location from its line hashes, never
 * from the pair (see identity.ts): jscpd pairs every copy with the alphabetically first.
 */
import { createHash } from "node:crypto";
import { isAbsolute } from "node:path";
import { type CloneKind, classify, shapeHashes } from "./kinds.js";
import { fnv } from "./line-hash.js";
import { isInside, toProjectPath } from "./project-paths.js";

/**
 * Most clone groups kept from one report; the rest count as omitted. The report file itself is
 * bounded (runner limits), so this only guards against a pathological report of tiny groups.
 */
export const MAX_GROUPS = 200_000;

/** One side of a clone group. */
export interface CloneLocation {
	/** Project-relative POSIX path. */
	readonly path: string;
	/** First line (1-based). */
	readonly startLine: number;
	/** Last line (1-based). */
	readonly endLine: number;
	/**
	 * Set (≥ 2) when the same file holds this clone content more than once: how many copies it
	 * holds. Identity needs it (copy-keys.ts): path and content alone would make a second copy in
	 * one file the first one's twin, hidden by the first one's acknowledgement or dismissal. A count,
	 * not a rank by line: a copy inserted above an old one must not take the old one's identity.
	 */
	readonly copies?: number;
}

/** One jscpd clone pair. */
export interface CloneGroup {
	/** Stable identity (see the module comment). */
	readonly identity: string;
	/** jscpd format, e.g. `typescript`. */
	readonly format: string;
	/** Duplicated lines. */
	readonly lines: number;
	/** Duplicated tokens. */
	readonly tokens: number;
	/** The two locations, in report order. */
	readonly locations: readonly [CloneLocation, CloneLocation];
	/**
	 * Line hashes of the fragment, one per line, -1 for lines without code (see identity.ts); of the
	 * lines' shapes for renamed and similar clones (kinds.ts).
	 */
	readonly hashes: readonly number[];
	/**
	 * An exact clone's line shapes (kinds.ts): an exact copy is also a renamed copy, which jscpd
	 * does not report a second time, so the line index records both (identity.ts).
	 */
	readonly shapes?: readonly number[];
	/** Clone kind; `exact` when undefined. */
	readonly kind?: CloneKind;
	/** AST similarity (0–1) of a renamed or similar clone, as jscpd reported it. */
	readonly similarity?: number;
}

/** A parsed report. */
export interface ParsedReport {
	/** Groups whose locations are inside the project, in report order. */
	readonly groups: readonly CloneGroup[];
	/** Groups that were malformed, outside the project or over {@link MAX_GROUPS}. */
	readonly omitted: number;
	/** Files jscpd analysed (statistics.total.sources), when reported. */
	readonly sources: number | undefined;
	/** Lines jscpd analysed (statistics.total.lines), when reported. */
	readonly lines?: number;
}

/** The outcome of {@link parseReport}. */
export type ParseResult =
	| { readonly ok: true; readonly report: ParsedReport }
	| { readonly ok: false; readonly error: string };

/**
 * Line hashes of a fragment, one per line; -1 for a line that carries no code of its own (blank,
 * or only braces and punctuation). A fragment without any significant line hashes its non-blank
 * lines instead, so it still has an identity.
 */
export function fragmentHashes(fragment: string): number[] {
	const lines = fragment.split("\n").map((line) => line.replace(/\s+/g, " ").trim());
	const significant = (line: string) => (line.match(/\w/g)?.length ?? 0) >= 2;
	const keep = lines.some(significant) ? significant : (line: string) => line.length > 0;
	return lines.map((line) => (keep(line) ? fnv(line) : -1));
}

function digest(value: string): string {
	return createHash("sha256").update(value).digest("hex").slice(0, 32);
}

function location(root: string, raw: unknown): CloneLocation | undefined {
	if (typeof raw !== "object" || raw === null) return undefined;
	const side = raw as { name?: unknown; start?: unknown; end?: unknown };
	if (typeof side.name !== "string" || !isAbsolute(side.name)) return undefined;
	if (!Number.isSafeInteger(side.start) || !Number.isSafeInteger(side.end)) return undefined;
	if (!isInside(root, side.name)) return undefined;
	return {
		path: toProjectPath(root, side.name),
		startLine: side.start as number,
		endLine: side.end as number,
	};
}

/** Converts one raw duplicate into a group, or undefined when it is malformed or outside `root`. */
export function toGroup(root: string, raw: unknown): CloneGroup | undefined {
	if (typeof raw !== "object" || raw === null) return undefined;
	const dup = raw as Record<string, unknown>;
	const first = location(root, dup.firstFile);
	const second = location(root, dup.secondFile);
	if (!first || !second) return undefined;
	const format = typeof dup.format === "string" ? dup.format : "unknown";
	const lines = Number.isSafeInteger(dup.lines) ? (dup.lines as number) : first.endLine - first.startLine + 1;
	const tokens = Number.isSafeInteger(dup.tokens) ? (dup.tokens as number) : 0;
	const fragment = typeof dup.fragment === "string" ? dup.fragment.replace(/\s+/g, " ").trim() : "";
	const paths = [first.path, second.path].sort();
	const { kind, similarity } = classify(dup);
	const identity = digest(
		JSON.stringify([format, fragment || `${lines}:${tokens}`, paths, ...(kind === "exact" ? [] : [kind])]),
	);
	const text = typeof dup.fragment === "string" ? dup.fragment : undefined;
	const hashes = text === undefined ? [] : kind === "exact" ? fragmentHashes(text) : shapeHashes(text);
	const group: CloneGroup = { identity, format, lines, tokens, locations: [first, second], hashes };
	if (kind === "exact") return text === undefined ? group : { ...group, shapes: shapeHashes(text) };
	return { ...group, kind, ...(similarity === undefined ? {} : { similarity }) };
}

/** Parses report text. `root` must be canonical (jscpd runs with `--absolute`). */
export function parseReport(root: string, text: string): ParseResult {
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch {
		return { ok: false, error: "jscpd wrote a report that is not valid JSON" };
	}
	if (
		typeof raw !== "object" ||
		raw === null ||
		!Array.isArray((raw as { duplicates?: unknown }).duplicates)
	) {
		return { ok: false, error: "jscpd wrote a report without a duplicates list" };
	}
	const duplicates = (raw as { duplicates: unknown[] }).duplicates;
	const groups: CloneGroup[] = [];
	let omitted = 0;
	for (const dup of duplicates) {
		const group = groups.length < MAX_GROUPS ? toGroup(root, dup) : undefined;
		if (group) groups.push(group);
		else omitted++;
	}
	const total = (raw as { statistics?: { total?: { sources?: unknown; lines?: unknown } } }).statistics
		?.total;
	const count = (n: unknown) => (Number.isSafeInteger(n) ? (n as number) : undefined);
	const lines = count(total?.lines);
	return {
		ok: true,
		report: {
			groups: numberOccurrences(groups),
			omitted,
			sources: count(total?.sources),
			...(lines === undefined ? {} : { lines }),
		},
	};
}

/**
 * Counts, per file and clone content (kind and line hashes), the distinct places that content is
 * reported at; locations in a file holding it two or more times carry {@link CloneLocation.copies}.
 * Independent of the order of the copies and of the report.
 */
export function numberOccurrences(groups: readonly CloneGroup[]): CloneGroup[] {
	const starts = new Map<string, Set<number>>();
	const content = new Map<CloneGroup, string>();
	const keyOf = (group: CloneGroup, loc: CloneLocation) => {
		let hashes = content.get(group);
		if (hashes === undefined) {
			hashes = `${group.kind ?? "exact"}|${group.hashes.join(",")}`;
			content.set(group, hashes);
		}
		return `${loc.path}\0${hashes}`;
	};
	for (const group of groups) {
		for (const loc of group.locations) {
			const key = keyOf(group, loc);
			const seen = starts.get(key) ?? new Set<number>();
			seen.add(loc.startLine);
			starts.set(key, seen);
		}
	}
	if (![...starts.values()].some((lines) => lines.size > 1)) return [...groups];
	return groups.map((group) => {
		const counted = group.locations.map((loc) => {
			const copies = starts.get(keyOf(group, loc))?.size ?? 1;
			const { copies: _, ...plain } = loc;
			return copies > 1 ? { ...plain, copies } : plain;
		});
		return { ...group, locations: [counted[0], counted[1]] as const };
	});
}

/** Deterministic order: more tokens, more lines, then paths and lines. */
export function compareGroups(a: CloneGroup, b: CloneGroup): number {
	return (
		b.tokens - a.tokens ||
		b.lines - a.lines ||
		a.locations[0].path.localeCompare(b.locations[0].path) ||
		a.locations[0].startLine - b.locations[0].startLine ||
		a.locations[1].path.localeCompare(b.locations[1].path) ||
		a.locations[1].startLine - b.locations[1].startLine ||
		a.identity.localeCompare(b.identity)
	);
}
