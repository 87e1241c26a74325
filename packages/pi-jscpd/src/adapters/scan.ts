/**
 * One jscpd scan: fixed report options, then `--`, then canonical paths. Nothing user-supplied ever
 * precedes `--`, so no argument can be read as a jscpd option.
 *
 * Project configuration (docs/security.md): in a trusted project jscpd runs in the project root and
 * reads the project's `.jscpd.json` (or `package.json` "jscpd") itself; our `--output` and
 * `--reporters` still win, so the report stays in our private temp dir. In an untrusted project
 * jscpd runs in the private temp dir with `--config` naming a file we wrote there, so no project
 * config is read. Either way a finding whose file resolves outside the root is dropped.
 */

import { cutTextEnd } from "@pi-lifecycle/lifecycle-kit";
import { isGeneratedFile } from "../core/generated-files.js";
import { type Detection, type DetectionPlan, detectionPlan, EXACT_ONLY } from "../core/kinds.js";
import type { ParsedReport } from "../core/report.js";
import { ReportStream } from "../core/report-stream.js";
import { containReport } from "./contain.js";
import { defaultIgnores } from "./ignores.js";
import type { Capability } from "./locate.js";
import { projectSetsMinTokens } from "./project-config.js";
import { ELISION_MARKER, type ProcessRunner } from "./runner.js";
import { scanCause } from "./scan-cause.js";
import { scanTargets } from "./scan-targets.js";

/** Longest crash detail shown (the end is kept: that is where the final error is). */
export const MAX_CRASH_DETAIL = 300;

/**
 * The last few meaningful lines of a crashed jscpd's stderr: stack frames (`at …`), caret lines,
 * Node's version footer and the elision marker are skipped, so a Node crash shows its error line
 * and a long crash log its final lines. Longer than {@link MAX_CRASH_DETAIL}: the end is kept.
 */
export function crashDetail(stderr: string): string {
	const lines: string[] = [];
	const all = stderr.split("\n");
	for (let i = all.length - 1; i >= 0 && lines.length < 3; i--) {
		const line = (all[i] ?? "").trim();
		if (
			!line ||
			line === ELISION_MARKER ||
			/^at\s/.test(line) ||
			/^\^+$/.test(line) ||
			/^Node\.js v\d/.test(line)
		)
			continue;
		lines.unshift(line);
	}
	const detail = lines.join(" ");
	return detail.length <= MAX_CRASH_DETAIL ? detail : `…${cutTextEnd(detail, MAX_CRASH_DETAIL - 1)}`;
}

/** The outcome of one scan. */
export type ScanOutcome =
	| { readonly status: "ok"; readonly report: ParsedReport }
	| { readonly status: "unavailable"; readonly reason: string }
	| { readonly status: "timeout"; readonly reason: string }
	| { readonly status: "cancelled"; readonly reason: string }
	/** jscpd could not finish within the memory bound: nothing was checked. */
	| { readonly status: "incomplete"; readonly reason: string }
	| { readonly status: "failed"; readonly reason: string };

/** The jscpd config an untrusted project's scans use instead of the project's own. */
export const NEUTRAL_CONFIG_FILE = "pi-jscpd-config.json";
/** The neutral config; `path`: explicit files to scan (scan-targets.ts), none on the command line then. */
function neutralConfig(path?: readonly string[]): string {
	return `${JSON.stringify({ blame: false, followSymlinks: false, ...(path ? { path } : {}) })}\n`;
}

/**
 * The fixed argument list for a scan of `paths` (canonical, inside the project; the root when
 * empty). `projectConfig: false` points jscpd at our neutral config file; `ignore` adds globs;
 * `detection` adds the clone-kind arguments (kinds.ts); `projectMinTokens`: the project's config
 * sets its own token minimum.
 */
export function scanArguments(
	paths: readonly string[],
	options: {
		readonly projectConfig?: boolean;
		readonly root?: string;
		readonly ignore?: readonly string[];
		readonly detection?: Detection;
		readonly projectMinTokens?: boolean;
		/** The files to scan are listed in our config file: none on the command line. */
		readonly listed?: boolean;
	} = {},
): string[] {
	const ignore = options.ignore ?? [];
	return [
		// Untrusted: the repository's .gitignore (and .git/info/exclude) must not steer the scan either.
		...(options.projectConfig === false
			? ["--config", `{output}/${NEUTRAL_CONFIG_FILE}`, "--no-gitignore"]
			: []),
		...detectionPlan(options.detection ?? EXACT_ONLY, options.projectMinTokens).args,
		...(ignore.length > 0 ? ["--ignore", ignore.join(",")] : []),
		"--reporters",
		"json",
		"--output",
		"{output}",
		"--absolute",
		"--silent",
		"--",
		...(options.listed ? [] : paths.length > 0 ? paths : [options.root ?? "."]),
	];
}

function outOfMemory(limitBytes: number | undefined): string {
	const limit = limitBytes === undefined ? "" : ` (limit ${Math.ceil(limitBytes / (1024 * 1024))} MB)`;
	return `jscpd ran out of memory${limit}; nothing was checked`;
}

/** Runs one scan through the serialised runner. Never throws. */
export async function runScan(
	runner: ProcessRunner,
	capability: Capability,
	request: {
		readonly root: string;
		readonly paths: readonly string[];
		readonly timeoutMs: number;
		readonly signal?: AbortSignal;
		/** Clone kinds to detect; exact only when omitted. */
		readonly detection?: Detection;
	},
): Promise<ScanOutcome> {
	if (capability.status !== "available") return { status: "unavailable", reason: capability.reason };
	const trusted = runner.trusted;
	const detection = request.detection ?? EXACT_ONLY;
	const projectMinTokens = trusted && projectSetsMinTokens(request.root);
	// Read entry by entry: a report of thousands of groups is tens of MB (report-stream.ts).
	const stream = new ReportStream(request.root);
	// No ignore file our walk refused (a FIFO, a huge one) reaches jscpd: folders become file lists.
	const targets = scanTargets(request.root, request.paths, trusted);
	if (targets.refused) return { status: "failed", reason: targets.refused };
	const outcome = await runner.run({
		command: capability.command,
		bundled: capability.source === "pinned",
		args: scanArguments(targets.paths, {
			projectConfig: trusted,
			root: request.root,
			ignore: defaultIgnores(request.root, trusted),
			detection,
			projectMinTokens,
			listed: targets.listed !== undefined,
		}),
		cwd: trusted ? request.root : undefined,
		files: trusted ? undefined : { [NEUTRAL_CONFIG_FILE]: neutralConfig(targets.listed) },
		timeoutMs: request.timeoutMs,
		signal: request.signal,
		reportFile: "jscpd-report.json",
		reportStream: stream,
	});
	switch (outcome.status) {
		case "ok": {
			const parsed = stream.end();
			return parsed.ok
				? {
						status: "ok",
						report: reported(
							containReport(request.root, parsed.report),
							detection,
							detectionPlan(detection, projectMinTokens),
						),
					}
				: { status: "failed", reason: parsed.error };
		}
		case "timeout":
			return {
				status: "timeout",
				reason: `jscpd timed out after ${outcome.timeoutMs} ms (${scanCause("timeout", request.root, trusted, targets.skipped)})`,
			};
		case "cancelled":
			return { status: "cancelled", reason: "cancelled" };
		case "memory":
			return {
				status: "incomplete",
				reason: `${outOfMemory(outcome.limitBytes)} (${scanCause("memory", request.root, trusted, targets.skipped)})`,
			};
		case "missing":
			return { status: "unavailable", reason: `jscpd could not be started: ${outcome.error}` };
		case "failed": {
			// A node launcher that hit its heap bound says so on stderr.
			if (/heap out of memory|Allocation failed/i.test(outcome.stderr))
				return {
					status: "incomplete",
					reason: `${outOfMemory(undefined)} (${scanCause("memory", request.root, trusted, targets.skipped)})`,
				};
			const detail = crashDetail(outcome.stderr);
			return { status: "failed", reason: detail ? `${outcome.error}: ${detail}` : outcome.error };
		}
	}
}

/**
 * Drops groups of kinds the detection does not report (a trusted project's config may add some),
 * exact clones under the plan's exact minimum (jscpd ran with the lower near-copy minimum), and
 * clones in a package manager's lockfile (generated-files.ts).
 */
function reported(report: ParsedReport, detection: Detection, plan: DetectionPlan): ParsedReport {
	const kinds = detection.kinds;
	const least = plan.exactMinTokens ?? 0;
	const groups = report.groups.filter(
		(group) =>
			kinds.includes(group.kind ?? "exact") &&
			((group.kind ?? "exact") !== "exact" || group.tokens >= least) &&
			!group.locations.some((location) => isGeneratedFile(location.path)),
	);
	return groups.length === report.groups.length ? report : { ...report, groups };
}
