/**
 * Files the session changed outside the built-in write/edit tools (bash, editors, other processes),
 * saved in the session (pure). They are found by comparing walks of the project, and a new runtime
 * (`/reload`, resume) takes a fresh reference walk that already holds them: without a saved record
 * they would stop counting as this session's changes. One `pi-jscpd/outside-changes` entry is
 * written per comparison that found paths new to the session (never on a settle that found none),
 * and replayed with the write/edit results, so it follows the branch like every session entry.
 */

/** Custom entry type of outside changes. */
export const OUTSIDE_CHANGES_ENTRY = "pi-jscpd/outside-changes";

/** Most paths one entry carries (a larger comparison writes several entries). */
export const MAX_OUTSIDE_PATHS = 500;

/** The data of a `pi-jscpd/outside-changes` entry. */
export interface OutsideChangesData {
	readonly version: 1;
	/** Project paths (`/`-separated, relative to the root). */
	readonly paths: readonly string[];
}

/** A relative, `/`-separated path that stays inside the project root. */
function isProjectPath(path: unknown): path is string {
	if (typeof path !== "string" || path.length === 0 || path.length > 4096) return false;
	if (path.startsWith("/") || path.includes("\\") || path.includes("\0")) return false;
	return path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

/** The paths of an outside-changes entry's data, or undefined when it is malformed. */
export function outsidePathsOf(value: unknown): readonly string[] | undefined {
	const data = value as OutsideChangesData | null;
	if (typeof data !== "object" || data === null || data.version !== 1 || !Array.isArray(data.paths)) return;
	if (data.paths.length > MAX_OUTSIDE_PATHS || !data.paths.every(isProjectPath)) return;
	return data.paths;
}

/** The entries' data recording `paths` (at most {@link MAX_OUTSIDE_PATHS} each). */
export function outsideChangesData(paths: readonly string[]): OutsideChangesData[] {
	const data: OutsideChangesData[] = [];
	for (let i = 0; i < paths.length; i += MAX_OUTSIDE_PATHS)
		data.push({ version: 1, paths: paths.slice(i, i + MAX_OUTSIDE_PATHS) });
	return data;
}
