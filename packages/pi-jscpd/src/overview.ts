/**
 * The bare `/jscpd` overview of the interactive TUI, as a pure model: the short status title, the
 * four entries, and the latest findings (from the last `scan` or `changed` result) to browse.
 * Opening the overview never scans; only the "Run …" entries dispatch, through the same dispatcher
 * as `/jscpd changed` and `/jscpd scan`.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { DispatchResult } from "./dispatch.js";
import type { StatusView } from "./status.js";

/** What an overview entry does. */
export type OverviewAction = "changed" | "scan" | "browse" | "help";

/** One overview entry. */
export interface OverviewItem {
	/** What choosing it does. */
	readonly action: OverviewAction;
	/** The shown label. */
	readonly label: string;
}

/** The overview dialog: a title and its entries. */
export interface OverviewMenu {
	/** Short status line(s) shown as the select title. */
	readonly title: string;
	/** The entries, in display order. */
	readonly items: readonly OverviewItem[];
}

/** One browsable finding (a clone pair). */
export interface BrowseEntry {
	/** `path:start-end ≈ path:start-end`. */
	readonly label: string;
	/** Multi-line details shown when the entry is selected. */
	readonly detail: string;
}

/** The latest findings and where they came from; every new result is a new object (its identity). */
export interface LatestFindings {
	/** `scan` or `changed`. */
	readonly source: "scan" | "changed";
	/** The entries (at most what the result's details list). */
	readonly entries: readonly BrowseEntry[];
}

/** The overview's entry labels (public: the TUI test and the docs use them). */
export const OVERVIEW_LABELS = {
	changed: "Run the changed check",
	scan: "Run a project scan",
	browse: (n: number) => `Browse findings (${n})`,
	help: "Help",
} as const;

/** Notices shown instead of acting on a dialog answer that no longer applies. */
export const OVERVIEW_NOTICES = {
	session: "The session changed while the dialog was open; nothing was done.",
	findings: "The findings changed while the list was open; run /jscpd again.",
} as const;

/** Why a dialog answer must not be acted on, or `ok`. */
export type Recheck = "ok" | keyof typeof OVERVIEW_NOTICES;

/** What the overview checks after every dialog answer. */
export interface RecheckInput {
	/** Whether the session the overview opened in is still the live one. */
	readonly sessionCurrent: boolean;
	/** For the findings list: the list shown and the latest one now (compared by identity). */
	readonly findings?: {
		/** The findings the list showed. */
		readonly shown: LatestFindings | undefined;
		/** The latest findings now. */
		readonly latest: LatestFindings | undefined;
	};
}

/** Whether a dialog answer may be acted on (pure): the session first, then the findings shown. */
export function recheck(input: RecheckInput): Recheck {
	if (!input.sessionCurrent) return "session";
	if (input.findings && input.findings.shown !== input.findings.latest) return "findings";
	return "ok";
}

/** The short status title: checkpoint, jscpd, baseline, changed files and the last check. */
export function overviewTitle(view: StatusView): string {
	const cap = view.capability;
	const jscpd =
		cap.status === "available"
			? `jscpd ${cap.version}`
			: cap.status === "probing"
				? "jscpd probing…"
				: "jscpd unavailable";
	const n = view.baseline.groups;
	const groups = n !== undefined ? ` (${n} group${n === 1 ? "" : "s"})` : "";
	const first = [
		"jscpd overview",
		`checkpoint ${view.settings.enabled ? "on" : "off"}`,
		jscpd,
		`baseline ${view.baseline.status}${groups}`,
		`${view.changedFiles} changed file${view.changedFiles === 1 ? "" : "s"}`,
	].join(" · ");
	const last = view.lastOutcome ? `last check: ${view.lastOutcome.kind} — ${view.lastOutcome.text}` : "";
	return last ? `${first}\n${last}` : first;
}

/** The overview for a status snapshot and the latest findings (pure; never dispatches). */
export function overviewMenu(view: StatusView, latest: LatestFindings | undefined): OverviewMenu {
	return {
		title: overviewTitle(view),
		items: [
			{ action: "changed", label: OVERVIEW_LABELS.changed },
			{ action: "scan", label: OVERVIEW_LABELS.scan },
			{ action: "browse", label: OVERVIEW_LABELS.browse(latest?.entries.length ?? 0) },
			{ action: "help", label: OVERVIEW_LABELS.help },
		],
	};
}

interface Location {
	readonly path: string;
	readonly startLine: number;
	readonly endLine: number;
}

function isLocation(value: unknown): value is Location {
	const v = value as Location | null;
	return (
		typeof v === "object" &&
		v !== null &&
		typeof v.path === "string" &&
		typeof v.startLine === "number" &&
		typeof v.endLine === "number"
	);
}

const where = (loc: Location) => `${loc.path}:${loc.startLine}-${loc.endLine}`;

function entryOf(raw: unknown, source: "scan" | "changed"): BrowseEntry | undefined {
	const item = raw as {
		locations?: unknown;
		lines?: unknown;
		tokens?: unknown;
		format?: unknown;
		label?: unknown;
	} | null;
	if (typeof item !== "object" || item === null || !Array.isArray(item.locations)) return undefined;
	const [a, b] = item.locations;
	if (!isLocation(a) || !isLocation(b)) return undefined;
	const label = `${where(a)} ≈ ${where(b)}`;
	const size = [
		typeof item.lines === "number" ? `${item.lines} lines` : undefined,
		typeof item.tokens === "number" ? `${item.tokens} tokens` : undefined,
		typeof item.format === "string" ? item.format : undefined,
	].filter((part) => part !== undefined);
	const kind =
		item.label === "new"
			? "new duplicate (both copies changed this session)"
			: item.label === "matches-existing"
				? "copies existing code"
				: undefined;
	const detail = [
		`Duplicated block (from the last ${source === "scan" ? "project scan" : "changed check"})`,
		`  ${where(a)}`,
		`  ${where(b)}`,
		...(size.length > 0 ? [`  ${size.join(", ")}`] : []),
		...(kind ? [`  ${kind}`] : []),
	].join("\n");
	return { label, detail };
}

/**
 * The latest findings after a dispatched command: a successful `scan` or `changed` replaces them,
 * anything else keeps `previous` (pure).
 */
export function rememberResult(
	previous: LatestFindings | undefined,
	command: string,
	result: DispatchResult,
): LatestFindings | undefined {
	if (result.status !== "ok" || (command !== "scan" && command !== "changed")) return previous;
	const list = command === "scan" ? result.details.groups : result.details.findings;
	if (!Array.isArray(list)) return previous;
	const entries = list.flatMap((raw) => entryOf(raw, command) ?? []);
	return { source: command, entries };
}

/** What the overview model needs: a status snapshot and the shared dispatcher. */
export interface OverviewDeps {
	/** The current `/jscpd status` snapshot. */
	readonly status: () => StatusView;
	/** Runs one subcommand through the same dispatcher as `/jscpd <command>`. */
	readonly dispatch: (command: "changed" | "scan" | "help", ctx: ExtensionContext) => Promise<DispatchResult>;
}

/** The overview of one registration: what to show, and the latest findings to browse. */
export interface OverviewModel {
	/** The dialog to show now. Reads status only: never dispatches, never scans. */
	open(): OverviewMenu;
	/** The latest findings, if any `scan`/`changed` ran in this runtime. */
	latest(): LatestFindings | undefined;
	/** Records a result of `/jscpd <command>` typed by the user, so Browse lists it. */
	remember(command: string, result: DispatchResult): void;
	/** Runs a "Run …" or Help entry through the dispatcher and remembers its findings. */
	run(action: "changed" | "scan" | "help", ctx: ExtensionContext): Promise<DispatchResult>;
}

/** Creates the overview model. */
export function createOverviewModel(deps: OverviewDeps): OverviewModel {
	let latest: LatestFindings | undefined;
	const remember = (command: string, result: DispatchResult) => {
		latest = rememberResult(latest, command, result);
	};
	return {
		open: () => overviewMenu(deps.status(), latest),
		latest: () => latest,
		remember,
		async run(action, ctx) {
			const result = await deps.dispatch(action, ctx);
			remember(action, result);
			return result;
		},
	};
}
