/**
 * The changed comparison (pure): clone groups that are new since the baseline and touch a file
 * changed in this session, minus acknowledged ones, prioritised and capped.
 */
import { type CloneGroup, compareGroups } from "./report.js";

/** How a new finding relates to code that existed before. */
export type FindingLabel = "new" | "matches-existing";

/** One net-new clone group worth telling the agent about. */
export interface Finding {
	/** The group's stable identity (what acknowledgement records). */
	readonly identity: string;
	/** The clone group. */
	readonly group: CloneGroup;
	/**
	 * `new`: both locations are in files changed this session (new code duplicated within itself);
	 * `matches-existing`: one location is in a file not changed this session (new code copies an
	 * existing block).
	 */
	readonly label: FindingLabel;
}

/** Inputs of {@link selectFindings}. */
export interface SelectInput {
	/** Groups of the current full-project report. */
	readonly groups: readonly CloneGroup[];
	/** Identities present in the accepted baseline. */
	readonly baseline: ReadonlySet<string>;
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
	for (const group of input.groups) {
		if (input.baseline.has(group.identity) || seen.has(group.identity)) continue;
		seen.add(group.identity);
		const touched = group.locations.filter((loc) => input.changed.has(loc.path)).length;
		if (touched === 0) continue;
		if (input.acknowledged(group.identity)) {
			acknowledged++;
			continue;
		}
		eligible.push({ identity: group.identity, group, label: touched === 2 ? "new" : "matches-existing" });
	}
	eligible.sort((a, b) => rank(a) - rank(b) || compareGroups(a.group, b.group));
	const max = Math.max(0, input.max);
	return { findings: eligible.slice(0, max), omitted: Math.max(0, eligible.length - max), acknowledged };
}

function rank(finding: Finding): number {
	return finding.label === "new" ? 0 : 1;
}
