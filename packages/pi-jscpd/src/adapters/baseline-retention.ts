/**
 * Baseline retention: every session writes one baseline file (baseline.ts), so old ones are removed
 * at session start, in the background:
 *
 * - a baseline older than {@link MAX_BASELINE_AGE_MS} (by its last write);
 * - a baseline whose session no longer exists (no `<time>_<id>.jsonl` in Pi's session folders:
 *   `<agentDir>/sessions/*` and the running session's own folder) once it is older than
 *   {@link ORPHAN_GRACE_MS} (Pi writes a session file only after the first answer, so a young
 *   baseline may belong to a session that has none yet);
 * - a leftover `*.tmp` of an interrupted write older than the grace period.
 *
 * The running session's own baseline is never removed. Only regular files directly in the
 * baseline directory are considered; symlinks and folders are left alone. Never throws.
 */
import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/** Baselines not written for this long are removed (30 days). */
export const MAX_BASELINE_AGE_MS = 30 * 24 * 60 * 60 * 1000;
/** A baseline without a session file is kept this long (1 day). */
export const ORPHAN_GRACE_MS = 24 * 60 * 60 * 1000;

/** Session ids of the `<time>_<id>.jsonl` files in `folders` (missing folders are skipped). */
async function sessionIds(folders: readonly string[]): Promise<Set<string>> {
	const ids = new Set<string>();
	for (const folder of folders) {
		const names = await readdir(folder).catch(() => [] as string[]);
		for (const name of names) {
			const match = /^[^_]+_(.+)\.jsonl$/.exec(name);
			if (match?.[1]) ids.add(match[1].replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200));
		}
	}
	return ids;
}

/** What {@link pruneBaselines} needs. */
export interface RetentionRequest {
	/** pi-jscpd's baseline directory. */
	readonly directory: string;
	/** Pi's agent directory (`sessions/*` are searched for session files). */
	readonly agentDir: string;
	/** The running session's folder, when it has one. */
	readonly sessionDir?: string;
	/** Baseline file names the running session uses (kept). */
	readonly keep: ReadonlySet<string>;
	/** Now (ms since the epoch). */
	readonly now?: number;
}

/** Removes old and orphaned baselines (see the module comment); resolves to the names removed. */
export async function pruneBaselines(request: RetentionRequest): Promise<string[]> {
	const now = request.now ?? Date.now();
	const names = await readdir(request.directory).catch(() => [] as string[]);
	if (names.length === 0) return [];
	const sessionsRoot = join(request.agentDir, "sessions");
	const projects = await readdir(sessionsRoot).catch(() => [] as string[]);
	const live = await sessionIds([
		...projects.map((name) => join(sessionsRoot, name)),
		...(request.sessionDir ? [request.sessionDir] : []),
	]);
	const removed: string[] = [];
	for (const name of names) {
		if (request.keep.has(name)) continue;
		const isBaseline = name.endsWith(".json");
		if (!isBaseline && !name.endsWith(".tmp")) continue;
		const path = join(request.directory, name);
		const stat = await lstat(path).catch(() => undefined);
		if (!stat?.isFile()) continue;
		const age = now - stat.mtimeMs;
		const orphan = !isBaseline || !live.has(name.slice(0, -".json".length));
		if (age > MAX_BASELINE_AGE_MS || (orphan && age > ORPHAN_GRACE_MS)) {
			await rm(path, { force: true }).catch(() => undefined);
			removed.push(name);
		}
	}
	return removed;
}
