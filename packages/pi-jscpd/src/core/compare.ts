/**
 * The changed comparison (pure): clone groups with a location that is new since the baseline (see
 * identity.ts) in a file changed in this session, minus acknowledged ones, prioritised and capped.
 * Only the groups touching a changed file are judged; the line index covers the whole report.
 */
import { splitCopies, withCopies } from "./copy-keys.js";
import { copiesInIndex, findingIdentity, indexGroups, isNewLocation, type LineIndex } from "./identity.js";
import { joinedFragments, namedOnce, strongestPerCopy } from "./one-copy.js";
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
	/**
	 * New locations in a file that holds the content more than once: which of its copies is the
	 * new one is not known (line numbers shift), so texts name the file and all its copies.
	 */
	readonly copies?: readonly CopyNote[];
}

/** A file holding a finding's content more than once (see {@link Finding.copies}). */
export interface CopyNote {
	/** Project path. */
	readonly path: string;
	/** First lines of every copy in it, ascending (at most {@link MAX_COPY_STARTS}). */
	readonly starts: readonly number[];
	/** How many copies it holds now. */
	readonly copies: number;
	/** How many more than at the baseline (at least 1). */
	readonly added: number;
}

/** Most copy positions a {@link CopyNote} lists. */
export const MAX_COPY_STARTS = 8;

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
	/**
	 * The project-wide line index now, when `groups` is not a whole-project report (a focused
	 * check, focus.ts); indexed from `groups` otherwise.
	 */
	readonly now?: LineIndex;
	/**
	 * Whether a changed file was written by a tool (a build's output, a generated file;
	 * generated-files.ts): a copy whose new locations are all in such files is not a finding.
	 */
	readonly generated?: (path: string) => boolean;
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
	const now = touching.length > 0 ? (input.now ?? indexGroups(input.groups)) : undefined;
	const candidates: { group: CloneGroup; fresh: CloneLocation[] }[] = [];
	const verdicts = new Map<string, boolean>();
	const generated = (path: string) => {
		if (!input.generated) return false;
		const known = verdicts.get(path);
		if (known !== undefined) return known;
		const verdict = input.generated(path);
		verdicts.set(path, verdict);
		return verdict;
	};
	for (const group of touching) {
		if (!now) break;
		const fresh = group.locations.filter(
			(loc) => input.changed.has(loc.path) && isNewLocation(group, loc, now, input.baseline),
		);
		if (fresh.length > 0 && !fresh.every((loc) => generated(loc.path))) candidates.push({ group, fresh });
	}
	const starts = copyStarts(touching);
	for (const { group, fresh } of namedOnce(
		joinedFragments(strongestPerCopy(candidates, input.changed)),
		input.changed,
	)) {
		const identity = findingIdentity(group, fresh);
		if (seen.has(identity)) continue;
		seen.add(identity);
		if (input.acknowledged(identity)) {
			acknowledged++;
			continue;
		}
		const original = group.locations.find((loc) => !input.changed.has(loc.path));
		const notes = copyNotes(group, fresh, starts, input.baseline);
		const copies = notes.length > 0 ? { copies: notes } : {};
		// A copy of a build's output: the hand-made side is the copy, named first.
		const made = fresh.filter((loc) => !generated(loc.path));
		const ordered = newFirst(group, made.length > 0 ? made : fresh);
		eligible.push(
			original
				? { identity, group: ordered, label: "matches-existing", original, ...copies }
				: { identity, group: ordered, label: "new", ...copies },
		);
	}
	eligible.sort((a, b) => rank(a) - rank(b) || compareGroups(a.group, b.group));
	const max = Math.max(0, input.max);
	return { findings: eligible.slice(0, max), omitted: Math.max(0, eligible.length - max), acknowledged };
}

/**
 * The group with a new location first and the other side second: jscpd orders a pair by path, so
 * the original could come first. Both new: the report order stays.
 */
function newFirst(group: CloneGroup, fresh: readonly CloneLocation[]): CloneGroup {
	const [a, b] = group.locations;
	return fresh.includes(a) || !fresh.includes(b) ? group : { ...group, locations: [b, a] };
}

const contentKey = (group: CloneGroup, path: string) =>
	`${path}\0${group.kind ?? "exact"}|${group.hashes.join(",")}`;

/** First lines of the copies of each repeated content, per file (report.ts counted them). */
function copyStarts(groups: readonly CloneGroup[]): Map<string, Set<number>> {
	const starts = new Map<string, Set<number>>();
	for (const group of groups) {
		for (const loc of group.locations) {
			if ((loc.copies ?? 1) < 2) continue;
			const key = contentKey(group, loc.path);
			const seen = starts.get(key) ?? new Set<number>();
			seen.add(loc.startLine);
			starts.set(key, seen);
		}
	}
	return starts;
}

function copyNotes(
	group: CloneGroup,
	fresh: readonly CloneLocation[],
	starts: ReadonlyMap<string, ReadonlySet<number>>,
	baseline: LineIndex,
): CopyNote[] {
	const notes: CopyNote[] = [];
	for (const loc of fresh) {
		const copies = loc.copies ?? 1;
		if (copies < 2 || notes.some((note) => note.path === loc.path)) continue;
		const lines = [...(starts.get(contentKey(group, loc.path)) ?? [loc.startLine])].sort((a, b) => a - b);
		const before = Math.min(copies - 1, copiesInIndex(group, loc.path, baseline));
		notes.push({ path: loc.path, starts: lines.slice(0, MAX_COPY_STARTS), copies, added: copies - before });
	}
	return notes;
}

/**
 * The finding with its copy notes counted from what is already covered: when the model was told
 * about, or the user dismissed, k of the content's copies (copy-keys.ts), the copies beyond k are
 * the more ones, not every copy the file gained since the session started (the model was told of
 * those). `covered` is the acknowledgement or dismissal test of an identity; at most one call per
 * copy.
 */
export function beyondCovered<T extends Pick<Finding, "identity" | "copies">>(
	finding: T,
	covered: (identity: string) => boolean,
): T {
	const notes = finding.copies;
	if (!notes) return finding;
	const { base, copies } = splitCopies(finding.identity);
	let told = copies - 1;
	while (told >= 1 && !covered(withCopies(base, told))) told--;
	const beyond = copies - told;
	if (told < 1 || notes.every((note) => note.added <= beyond)) return finding;
	return { ...finding, copies: notes.map((note) => ({ ...note, added: Math.min(note.added, beyond) })) };
}

function rank(finding: Finding): number {
	return finding.label === "new" ? 0 : 1;
}
