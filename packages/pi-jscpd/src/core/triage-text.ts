/**
 * Texts of the findings triage (pure): list lines, a finding's details, the fix request sent to
 * the agent, the two blocks side by side, and the `/jscpd dismiss` answers. All bounded.
 */

import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import type { FindingKind, FindingSource } from "./findings-store.js";
import { bound, side } from "./presentation.js";
import { printablePath, UNPRINTABLE_CLASS } from "./project-paths.js";
import { type TriageCounts, type TriageItem, whereText } from "./triage.js";

/** Most lines shown of one block. */
export const SNIPPET_LINES = 30;
/** Most characters shown of one line. */
export const SNIPPET_WIDTH = 160;

const KIND: Record<FindingKind, string> = {
	new: "new duplicate",
	"matches-existing": "copies existing code",
	existing: "existing clone",
};

const SOURCE: Record<FindingSource, string> = {
	checkpoint: "automatic checkpoint",
	changed: "changed check",
	scan: "project scan",
};

/** The entries of the per-finding menu (public: the TUI test and the docs use them). */
export const TRIAGE_LABELS = {
	fix: "Ask the agent to fix it",
	show: "Show both blocks",
	dismiss: "Dismiss as intended",
	undo: "Undo dismiss",
	back: "Back",
} as const;

/** Whether the model was told, in a few words. */
function toldText(item: TriageItem): string {
	return item.told ? "reported to the model" : "not reported to the model";
}

/** One line of the browse list. */
export function itemLine(item: TriageItem): string {
	const f = item.finding;
	const state = item.dismissed ? "dismissed" : toldText(item);
	return `${item.n}. ${whereText(f)} · ${KIND[f.kind]} · ${f.lines} lines · ${state}`;
}

/** The browse list's title. */
export function listTitle(counts: TriageCounts): string {
	return `jscpd findings, newest first (${browseCount(counts)})`;
}

/** The count shown by "Browse findings (…)": new duplicates first, as the footer counts them. */
export function browseCount(counts: TriageCounts): string {
	const parts = [String(counts.fresh)];
	if (counts.scan > 0) parts.push(`${counts.scan} from the last scan`);
	if (counts.dismissed > 0) parts.push(`${counts.dismissed} dismissed`);
	return parts.join(" · ");
}

/** A finding's details (the per-finding menu's title). */
export function itemDetail(item: TriageItem): string {
	const f = item.finding;
	const [a, b] = f.locations;
	const told = item.told ? "Reported to the model." : "Not reported to the model.";
	return [
		`Finding ${item.n}: ${KIND[f.kind]} (from the ${SOURCE[f.source]})`,
		...[...new Set([side(f, a), side(f, b)])].map((text) => `  ${text}`),
		`  ${f.lines} lines, ${f.tokens} tokens, ${f.format}`,
		`  ${item.dismissed ? "Dismissed as intended: never reported to the model again." : told}`,
	].join("\n");
}

/** The one user message "Ask the agent to fix it" sends. */
export function fixRequest(item: TriageItem): string {
	const [a, b] = item.finding.locations;
	return [
		`jscpd found duplicated code: ${printablePath(a.path)} lines ${a.startLine}-${a.endLine} and ${printablePath(b.path)} lines ${b.startLine}-${b.endLine} (${item.finding.lines} lines).`,
		"Please remove the duplication, for example by extracting the shared code, and keep the behaviour unchanged.",
	].join("\n");
}

/**
 * The characters paths.ts escapes (tabs are expanded first): a repository's file may hold terminal
 * escape sequences, bidi overrides (or be binary), which must reach the TUI as text, never as
 * commands to the terminal or a reordered line.
 */
const CONTROL = new RegExp(`[${UNPRINTABLE_CLASS}]`, "g");

/** One block of "Show both blocks": numbered lines, bounded in length and width, control characters shown as �. */
export function snippetText(header: string, text: string | undefined, start: number, end: number): string {
	if (text === undefined) return `${header}\n  (the file cannot be read now)`;
	const lines = text.split(/\r?\n/).slice(start - 1, end);
	if (lines.length === 0) return `${header}\n  (the file no longer has these lines)`;
	const shown = lines.slice(0, SNIPPET_LINES).map((line, i) => {
		const clipped = line.length > SNIPPET_WIDTH ? `${cutText(line, SNIPPET_WIDTH - 1)}…` : line;
		return `${String(start + i).padStart(5)} │ ${clipped.replace(/\t/g, "  ").replace(CONTROL, "\ufffd")}`;
	});
	if (lines.length > shown.length) shown.push(`      … ${lines.length - shown.length} more line(s)`);
	return [header, ...shown].join("\n");
}

/** The numbered list `/jscpd dismiss` without a number prints. */
export function listText(
	items: readonly TriageItem[],
	command: "dismiss" | "undismiss",
	saved: readonly string[] = [],
): string {
	if (items.length === 0 && command === "undismiss" && saved.length > 0)
		return bound(
			[
				`jscpd: ${saved.length} dismissal(s) saved in this session. Findings are not saved: a dismissed finding is listed`,
				"here to undo once a check finds it again (the automatic check, /jscpd changed or /jscpd scan).",
				...saved.map((where) => `  dismissed: ${printablePath(where)}`),
			].join("\n"),
		);
	if (items.length === 0)
		return `jscpd: no findings to ${command} yet. They appear after the automatic check, /jscpd changed or /jscpd scan.`;
	return bound(
		[`Usage: /jscpd ${command} <n>. Current findings, newest first:`, ...items.map(itemLine)].join("\n"),
	);
}
