/**
 * Whether a trusted project's own jscpd config sets a token minimum (pure I/O probe, bounded). jscpd
 * 5.3.2 reads `.jscpd.json`, `.config/jscpd.json`, `.config/.jscpd.json` or the `jscpd` key of
 * `package.json` in its working directory (the project root in a trusted project; docs/security.md)
 * and accepts `minTokens` or `min-tokens` there. Only called for a trusted project.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Largest config file read; a larger one counts as setting a minimum (the project's config wins). */
const MAX_CONFIG_BYTES = 1024 * 1024;

type Probe = Record<string, unknown> | "unreadable" | undefined;

/** Never blocks: a repository can ship a named pipe under a config name (docs/security.md). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

function readJson(path: string): Probe {
	let fd: number | undefined;
	try {
		// Checked before opening: opening a named pipe waits for a writer and would stall Pi.
		if (!statSync(path).isFile()) return undefined;
		fd = openSync(path, OPEN_FLAGS);
		const stat = fstatSync(fd);
		if (!stat.isFile()) return undefined;
		if (stat.size > MAX_CONFIG_BYTES) return "unreadable";
		const value: unknown = JSON.parse(readFileSync(fd, "utf8"));
		return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : "unreadable";
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : "unreadable";
	} finally {
		if (fd !== undefined) closeSync(fd);
	}
}

const setsMinimum = (config: Record<string, unknown>) => "minTokens" in config || "min-tokens" in config;

/**
 * True when the project's jscpd config in `root` sets a token minimum, or cannot be read (then it
 * may, and the project's config is left in charge).
 */
export function projectSetsMinTokens(root: string): boolean {
	for (const name of [".jscpd.json", ".config/jscpd.json", ".config/.jscpd.json"]) {
		const own = readJson(join(root, name));
		if (own === "unreadable" || (own && setsMinimum(own))) return true;
	}
	const pkg = readJson(join(root, "package.json"));
	if (pkg === undefined || pkg === "unreadable") return false;
	const jscpd = pkg.jscpd;
	return typeof jscpd === "object" && jscpd !== null && setsMinimum(jscpd as Record<string, unknown>);
}
