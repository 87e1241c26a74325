/**
 * The one "find new groups" pipeline behind the automatic checkpoint and `changed`: a full-project
 * scan, the baseline index it is compared with (moves of the work tree applied first, see
 * session-baseline.ts), then the selection of new clone groups in files changed this session.
 */
import { type Selection, selectFindings } from "./compare.js";
import type { LineIndex } from "./identity.js";
import type { Capability } from "./locate.js";
import type { CloneGroup } from "./report.js";
import type { ProcessRunner } from "./runner.js";
import { runScan, type ScanOutcome } from "./scan.js";

/** Inputs of {@link findNewGroups}. */
export interface FindRequest {
	readonly runner: ProcessRunner;
	readonly capability: Capability;
	readonly root: string;
	readonly timeoutMs: number;
	readonly signal?: AbortSignal;
	/** Runs after the scan, before the selection (the outside-change probe of the same trigger). */
	readonly beforeSelect?: () => Promise<void>;
	/** The baseline index for this report (applies pending rebases). */
	readonly baseline: (groups: readonly CloneGroup[]) => LineIndex;
	/** Project paths changed in this session (read after `beforeSelect`). */
	readonly changed: () => ReadonlySet<string>;
	readonly acknowledged: (identity: string) => boolean;
	readonly max: number;
}

/** A finished pipeline, or the scan outcome that stopped it (`cancelled` also after `beforeSelect`). */
export type FindOutcome =
	| { readonly status: "ok"; readonly selection: Selection }
	| Exclude<ScanOutcome, { readonly status: "ok" }>;

/** Scan, baseline, select. Never throws. */
export async function findNewGroups(request: FindRequest): Promise<FindOutcome> {
	const scan = await runScan(request.runner, request.capability, {
		root: request.root,
		paths: [],
		timeoutMs: request.timeoutMs,
		signal: request.signal,
	});
	if (scan.status !== "ok") return scan;
	if (request.signal?.aborted) return { status: "cancelled", reason: "cancelled" };
	await request.beforeSelect?.();
	if (request.signal?.aborted) return { status: "cancelled", reason: "cancelled" };
	const groups = scan.report.groups;
	const selection = selectFindings({
		groups,
		baseline: request.baseline(groups),
		changed: request.changed(),
		acknowledged: request.acknowledged,
		max: request.max,
	});
	return { status: "ok", selection };
}
