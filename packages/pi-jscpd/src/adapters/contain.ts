/**
 * Report containment by resolved real path (docs/security.md): jscpd reports a file by the path it
 * walked, so a symlink inside the project (followed in a trusted project whose config sets
 * `followSymlinks`) can name a file that lives outside it. A group is kept only when both files
 * resolve, by real path, inside the canonical root.
 */

import { join } from "node:path";
import { isInsideReal } from "@pi-lifecycle/lifecycle-kit";
import type { ParsedReport } from "../core/report.js";

/** The report without groups whose files resolve outside `root`; they count as omitted. */
export function containReport(root: string, report: ParsedReport): ParsedReport {
	const verdicts = new Map<string, boolean>();
	const inside = (path: string): boolean => {
		let verdict = verdicts.get(path);
		if (verdict === undefined) {
			verdict = isInsideReal(root, join(root, path));
			verdicts.set(path, verdict);
		}
		return verdict;
	};
	const groups = report.groups.filter((group) => group.locations.every((location) => inside(location.path)));
	if (groups.length === report.groups.length) return report;
	return { ...report, groups, omitted: report.omitted + report.groups.length - groups.length };
}
