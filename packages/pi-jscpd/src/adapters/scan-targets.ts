/**
 * What a scan hands jscpd. jscpd's walker reads every `.ignore` (and `.git/info/exclude`; in a
 * trusted project `.gitignore`) in and above each folder it scans, with no option to turn that off:
 * a FIFO there hangs it, a huge one drives it to the memory cap. So when our walk refused an ignore
 * file (ignore-files.ts `inspectIgnoreFile`), jscpd gets no folder at all: the requested folders are
 * replaced by the files our walk listed in them (explicit files make jscpd read no ignore file), in
 * an untrusted project through our own config file's `path` list (no command-line length limit).
 * Otherwise the paths are handed over as they are.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { isInside, toProjectPath } from "../core/project-paths.js";
import type { SkippedIgnoreFile } from "./ignore-files.js";
import { walkProject } from "./project-walk.js";

/** Largest total length of explicit paths put on jscpd's command line (trusted projects). */
const MAX_ARGUMENT_BYTES = 512 * 1024;

/** What to hand jscpd. */
export interface ScanTargets {
	/** Paths for jscpd's command line (empty with {@link listed}). */
	readonly paths: readonly string[];
	/** Explicit files for our config file's `path` (untrusted projects only). */
	readonly listed?: readonly string[];
	/** The ignore files kept from jscpd, with why. */
	readonly skipped: readonly SkippedIgnoreFile[];
	/** Why no safe target list could be built (the scan must not run then). */
	readonly refused?: string;
}

function isFolder(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/** The targets for a scan of `paths` (canonical, inside `root`; the root when empty). */
export function scanTargets(root: string, paths: readonly string[], trusted: boolean): ScanTargets {
	const requested = paths.length > 0 ? paths : [root];
	const folders = requested.filter(isFolder);
	if (folders.length === 0) return { paths, skipped: [] };
	const walk = walkProject(root, { trusted });
	if (walk.skipped.length === 0) return { paths, skipped: [] };
	const prefixes = folders.map((folder) => {
		const rel = toProjectPath(root, folder);
		return rel === "." ? "" : `${rel}/`;
	});
	const files = [...walk.files.keys()].filter((path) => prefixes.some((prefix) => path.startsWith(prefix)));
	const explicit = [
		...requested.filter((path) => !folders.includes(path) && isInside(root, path)),
		...files.map((path) => join(root, path)),
	];
	if (!trusted) return { paths: [], listed: explicit, skipped: walk.skipped };
	if (explicit.length === 0) return { paths: [], skipped: walk.skipped, refused: "no files to scan" };
	const bytes = explicit.reduce((sum, path) => sum + path.length + 1, 0);
	if (bytes > MAX_ARGUMENT_BYTES)
		return {
			paths,
			skipped: walk.skipped,
			refused: `${walk.skipped[0]?.path} cannot be read safely (${walk.skipped[0]?.why}) and the project has too many files to list them one by one; fix or remove it`,
		};
	return { paths: explicit, skipped: walk.skipped };
}

/** One line naming the skipped ignore files, for scan results and status. */
export function skippedText(skipped: readonly SkippedIgnoreFile[]): string {
	const named = skipped
		.slice(0, 3)
		.map((file) => `${file.path} (${file.why})`)
		.join(", ");
	return `skipped ${named}${skipped.length > 3 ? ` and ${skipped.length - 3} more` : ""}`;
}
