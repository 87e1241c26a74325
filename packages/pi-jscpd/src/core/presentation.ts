/**
 * Texts (pure): the findings message, scan results and footer status (`/jscpd status`: status-text.ts). Every text is
 * bounded: at most `max` findings, each one line plus locations.
 */

import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import type { CheckOutcome } from "./check-outcome.js";
import type { CopyNote, Finding, Selection } from "./compare.js";
import { locationText, printablePath } from "./project-paths.js";
import type { CloneGroup, CloneLocation } from "./report.js";

/** Custom message type of the checkpoint findings message. */
export const FINDINGS_MESSAGE = "pi-jscpd/findings";
/** Footer status key. */
export const STATUS_KEY = "pi-jscpd";
/** Hard cap on any text this package returns. */
export const MAX_TEXT = 8_000;

const where = locationText;

/** Bounds a text to {@link MAX_TEXT} characters. */
export function bound(text: string): string {
	return text.length <= MAX_TEXT ? text : `${cutText(text, MAX_TEXT - 20)}\n… (truncated)`;
}

/** What a renamed or near-miss clone is called in messages. */
function kindNoun(group: CloneGroup): string | undefined {
	if (group.kind === "renamed") return "renamed copy";
	if (group.kind === "similar") return "near-copy";
	return undefined;
}

function kindFacts(group: CloneGroup): string {
	const similar =
		group.kind === "similar" && group.similarity !== undefined
			? `${Math.floor(group.similarity * 100)}% similar, `
			: "";
	return `(${similar}${group.lines} lines, ${group.tokens} tokens, ${group.format})`;
}

/**
 * A file holding the content more than once: which copy is new is not known (line numbers shift
 * with every edit), so the text names the file and every copy, never one old block as the new one.
 */
export function copyText(note: CopyNote): string {
	const more = note.added === 1 ? "one more copy" : `${note.added} more copies`;
	const lines = `${note.starts.join(", ")}${note.copies > note.starts.length ? ", …" : ""}`;
	return `${more} in ${printablePath(note.path)} (${note.copies} copies now, at lines ${lines})`;
}

/** A location as text: a file with several copies of the content names them all (see {@link copyText}). */
export function side(finding: Pick<Finding, "copies">, loc: CloneLocation): string {
	const note = finding.copies?.find((candidate) => candidate.path === loc.path);
	return note ? copyText(note) : where(loc);
}

/** `a ≈ b`, or one text when both locations are copies in one file with several (its copies are listed). */
export function pairText(finding: Pick<Finding, "copies">, a: CloneLocation, b: CloneLocation): string {
	const [first, second] = [side(finding, a), side(finding, b)];
	return first === second ? first : `${first} ≈ ${second}`;
}

/** One finding as a line: a renamed or near-copy names the copy, then the original's location. */
export function findingLine(finding: Finding, index: number): string {
	const { group } = finding;
	const [a, b] = group.locations;
	const noun = kindNoun(group);
	if (noun) {
		const original = finding.original;
		const isOriginal = (loc: CloneLocation) =>
			loc.path === original?.path && loc.startLine === original.startLine;
		const copy = original && (isOriginal(a) ? b : a);
		return copy && original
			? `${index + 1}. ${side(finding, copy)}: ${noun} of ${where(original)} ${kindFacts(group)}`
			: // Both locations are new clone code; which one was copied is unknown (its file may have held it).
				`${index + 1}. new ${noun}: ${pairText(finding, a, b)} ${kindFacts(group)}`;
	}
	const label = finding.label === "new" ? "new duplicate" : "copies existing code";
	return `${index + 1}. ${label}: ${pairText(finding, a, b)} (${group.lines} lines, ${group.tokens} tokens, ${group.format})`;
}

/** The checkpoint message content. */
export function findingsMessage(findings: readonly Finding[], omitted: number): string {
	const lines = [
		`jscpd: ${findings.length} new duplicated block${findings.length === 1 ? "" : "s"} in files changed this session.`,
		...findings.map(findingLine),
	];
	if (omitted > 0) lines.push(`(${omitted} more not shown; jscpd_run changed or /jscpd changed lists them)`);
	lines.push("Consider extracting shared code instead of copying it. This note is advisory.");
	return bound(lines.join("\n"));
}

/**
 * What a scan checked, apart from what it found: ` (3 files checked)`, ` (40 files checked; kinds
 * checked: exact)`. Not "1 block in 3 files": that reads as one block spread over three files.
 */
function scannedNote(sources: number | undefined, checked: string): string {
	if (sources === undefined) return checked;
	const kinds = /^ \(checked: (.+)\)$/.exec(checked)?.[1];
	const files = `${sources} file${sources === 1 ? "" : "s"} checked`;
	return kinds ? ` (${files}; kinds checked: ${kinds})` : ` (${files})${checked}`;
}

/** The result text of `scan`; `checked`: the kinds detected when not every kind (`checkedNote`). */
export function scanText(
	groups: readonly CloneGroup[],
	max: number,
	sources: number | undefined,
	omitted: number,
	checked = "",
): string {
	const files = scannedNote(sources, checked);
	if (groups.length === 0) return `jscpd: no duplicated blocks found${files}.`;
	const shown = groups.slice(0, max);
	const lines = [`jscpd: ${groups.length} duplicated block${groups.length === 1 ? "" : "s"}${files}.`];
	shown.forEach((group, i) => {
		const [a, b] = group.locations;
		const noun = kindNoun(group);
		lines.push(
			noun
				? `${i + 1}. ${noun}: ${where(a)} ≈ ${where(b)} ${kindFacts(group)}`
				: `${i + 1}. ${where(a)} ≈ ${where(b)} (${group.lines} lines, ${group.tokens} tokens, ${group.format})`,
		);
	});
	if (groups.length > shown.length) lines.push(`(${groups.length - shown.length} more not shown)`);
	if (omitted > 0)
		lines.push(`(${omitted} report entries were malformed or outside the project and were skipped)`);
	return bound(lines.join("\n"));
}

/**
 * Footer texts, keyed by state. All three packages use one grammar: `<noun>: <state>[ · <detail>]`
 * (Pi joins extension statuses with a single space, so the name and colon mark where each starts).
 */
export const FOOTER = {
	off: "jscpd: off",
	unavailable: "jscpd: unavailable",
	baseline: "jscpd: baseline…",
	checking: "jscpd: checking…",
	ready: "jscpd: ready",
	clean: "jscpd: clean",
	findings: (n: number) => `jscpd: ${n} new duplicate${n === 1 ? "" : "s"}`,
	dismissed: (n: number) => `jscpd: clean · ${n} dismissed`,
	failed: "jscpd: failed · /jscpd status",
	incomplete: "jscpd: incomplete · /jscpd status",
	partial: "jscpd: baseline partial",
} as const;

/** What the footer depends on. */
export interface FooterInput {
	readonly enabled: boolean;
	readonly capability: "available" | "unavailable" | undefined;
	readonly baseline: "none" | "pending" | "accepted" | "partial" | "unavailable" | "failed";
	readonly checking: boolean;
	readonly outcome: CheckOutcome | undefined;
	/**
	 * Current new duplicates from the triage list (not dismissed / dismissed): the footer counts
	 * what Browse lists. Without it, a findings outcome shows its delivered count.
	 */
	readonly findings?: { readonly fresh: number; readonly dismissed: number };
	/** Why this session's baseline dropped renamed and near-copy detection (its `fallback`). */
	readonly dropped?: string;
}

/**
 * The footer's note when renamed and near-copy detection was dropped for the session, naming the
 * cause in a few words (the status line gives the whole reason): time, size, or a failure.
 */
export function droppedNote(fallback: string | undefined): string | undefined {
	if (!fallback) return undefined;
	const why = /timed out/.test(fallback)
		? "too slow here"
		: /memory|too large/.test(fallback)
			? "too large here"
			: /alike functions/.test(fallback)
				? "too many alike functions"
				: "it failed";
	return `exact copies only (near-copy check ${why})`;
}

/** The footer text for a state (pure); a dropped mode is said after a ready or check state. */
export function footerText(input: FooterInput): string {
	const text = footerState(input);
	const note = droppedNote(input.dropped);
	const settled = text === FOOTER.ready || text === FOOTER.clean || text.startsWith("jscpd: clean ·");
	return note && (settled || /^jscpd: \d+ new duplicate/.test(text)) ? `${text} · ${note}` : text;
}

function footerState(input: FooterInput): string {
	if (!input.enabled) return FOOTER.off;
	if (input.capability === "unavailable") return FOOTER.unavailable;
	if (input.baseline === "pending" || input.baseline === "none") return FOOTER.baseline;
	if (input.baseline === "partial") return FOOTER.partial;
	if (input.baseline !== "accepted") return FOOTER.failed;
	if (input.checking) return FOOTER.checking;
	const kind = input.outcome?.kind;
	if (kind === "incomplete") return FOOTER.incomplete;
	if (kind !== undefined && kind !== "clean" && kind !== "findings") return FOOTER.failed;
	const fresh = input.findings?.fresh ?? (kind === "findings" ? (input.outcome?.delivered ?? 0) : 0);
	if (fresh > 0) return FOOTER.findings(fresh);
	if ((input.findings?.dismissed ?? 0) > 0) return FOOTER.dismissed(input.findings?.dismissed ?? 0);
	return kind === undefined ? FOOTER.ready : FOOTER.clean;
}

/** The result text of `changed`: every new finding (acknowledged ones marked), then notes on what it could not see. */
export function changedText(
	selection: Pick<Selection, "findings" | "omitted">,
	notes: {
		readonly acknowledged: (identity: string) => boolean;
		/** Why the baseline is partial (undefined when it is accepted). */
		readonly partial: string | undefined;
		/** Why the changed files may be incomplete. */
		readonly incomplete: string | undefined;
		/** The triage note (dismissed findings left out), or "". */
		readonly triage?: string;
		/** What was checked when not every kind (`checkedNote`), or "". */
		readonly checked?: string;
	},
): string {
	const lines =
		selection.findings.length === 0
			? [`jscpd changed: no new duplicates in files changed this session${notes.checked ?? ""}.`]
			: [
					`jscpd changed: ${selection.findings.length + selection.omitted} new duplicate(s) in files changed this session.`,
					...selection.findings.map(
						(finding, i) =>
							`${findingLine(finding, i)}${notes.acknowledged(finding.identity) ? " [already reported]" : ""}`,
					),
					...(selection.omitted > 0 ? [`(${selection.omitted} more not shown)`] : []),
				];
	const partial = notes.partial === undefined ? "" : `\nNote: the baseline is partial (${notes.partial}).`;
	const incomplete = notes.incomplete ? `\nNote: incomplete — ${notes.incomplete}.` : "";
	return bound(lines.join("\n") + partial + incomplete + (notes.triage ?? ""));
}

/**
 * `changed` before the session baseline is accepted: what to do, in the words of whoever asked
 * (`model`: the model, which cannot run `/jscpd` commands, gets `jscpd_run`).
 */
export function baselineNotReadyText(status: string, reason: string | undefined, model: boolean): string {
	const run = (command: string) => (model ? `jscpd_run ${command}` : `/jscpd ${command}`);
	if (status === "none" || status === "pending")
		return `jscpd changed needs the session baseline (the duplicates the project already had), which is still being recorded. Run ${run("changed")} again in a moment; ${run("scan")} lists every duplicate now.`;
	return `jscpd changed needs the session baseline, which could not be recorded${reason ? `: ${reason}` : ""}. ${run("scan")} lists every duplicate; ${run("status")} says what to do.`;
}
