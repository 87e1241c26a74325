/** The `/jscpd status` snapshot (a plain read-only view of the controller's parts). */
import type { BaselineState } from "../adapters/baseline.js";
import type { JscpdSettings } from "../adapters/config.js";
import type { Capability } from "../adapters/locate.js";
import type { CheckOutcome } from "./check-outcome.js";
import type { CheckRecord, SchedulerSnapshot } from "./scheduler.js";

/** A snapshot for `/jscpd status`. */
export interface StatusView {
	/** Canonical project root. */
	readonly root: string | undefined;
	/** Effective settings. */
	readonly settings: JscpdSettings;
	/** Where each settings layer came from. */
	readonly settingsSources: readonly string[];
	/** The jscpd executable found, or why none is usable. */
	readonly capability: Capability | { readonly status: "probing" };
	/** The session baseline. */
	readonly baseline: {
		readonly status: BaselineState["status"];
		readonly groups?: number;
		readonly reason?: string;
		readonly file?: string;
		/** Clone kinds the baseline (and so every check against it) detects. */
		readonly kinds?: readonly string[];
		/** Why the baseline fell back to exact clones only. */
		readonly fallback?: string;
	};
	/** Project files changed in this session. */
	readonly changedFiles: number;
	/** Findings delivered to the model and still acknowledged. */
	readonly acknowledged: number;
	/** Findings re-delivered because a reset dropped them unseen (this runtime). */
	readonly redelivered: number;
	/** Scheduler generations and activity. */
	readonly scheduler: SchedulerSnapshot;
	/** The last terminal outcome. */
	readonly lastOutcome: CheckOutcome | undefined;
	/** The last automatic check record. */
	readonly lastRecord: CheckRecord | undefined;
	/** The most recent automatic check records, oldest first (at most 10). */
	readonly recentChecks: readonly CheckRecord[];
	/**
	 * How changes outside write/edit are found: `files` (walks of the project compared), `files+git`
	 * (and git tells checkouts and pulls apart), `none` (before the first walk).
	 */
	readonly externalDetection: "files" | "files+git" | "none";
	/** Ignore files that were not read and kept from jscpd, with why. */
	readonly skippedIgnoreFiles?: readonly { readonly path: string; readonly why: string }[];
	/** Whether the user trusts the project (its ignore files and jscpd config apply only then). */
	readonly trusted?: boolean;
	/** Why the changed files may be incomplete right now. */
	readonly incomplete?: string;
}

/** Summarises a baseline state for status. */
export function baselineView(b: BaselineState): StatusView["baseline"] {
	return {
		status: b.status,
		groups: "groups" in b ? b.groups : undefined,
		reason: "reason" in b ? b.reason : undefined,
		file: "file" in b ? b.file : undefined,
		kinds: "index" in b ? (b.detection?.kinds ?? ["exact"]) : undefined,
		fallback: "fallback" in b ? b.fallback : undefined,
	};
}
