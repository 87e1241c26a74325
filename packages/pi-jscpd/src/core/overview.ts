/**
 * The bare `/jscpd` overview of the interactive TUI, as a pure model: the short status title and
 * the four entries; Browse opens the triage list of every current finding (triage-ui.ts).
 * Opening the overview never scans; only the "Run …" entries dispatch, through the same dispatcher
 * as `/jscpd changed` and `/jscpd scan`.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { DispatchResult } from "../adapters/dispatch.js";
import type { StatusView } from "./status.js";
import type { TriageCounts } from "./triage.js";
import { browseCount } from "./triage-text.js";

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

/** The overview's entry labels (public: the TUI test and the docs use them). */
export const OVERVIEW_LABELS = {
	changed: "Run the changed check",
	scan: "Run a project scan",
	browse: (count: string) => `Browse findings (${count})`,
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
	/** For the findings list: the findings version the list showed and the version now. */
	readonly findings?: {
		/** The version the list showed. */
		readonly shown: number;
		/** The version now. */
		readonly latest: number;
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

/** The overview for a status snapshot and the findings counts (pure; never dispatches). */
export function overviewMenu(view: StatusView, counts: TriageCounts): OverviewMenu {
	return {
		title: overviewTitle(view),
		items: [
			{ action: "changed", label: OVERVIEW_LABELS.changed },
			{ action: "scan", label: OVERVIEW_LABELS.scan },
			{ action: "browse", label: OVERVIEW_LABELS.browse(browseCount(counts)) },
			{ action: "help", label: OVERVIEW_LABELS.help },
		],
	};
}

/** What the overview model needs: a status snapshot, the findings counts and the shared dispatcher. */
export interface OverviewDeps {
	/** The current `/jscpd status` snapshot. */
	readonly status: () => StatusView;
	/** The current findings counts (what Browse offers). */
	readonly counts: () => TriageCounts;
	/** Runs one subcommand through the same dispatcher as `/jscpd <command>`. */
	readonly dispatch: (command: "changed" | "scan" | "help", ctx: ExtensionContext) => Promise<DispatchResult>;
}

/** The overview of one registration. */
export interface OverviewModel {
	/** The dialog to show now. Reads status only: never dispatches, never scans. */
	open(): OverviewMenu;
	/** Runs a "Run …" or Help entry through the dispatcher (its findings reach the triage list there). */
	run(action: "changed" | "scan" | "help", ctx: ExtensionContext): Promise<DispatchResult>;
}

/** Creates the overview model. */
export function createOverviewModel(deps: OverviewDeps): OverviewModel {
	return {
		open: () => overviewMenu(deps.status(), deps.counts()),
		run: (action, ctx) => deps.dispatch(action, ctx),
	};
}
