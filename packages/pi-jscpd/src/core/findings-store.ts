/**
 * The current findings of one runtime, whichever check produced them (pure state, no Pi):
 *
 * - new duplicates since the baseline: the latest result of the automatic checkpoint or of a
 *   `changed` check replaces them (both compute the same set: every current one, told or not);
 * - clone groups of the latest project `scan` (pre-existing ones included).
 *
 * Each finding keeps the order in which it was first found, so the list reads newest first and a
 * finding found again keeps its place. Dismissal keys are the stable clone identities of
 * identity.ts (the new locations' paths and content, never line numbers or the partner).
 */
import type { CopyNote, Finding } from "./compare.js";
import { findingIdentity } from "./identity.js";
import type { CloneGroup, CloneLocation } from "./report.js";

/** Which check found a finding. */
export type FindingSource = "checkpoint" | "changed" | "scan";

/** What a finding is: a new duplicate (see compare.ts) or a clone group a scan listed. */
export type FindingKind = "new" | "matches-existing" | "existing";

/** One current finding. */
export interface StoredFinding {
	/** Its identity: the finding identity (new duplicates) or the group key (scan groups). */
	readonly key: string;
	/** Keys a dismissal records and matches (the identity and the whole group's key). */
	readonly keys: readonly string[];
	/** The check that found it last. */
	readonly source: FindingSource;
	/** What it is. */
	readonly kind: FindingKind;
	/** jscpd format. */
	readonly format: string;
	/** Duplicated lines. */
	readonly lines: number;
	/** Duplicated tokens. */
	readonly tokens: number;
	/** The two locations. */
	readonly locations: readonly [CloneLocation, CloneLocation];
	/** The result's text was given to the model (a `jscpd_run` scan); new duplicates ask the acks. */
	readonly toldInResult: boolean;
	/** When it was first found (larger is newer). */
	readonly found: number;
	/** Its position in the result that found it first (priority order within one result). */
	readonly rank: number;
	/** Files holding the content more than once, for a new duplicate (see {@link Finding.copies}). */
	readonly copies?: readonly CopyNote[];
}

/** Most scan groups kept (the scan's first ones, largest first): a list to browse, not an index. */
export const MAX_SCAN_FINDINGS = 200;

/** The key of a whole clone group: the identity of a finding whose every location is new. */
export function groupKey(group: CloneGroup): string {
	return findingIdentity(group, group.locations);
}

/** See the module comment. */
export class FindingsStore {
	#fresh = new Map<string, StoredFinding>();
	#scan = new Map<string, StoredFinding>();
	#stamp = 0;
	#version = 0;

	/** Moves whenever a result replaced a list (a list shown before is out of date then). */
	get version(): number {
		return this.#version;
	}

	/** Every current new duplicate of a checkpoint or `changed` result (replaces the previous set). */
	recordNew(source: "checkpoint" | "changed", findings: readonly Finding[]): void {
		const stamp = ++this.#stamp;
		const next = new Map<string, StoredFinding>();
		findings.forEach((finding, rank) => {
			const before = this.#fresh.get(finding.identity);
			const whole = groupKey(finding.group);
			next.set(finding.identity, {
				...describe(finding.group),
				key: finding.identity,
				keys: whole === finding.identity ? [whole] : [finding.identity, whole],
				source,
				kind: finding.label,
				toldInResult: false,
				found: before?.found ?? stamp,
				rank: before?.rank ?? rank,
				...(finding.copies ? { copies: finding.copies } : {}),
			});
		});
		this.#fresh = next;
		this.#version++;
	}

	/** The clone groups of a project scan, in its order (replaces the previous scan's; at most {@link MAX_SCAN_FINDINGS}). */
	recordScan(groups: readonly CloneGroup[], toldInResult: boolean): void {
		const stamp = ++this.#stamp;
		const next = new Map<string, StoredFinding>();
		groups.slice(0, MAX_SCAN_FINDINGS).forEach((group, rank) => {
			const key = groupKey(group);
			if (next.has(key)) return;
			const before = this.#scan.get(key);
			next.set(key, {
				...describe(group),
				key,
				keys: [key],
				source: "scan",
				kind: "existing",
				// The model saw it in an earlier scan result (the user's own scan does not unsay that).
				toldInResult: toldInResult || (before?.toldInResult ?? false),
				found: before?.found ?? stamp,
				rank: before?.rank ?? rank,
			});
		});
		this.#scan = next;
		this.#version++;
	}

	/** Every current finding, newest first; a scan group that is also a new duplicate is listed once. */
	list(): StoredFinding[] {
		const fresh = [...this.#fresh.values()];
		const covered = new Set(fresh.flatMap((finding) => finding.keys));
		const scan = [...this.#scan.values()].filter((finding) => !covered.has(finding.key));
		return [...fresh, ...scan].sort((a, b) => b.found - a.found || a.rank - b.rank);
	}

	/** Forgets everything (a branch switch: the findings were of another tree). */
	clear(): void {
		this.#fresh.clear();
		this.#scan.clear();
		this.#version++;
	}
}

function describe(group: CloneGroup) {
	return { format: group.format, lines: group.lines, tokens: group.tokens, locations: group.locations };
}
