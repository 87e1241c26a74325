/**
 * The one "find new groups" pipeline behind the automatic checkpoint and `changed`:
 *
 * 1. the outside-change probe of the same trigger settles (the changed files are known);
 * 2. the focus (project-index.ts): the changed files and the files that could share a clone with
 *    them, or the whole project when correctness needs it (no index yet, a checkout to re-baseline,
 *    more than half the project related);
 * 3. one jscpd scan of those files;
 * 4. the baseline index it is compared with (moves of the work tree applied first, see
 *    session-baseline.ts) and, for a focused scan, the project-wide index now (core/focus.ts);
 * 5. the selection of new clone groups in files changed this session (core/compare.ts).
 */
import { join } from "node:path";
import { WHOLE_SCAN_TIMEOUT_FACTOR } from "../core/baseline-scan.js";
import type { StepTimes } from "../core/check-outcome.js";
import { type Finding, selectFindings } from "../core/compare.js";
import { focusedNow, type ScanFocus } from "../core/focus.js";
import { GENERATED_HEAD_BYTES, GENERATED_TAIL_BYTES, looksGenerated } from "../core/generated-files.js";
import type { LineIndex } from "../core/identity.js";
import type { Detection } from "../core/kinds.js";
import type { CloneGroup } from "../core/report.js";
import type { Capability } from "./locate.js";
import { readEnds } from "./regular-file.js";
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
	/** What to scan for these changed files; the whole project when omitted. */
	readonly focus?: (changed: ReadonlySet<string>, signal: AbortSignal) => Promise<ScanFocus>;
}

/**
 * A finished pipeline, or the scan outcome that stopped it (`cancelled` also after `beforeSelect`).
 * `current` is every new finding in delivery order, uncapped and unfiltered: the triage list takes
 * them all; each caller then leaves out what was told or dismissed and applies its cap.
 */
export type FindOutcome =
	| {
			readonly status: "ok";
			readonly current: readonly Finding[];
			/** Why the whole project was scanned; undefined for a focused scan. */
			readonly full?: string;
			/** Files jscpd read (a focused scan). */
			readonly scanned?: number;
			/** Where the time went. */
			readonly ms?: StepTimes;
	  }
	| Exclude<ScanOutcome, { readonly status: "ok" }>;

/** Probe, focus, scan, baseline, select. Never throws. */
export async function findNewGroups(request: FindRequest): Promise<FindOutcome> {
	const cancelled = { status: "cancelled", reason: "cancelled" } as const;
	const clock = stepClock();
	await request.beforeSelect?.();
	const changes = clock();
	if (request.signal?.aborted) return cancelled;
	const changed = request.changed();
	const signal = request.signal ?? new AbortController().signal;
	const focus: ScanFocus = request.focus
		? await request.focus(changed, signal)
		: { scope: "full", reason: "whole project requested" };
	if (signal.aborted) return cancelled;
	const focusMs = clock();
	const focused = focus.scope === "focused";
	if (focused && focus.paths.length === 0) return { status: "ok", current: [], scanned: 0 };
	const scan = await runScan(request.runner, request.capability, {
		root: request.root,
		paths: focused ? focus.paths.map((path) => join(request.root, path)) : [],
		timeoutMs: request.timeoutMs * (focused ? 1 : WHOLE_SCAN_TIMEOUT_FACTOR),
		signal: request.signal,
		detection: request.detection,
	});
	if (scan.status !== "ok") return scan;
	if (signal.aborted) return cancelled;
	const scanMs = clock();
	const groups = scan.report.groups;
	const baseline = request.baseline(groups);
	const current = selectFindings({
		groups,
		baseline,
		changed,
		acknowledged: () => false,
		max: Number.MAX_SAFE_INTEGER,
		generated: (path) => generatedFile(request.root, path),
		...(focused ? { now: focusedNow(baseline, groups, changed, focus.partners) } : {}),
	}).findings;
	const ms: StepTimes = { changes, focus: focusMs, scan: scanMs, compare: clock() };
	return focused
		? { status: "ok", current, scanned: focus.paths.length, ms }
		: { status: "ok", current, full: focus.reason, ms };
}

/** Milliseconds since the previous call (the first: since creation). */
function stepClock(): () => number {
	let last = performance.now();
	return () => {
		const now = performance.now();
		const ms = Math.round(now - last);
		last = now;
		return ms;
	};
}

/** Whether a changed file shows that a tool wrote it (generated-files.ts); read only for new copies. */
function generatedFile(root: string, path: string): boolean {
	const ends = readEnds(join(root, path), GENERATED_HEAD_BYTES, GENERATED_TAIL_BYTES);
	return ends !== undefined && looksGenerated(ends.head, ends.tail);
}
