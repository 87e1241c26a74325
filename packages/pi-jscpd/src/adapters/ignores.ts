/**
 * Default file ignores for scans outside git. Inside a git work tree jscpd honours `.gitignore`
 * (node_modules and build output are normally listed there); outside git it reads everything, and a
 * 650 MB node_modules made the baseline take 33 s, 6.4 GB of memory and a 173 MB report. So outside
 * git, dependency folders, build output, VCS folders and vendored code are ignored, unless the
 * project's own jscpd configuration (`.jscpd.json`, or `jscpd` in package.json) sets `ignore`.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { listPaths } from "../core/project-paths.js";
import { inGitWorkTree } from "./git-locations.js";
import { hiddenByIgnoreFiles } from "./ignore-files.js";
import { readRegularFile } from "./regular-file.js";

/** Ignored outside git when the project's jscpd configuration does not set `ignore`. */
export const DEFAULT_IGNORES: readonly string[] = [
	"**/node_modules/**",
	"**/bower_components/**",
	"**/jspm_packages/**",
	"**/vendor/**",
	"**/third_party/**",
	"**/dist/**",
	"**/build/**",
	"**/out/**",
	"**/coverage/**",
	"**/target/**",
	"**/.next/**",
	"**/.nuxt/**",
	"**/.svelte-kit/**",
	"**/.turbo/**",
	"**/.cache/**",
	"**/.git/**",
	"**/.hg/**",
	"**/.svn/**",
	"**/*.min.js",
];

/** Largest configuration file read. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** jscpd's default `--max-size` (1mb = 1 MiB): larger files are skipped without a word. */
const MAX_SCANNED_BYTES = 1024 * 1024;

function overSizeLimit(absolute: string): boolean {
	try {
		return statSync(absolute).size > MAX_SCANNED_BYTES;
	} catch {
		return false;
	}
}

/** Whether the project's jscpd configuration (`.jscpd.json` or package.json "jscpd") sets `key`. */
function configSets(root: string, key: "ignore" | "maxSize"): boolean {
	const read = (file: string): unknown => {
		const contents = readRegularFile(file, MAX_CONFIG_BYTES);
		if (contents.status !== "read") return undefined;
		try {
			return JSON.parse(contents.text);
		} catch {
			return undefined;
		}
	};
	const own = read(join(root, ".jscpd.json")) as Record<string, unknown> | undefined;
	const pkg = read(join(root, "package.json")) as { jscpd?: Record<string, unknown> } | undefined;
	return own?.[key] !== undefined || pkg?.jscpd?.[key] !== undefined;
}

/**
 * The ignores a scan of `root` adds: in a trusted project none inside git or when the project
 * configures its own; in an untrusted project always (its jscpd configuration is not read, and
 * jscpd runs outside the project, see docs/security.md).
 */
export function defaultIgnores(root: string, trusted = true): readonly string[] {
	if (!trusted) return DEFAULT_IGNORES;
	return inGitWorkTree(root) || configSets(root, "ignore") ? [] : DEFAULT_IGNORES;
}

/** Folder names of {@link DEFAULT_IGNORES} (each ignored at any depth). */
const IGNORED_FOLDERS = new Set(
	DEFAULT_IGNORES.filter((glob) => glob.startsWith("**/") && glob.endsWith("/**")).map((glob) =>
		glob.slice(3, -3),
	),
);

/** Whether the default ignores hide a project path (a folder of the list on its way, or `*.min.js`). */
export function hiddenByDefault(path: string): boolean {
	const segments = path.split("/");
	return path.endsWith(".min.js") || segments.slice(0, -1).some((segment) => IGNORED_FOLDERS.has(segment));
}

/**
 * Why a check of `root` cannot see some of the session's changed files: jscpd never reads files the
 * default ignores or a `.ignore` file hide, so a duplicate written there would otherwise pass as "clean".
 */
export function hiddenChangesReason(
	root: string,
	changed: Iterable<string>,
	trusted = true,
): string | undefined {
	const paths = [...changed];
	const hidden = paths.filter(hiddenByDefault);
	const reasons: string[] = [];
	if (hidden.length > 0 && defaultIgnores(root, trusted).length > 0)
		reasons.push(
			trusted
				? `${listPaths(hidden)} in folders not scanned outside git by default (set "ignore" in .jscpd.json to choose)`
				: // Untrusted: the project's .jscpd.json and .gitignore are not read, in git or not.
					`${listPaths(hidden)} in dependency or build folders, not scanned in a project you have not trusted (/trust to let its .gitignore and .jscpd.json decide)`,
		);
	const large =
		trusted && configSets(root, "maxSize") ? [] : paths.filter((path) => overSizeLimit(join(root, path)));
	if (large.length > 0) reasons.push(`${listPaths(large)} over jscpd's 1 MB file size limit (not scanned)`);
	const ignored = hiddenByIgnoreFiles(root, paths, !trusted);
	const files = trusted ? "a .ignore file" : "a .ignore file or .git/info/exclude";
	if (ignored.length > 0) reasons.push(`${listPaths(ignored)} ignored by ${files} (jscpd does not scan it)`);
	return reasons.join("; ") || undefined;
}

/** The outside probe's `gap` joined with {@link hiddenChangesReason}; undefined when a check saw everything. */
export function incompleteReason(
	root: string | undefined,
	changed: Iterable<string>,
	gap: string | undefined,
	trusted = true,
): string | undefined {
	const hidden = root ? hiddenChangesReason(root, changed, trusted) : undefined;
	return [gap, hidden].filter(Boolean).join("; ") || undefined;
}
