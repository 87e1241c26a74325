/**
 * Triage of the current findings: the findings store, the user's dismissals and whether the model
 * was told, as one numbered list (what Browse and `/jscpd dismiss <n>` number). One holder per
 * runtime, built with the runtime's parts (parts.ts) that read it for the checkpoint and the footer.
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import { beyondCovered, type Finding } from "./compare.js";
import {
	applyDismissal,
	DISMISSAL_ENTRY,
	type DismissalData,
	type DismissalEntry,
	isDismissed,
	replayDismissals,
	savedDismissals,
} from "./dismissals.js";
import { FindingsStore, groupKey, type StoredFinding } from "./findings-store.js";
import { pairText } from "./presentation.js";
import type { CloneGroup } from "./report.js";

/** One numbered finding of the triage list. */
export interface TriageItem {
	/** Its number in the list (1-based): what `/jscpd dismiss <n>` takes. */
	readonly n: number;
	/** The finding. */
	readonly finding: StoredFinding;
	/** The user dismissed it as intended. */
	readonly dismissed: boolean;
	/** The model was told about it (a delivered finding still acknowledged, or a scan result it got). */
	readonly told: boolean;
}

/** Counts of the list: `fresh` are new duplicates (what the footer counts), `scan` the other groups. */
export interface TriageCounts {
	/** New duplicates not dismissed. */
	readonly fresh: number;
	/** Scan groups (not new duplicates) not dismissed. */
	readonly scan: number;
	/** Current findings the user dismissed. */
	readonly dismissed: number;
}

/** The outcome of a dismissal or undo. */
export type TriageChange =
	| { readonly ok: true; readonly item: TriageItem }
	| { readonly ok: false; readonly reason: "unchanged"; readonly item: TriageItem }
	/** `error`: what stopped the session write (the adapter names a local fault). */
	| { readonly ok: false; readonly reason: "failed"; readonly item: TriageItem; readonly error: unknown };

/** `path:start-end ≈ path:start-end` (a file holding the content several times: all its copies). */
export function whereText(finding: Pick<StoredFinding, "locations" | "copies">): string {
	const [a, b] = finding.locations;
	return pairText(finding, a, b);
}

/** A result's line saying that findings the user dismissed are not listed ("" when none were). */
function dismissedNote(count: number): string {
	return count > 0 ? `\n(${count} the user dismissed as intended not listed)` : "";
}

/** What the triage reads from the rest of the runtime. */
export interface TriageDeps {
	/** Whether a finding identity was delivered to the model and is still acknowledged. */
	readonly acknowledged: (identity: string) => boolean;
	/** Called after anything that changes the counts (the footer follows). */
	readonly changed: () => void;
}

/** See the module comment. */
export class Triage {
	readonly #store = new FindingsStore();
	readonly #deps: TriageDeps;
	#dismissed: ReadonlySet<string> = new Set();
	/** Where each dismissal of the branch was (replayed, then kept up to date by {@link set}). */
	#where = new Map<string, string>();

	constructor(deps: TriageDeps) {
		this.#deps = deps;
	}

	/** Moves when a result replaced the findings (a list shown before may number them differently). */
	get version(): number {
		return this.#store.version;
	}

	/** Rebuilds dismissals from the session branch (start, tree navigation); returns malformed entries. */
	replay(entries: readonly DismissalEntry[], clearFindings: boolean): number {
		const { dismissed, malformed, where } = replayDismissals(entries);
		this.#dismissed = dismissed;
		this.#where = new Map(where);
		if (clearFindings) this.#store.clear();
		this.#deps.changed();
		return malformed;
	}

	/**
	 * Where the dismissals in force were (their findings return with the next check): the ones
	 * replayed from the session and the ones made or undone since, from the live key set.
	 */
	get savedDismissals(): readonly string[] {
		return savedDismissals(this.#dismissed, this.#where);
	}

	/** Whether a new-duplicate identity is dismissed (never reported to the model then). */
	isDismissed(identity: string): boolean {
		return isDismissed(this.#dismissed, [identity]);
	}

	/**
	 * Whether a new duplicate is dismissed by any of the keys Browse matches it by: its identity, or
	 * its whole clone group (dismissed from a scan's list before a check found it as new).
	 */
	isFindingDismissed(finding: Pick<Finding, "identity" | "group">): boolean {
		return isDismissed(this.#dismissed, [finding.identity, groupKey(finding.group)]);
	}

	/** Whether a scan's clone group is dismissed. */
	isGroupDismissed(group: CloneGroup): boolean {
		return isDismissed(this.#dismissed, [groupKey(group)]);
	}

	/** Records every current new duplicate of a checkpoint or `changed` result. */
	recordNew(source: "checkpoint" | "changed", findings: readonly Finding[]): void {
		this.#store.recordNew(source, findings);
		this.#deps.changed();
	}

	/** Records a project scan's groups; `told`: the result went to the model (`jscpd_run scan`). */
	recordScan(groups: readonly CloneGroup[], told: boolean): void {
		this.#store.recordScan(groups, told);
		this.#deps.changed();
	}

	/**
	 * A `changed` result: records every current new duplicate and returns the ones it may list
	 * (not dismissed), with a note saying how many it left out ("" when none).
	 */
	changedResult(findings: readonly Finding[]): { readonly listed: Finding[]; readonly note: string } {
		this.recordNew("changed", findings);
		const listed = findings.filter((finding) => !this.isFindingDismissed(finding));
		return { listed, note: dismissedNote(findings.length - listed.length) };
	}

	/** A `scan` result: records its groups (`told`: `jscpd_run scan`) and returns those not dismissed. */
	scanResult(
		groups: readonly CloneGroup[],
		told: boolean,
	): { readonly listed: CloneGroup[]; readonly note: string } {
		this.recordScan(groups, told);
		const listed = groups.filter((group) => !this.isGroupDismissed(group));
		return { listed, note: dismissedNote(groups.length - listed.length) };
	}

	/** The numbered list, newest first. */
	items(): TriageItem[] {
		return this.#store.list().map((finding, index) => ({
			n: index + 1,
			finding: this.#beyondCovered(finding),
			dismissed: isDismissed(this.#dismissed, finding.keys),
			told: finding.source === "scan" ? finding.toldInResult : this.#deps.acknowledged(finding.key),
		}));
	}

	/**
	 * A new duplicate's copy notes counted from the copies the model was told about or the user
	 * dismissed, as the finding texts count them (compare.ts `beyondCovered`).
	 */
	#beyondCovered(finding: StoredFinding): StoredFinding {
		if (!finding.copies) return finding;
		const covered = (identity: string) => this.#deps.acknowledged(identity) || this.isDismissed(identity);
		const { copies } = beyondCovered({ identity: finding.key, copies: finding.copies }, covered);
		return copies === finding.copies ? finding : { ...finding, copies };
	}

	/** The counts of {@link items}. */
	counts(): TriageCounts {
		let fresh = 0;
		let scan = 0;
		let dismissed = 0;
		for (const item of this.items()) {
			if (item.dismissed) dismissed++;
			else if (item.finding.kind === "existing") scan++;
			else fresh++;
		}
		return { fresh, scan, dismissed };
	}

	/**
	 * Dismisses (or, with `undo`, restores) a finding and records it as a session entry. The key
	 * set changes only when the entry was appended: an unrecorded dismissal would come back at
	 * the next reload.
	 */
	set(pi: Pick<ExtensionAPI, "appendEntry">, item: TriageItem, dismiss: boolean): TriageChange {
		if (item.dismissed === dismiss) return { ok: false, reason: "unchanged", item };
		const data: DismissalData = {
			action: dismiss ? "dismiss" : "undismiss",
			keys: item.finding.keys,
			where: whereText(item.finding),
		};
		try {
			pi.appendEntry(DISMISSAL_ENTRY, data);
		} catch (error) {
			return { ok: false, reason: "failed", item, error };
		}
		this.#dismissed = applyDismissal(this.#dismissed, data);
		if (dismiss) this.#where.set(data.keys.join(" "), cutText(data.where, 400));
		this.#deps.changed();
		return { ok: true, item: { ...item, dismissed: dismiss } };
	}
}
