/**
 * Why a scan may have hit its timeout or the memory cap, in terms the user can act on: what the
 * repository holds (how many files and bytes jscpd was given, the folder with the most files) and
 * the ignore files that were kept from jscpd. Read only after such a failure (one walk).
 */
import { listPaths } from "../core/project-paths.js";
import type { SkippedIgnoreFile } from "./ignore-files.js";
import { walkProject } from "./project-walk.js";
import { skippedText } from "./scan-targets.js";

function megabytes(bytes: number): string {
	return `${Math.max(1, Math.round(bytes / (1024 * 1024)))} MB`;
}

/** The busiest top-level folder of a list of project paths, with its file count. */
function busiestFolder(paths: Iterable<string>): [string, number] | undefined {
	const counts = new Map<string, number>();
	for (const path of paths) {
		const slash = path.indexOf("/");
		if (slash > 0) {
			const folder = path.slice(0, slash);
			counts.set(folder, (counts.get(folder) ?? 0) + 1);
		}
	}
	let best: [string, number] | undefined;
	for (const entry of counts) if (!best || entry[1] > best[1]) best = entry;
	return best;
}

/** What the project gave jscpd and what to do, after a `timeout` or `memory` failure (never throws). */
export function scanCause(
	kind: "timeout" | "memory",
	root: string,
	trusted: boolean,
	skipped: readonly SkippedIgnoreFile[],
): string {
	let sizes = "";
	try {
		const walk = walkProject(root, { trusted });
		let bytes = 0;
		for (const file of walk.files.values()) bytes += file.size;
		const busiest = busiestFolder(walk.files.keys());
		const share =
			busiest && busiest[1] * 2 > walk.files.size
				? `, ${busiest[1]} of them in ${listPaths([`${busiest[0]}/`])}`
				: "";
		sizes = `the project gave jscpd ${walk.files.size} files (${megabytes(bytes)}${share})`;
	} catch {
		sizes = "";
	}
	const kept = skipped.length > 0 ? `; ${skippedText(skipped)} (kept from jscpd)` : "";
	const raise = kind === "timeout" ? 'raise "timeoutMs" in pi-jscpd\'s settings, or ' : "";
	const leaveOut = trusted
		? 'leave generated or vendored folders out with "ignore" in .jscpd.json'
		: "/trust the project so its .gitignore and .jscpd.json apply";
	return `${sizes}${kept}. To fix: ${raise}${leaveOut}`;
}
