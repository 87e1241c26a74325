/**
 * The one "find new groups" pipeline behind the automatic checkpoint and `changed`: a full-project
 * scan, the baseline index it is compared with (moves of the work tree applied first, see
 * session-baseline.ts), then the selection of new clone groups in files changed this session.
 */
import { type Finding, selectFindings } from "../core/compare.js";
import type { LineIndex } from "../core/identity.js";
import type { Detection } from "../core/kinds.js";
import type { CloneGroup } from "../core/report.js";
import type { Capability } from "./locate.js";
import type { ProcessRunner } from "./runner.js";
import { runScan, type ScanOutcome } from "./scan.js";

/** Inputs of {@link findNewGroups}. */
export interface FindRequest {
	readonly runner: ProcessRunner;
	readonly capability: Capability;
	readonly root: string;
	readonly timeoutMs: number;
	readonly signal?: AbortSignal;
	/** The clone kinds to detect: the baseline's (a report is only comparable with its own kinds). */
	readonly detection?: Detection;
	/** Runs after the scan, before the selection (the outside-change probe of the same trigger). */
	readonly beforeSelect?: () => Promise<void>;
	/** The baseline index for this report (applies pending rebases). */
	readonly baseline: (groups: readonly CloneGroup[]) => LineIndex;
	/** Project paths changed in this session (read after `beforeSelect`). */
	readonly changed: () => ReadonlySet<string>;
}

/**
 * A finished pipeline, or the scan outcome that stopped it (`cancelled` also after `beforeSelect`).
 * `current` is every new finding in delivery order, uncapped and unfiltered: the triage list takes
 * them all; each caller then leaves out what was told or dismissed and applies its cap.
 */
export type FindOutcome =
	| { readonly status: "ok"; readonly current: readonly Finding[] }
	| Exclude<ScanOutcome, { readonly status: "ok" }>;

/** Scan, baseline, select. Never throws. */
export async function findNewGroups(request: FindRequest): Promise<FindOutcome> {
	const scan = await runScan(request.runner, request.capability, {
		root: request.root,
		paths: [],
		timeoutMs: request.timeoutMs,
		signal: request.signal,
		detection: request.detection,
	});
	if (scan.status !== "ok") return scan;
	if (request.signal?.aborted) return { status: "cancelled", reason: "cancelled" };
	await request.beforeSelect?.();
	if (request.signal?.aborted) return { status: "cancelled", reason: "cancelled" };
	const groups = scan.report.groups;
	const current = selectFindings({
		groups,
		baseline: request.baseline(groups),
		changed: request.changed(),
		acknowledged: () => false,
		max: Number.MAX_SAFE_INTEGER,
	}).findings;
	return { status: "ok", current };
}
