/**
 * The baseline scan and its fallback to exact clones. Near-copy detection can be far costlier on
 * code made of many alike functions (generated code): rather than no baseline at all, or every
 * later check paying for thousands of alike pairs, the session falls back to exact clones with the
 * other settings kept, and says why (`/jscpd status`).
 */

import type { ScanOutcome } from "../adapters/scan.js";
import { type Detection, isExactOnly, nearCopyOverload } from "./kinds.js";

/**
 * How many times `timeoutMs` a whole-project exact scan may take: the baseline's (once per session,
 * in the background) and a check's whole rescan (after a checkout or pull). Checks otherwise scan
 * only what changed; a repository of 10,000 files with 9,000 clone groups takes about 35 s to scan
 * on a loaded 2-core machine, over the 30 s default, and a baseline that times out pauses the
 * checkpoint for the session. The renamed/near-copy attempt keeps `timeoutMs`: it is dropped when
 * it does not finish.
 */
export const WHOLE_SCAN_TIMEOUT_FACTOR = 4;

/** A baseline scan's outcome, the detection the session keeps, and why it is not the requested one. */
export interface BaselineScan {
	readonly scan: ScanOutcome;
	readonly detection: Detection;
	readonly fallback?: string;
}

/** Scans with `requested`; falls back to exact clones when that fails, times out, runs out of memory or overloads. */
export async function scanWithFallback(
	scanWith: (detection: Detection) => Promise<ScanOutcome>,
	requested: Detection,
): Promise<BaselineScan> {
	const scan = await scanWith(requested);
	if (isExactOnly(requested)) return { scan, detection: requested };
	const exactOnly: Detection = { ...requested, kinds: ["exact"] };
	const off = (reason: string) => `renamed and near-copy detection turned off for this session (${reason})`;
	if (scan.status === "failed" || scan.status === "timeout" || scan.status === "incomplete")
		return { scan: await scanWith(exactOnly), detection: exactOnly, fallback: off(scan.reason) };
	if (scan.status !== "ok") return { scan, detection: requested };
	const overload = nearCopyOverload(scan.report.groups, scan.report.lines);
	if (!overload) return { scan, detection: requested };
	// Scanned again rather than keeping this report's exact clones: jscpd ran with the lower near-copy
	// minimum, and in code this dense in copies its exact clones at 50 tokens and more are not those of
	// an exact scan (it pairs each token window with one earlier occurrence; bench/README.md).
	return { scan: await scanWith(exactOnly), detection: exactOnly, fallback: off(overload) };
}
