/**
 * A focused check (pure): jscpd scanned only the files changed this session and their partner
 * files (fingerprints.ts), not the whole project. This module says when that is allowed and
 * builds the project-wide line index the selection compares with the baseline (identity.ts), as a
 * whole-project scan would have produced it.
 *
 * - a changed file: its lines as the focused report covers them. Every file sharing a clone with
 *   it shares fingerprints with it and was scanned, so its coverage is the whole-project one;
 * - a partner (unchanged) file: the larger of its baseline coverage and the focused report's (its
 *   clones with files outside the focus were not scanned, and an unchanged file's clones with
 *   unchanged files did not change);
 * - every other file: its baseline coverage.
 */
import { indexGroups, type LineIndex } from "./identity.js";
import type { CloneGroup } from "./report.js";

/** What a check scans. */
export type ScanFocus =
	/** The changed files (`changed`, the ones that exist) and their partners. */
	| {
			readonly scope: "focused";
			/** Project paths handed to jscpd: the existing changed files, then their partners. */
			readonly paths: readonly string[];
			/** Partner files (unchanged this session). */
			readonly partners: ReadonlySet<string>;
	  }
	/** The whole project, and why (said in the check's result). */
	| { readonly scope: "full"; readonly reason: string };

/**
 * Beyond this share of the project's files a focused scan saves little over a whole one (jscpd's
 * cost grows with the files it reads), so the check scans the whole project.
 */
export const MAX_FOCUSED_SHARE = 0.5;

/** Whether a focus of `paths` files out of `files` is worth it; the full-scan reason otherwise. */
export function focusTooWide(paths: number, files: number): string | undefined {
	return paths > files * MAX_FOCUSED_SHARE
		? `${paths} changed and related files, more than half the project`
		: undefined;
}

/**
 * The project-wide line index "now" of a focused report `groups` (see the module comment):
 * `changed` are the session's changed files, `partners` the unchanged files scanned with them.
 */
export function focusedNow(
	base: LineIndex,
	groups: readonly CloneGroup[],
	changed: ReadonlySet<string>,
	partners: ReadonlySet<string>,
): LineIndex {
	const scanned = indexGroups(groups);
	const perPath = new Map(base.perPath);
	for (const path of changed) {
		const counts = scanned.perPath.get(path);
		if (counts) perPath.set(path, counts);
		else perPath.delete(path);
	}
	for (const path of partners) {
		const now = scanned.perPath.get(path);
		if (!now) continue;
		const merged = new Map(base.perPath.get(path) ?? []);
		for (const [hash, count] of now) if (count > (merged.get(hash) ?? 0)) merged.set(hash, count);
		perPath.set(path, merged);
	}
	const total = new Map(base.total);
	const touched = new Set([...changed, ...partners]);
	for (const path of touched) {
		for (const [hash, count] of base.perPath.get(path) ?? []) total.set(hash, (total.get(hash) ?? 0) - count);
		for (const [hash, count] of perPath.get(path) ?? []) total.set(hash, (total.get(hash) ?? 0) + count);
	}
	return { perPath, total };
}
