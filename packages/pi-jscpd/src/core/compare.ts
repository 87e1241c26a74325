/**
 * The changed comparison (pure): clone groups with a location that is new since the baseline (see
 * identity.ts) in a file changed in this session, minus acknowledged ones, prioritised and capped.
 * Only the groups touching a changed file are judged; the line index covers the whole report.
 */
import { findingIdentity, indexGroups, isNewLocation, type LineIndex } from "./identity.js";
import { type CloneGroup, type CloneLocation, compareGroups } from "./report.js";

/** How a new finding relates to code that existed before. */
export type FindingLabel = "new" | "matches-existing";

/** One net-new clone group worth telling the agent about. */
export interface Finding {
	/** The finding's identity: its new locations' paths and content (what acknowledgement records). */
	readonly identity: string;
	/** The clone group. */
	readonly group: CloneGroup;
	/**
	 * `new`: both locations are in files changed this session (new code duplicated within itself,
	 * or copied from a file the session also edited: which side was copied is not known);
	 * `matches-existing`: one location is in a file not changed this session (new code copies an
	 * existing block).
	 */
	readonly label: FindingLabel;
	/** `matches-existing`: the location in a file this session did not change (what was copied). */
	readonly original?: CloneLocation;
}

/** Inputs of {@link selectFindings}. */
export interface SelectInput {
	/** Groups of the current full-project report. */
	readonly groups: readonly CloneGroup[];
	/** Line index of the accepted baseline. */
	readonly baseline: LineIndex;
	/** Project-relative paths changed in this session. */
	readonly changed: ReadonlySet<string>;
	/** Whether an identity was already delivered (and not invalidated since). */
	readonly acknowledged: (identity: string) => boolean;
	/** Cap on delivered findings. */
	readonly max: number;
}

/** The outcome of {@link selectFindings}. */
export interface Selection {
	/** Findings to deliver, in delivery order, at most `max`. */
	readonly findings: readonly Finding[];
	/** Eligible findings left out by the cap (they stay unacknowledged). */
	readonly omitted: number;
	/** Net-new groups touching changed files that were already acknowledged. */
	readonly acknowledged: number;
}

/** Selects findings: both-locations-changed groups first, then the deterministic group order. */
export function selectFindings(input: SelectInput): Selection {
	const eligible: Finding[] = [];
	const seen = new Set<string>();
	let acknowledged = 0;
	const touching = input.groups.filter((group) => group.locations.some((loc) => input.changed.has(loc.path)));
	const now = touching.length > 0 ? indexGroups(input.groups) : undefined;
	const candidates: { group: CloneGroup; fresh: CloneLocation[] }[] = [];
	for (const group of touching) {
		if (!now) break;
		const fresh = group.locations.filter(
			(loc) => input.changed.has(loc.path) && isNewLocation(group, loc, now, input.baseline),
		);
		if (fresh.length > 0) candidates.push({ group, fresh });
	}
	for (const { group, fresh } of strongestPerCopy(candidates)) {
		const identity = findingIdentity(group, fresh);
		if (seen.has(identity)) continue;
		seen.add(identity);
		if (input.acknowledged(identity)) {
			acknowledged++;
			continue;
		}
		const original = group.locations.find((loc) => !input.changed.has(loc.path));
		eligible.push(
			original ? { identity, group, label: "matches-existing", original } : { identity, group, label: "new" },
		);
	}
	eligible.sort((a, b) => rank(a) - rank(b) || compareGroups(a.group, b.group));
	const max = Math.max(0, input.max);
	return { findings: eligible.slice(0, max), omitted: Math.max(0, eligible.length - max), acknowledged };
}

/** Exact before renamed before similar; a closer near-copy before a looser one. */
function strength(group: CloneGroup): number {
	if (group.kind === undefined || group.kind === "exact") return 3;
	return group.kind === "renamed" ? 2 : (group.similarity ?? 0);
}

function overlapsMostly(a: CloneLocation, b: CloneLocation): boolean {
	const shared = Math.min(a.endLine, b.endLine) - Math.max(a.startLine, b.startLine) + 1;
	return a.path === b.path && shared * 2 > a.endLine - a.startLine + 1;
}

/**
 * One copy is one finding: jscpd reports a new copy once per kind it matches (an exact copy of a
 * function is also a renamed copy of that function's old renamed copy, and a near-copy of its old
 * near-copies). A candidate whose new locations all lie mostly inside a stronger candidate's new
 * locations is left out, as jscpd itself leaves out the AST pair of an exact clone.
 */
function strongestPerCopy<T extends { group: CloneGroup; fresh: CloneLocation[] }>(
	candidates: readonly T[],
): T[] {
	const byPath = new Map<string, { loc: CloneLocation; strength: number }[]>();
	for (const { group, fresh } of candidates) {
		for (const loc of fresh) {
			const list = byPath.get(loc.path) ?? [];
			list.push({ loc, strength: strength(group) });
			byPath.set(loc.path, list);
		}
	}
	return candidates.filter(({ group, fresh }) => {
		const own = strength(group);
		return !fresh.every((loc) =>
			byPath.get(loc.path)?.some((other) => other.strength > own && overlapsMostly(loc, other.loc)),
		);
	});
}

function rank(finding: Finding): number {
	return finding.label === "new" ? 0 : 1;
}
