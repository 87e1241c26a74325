/** Which paths differ between two walks of the project (pure). */

/** The fields of a file signature the comparison reads (project-walk.ts `FileSignature`). */
export interface WalkedFile {
	readonly size: number;
	readonly mtimeMs: number;
	readonly ctimeMs: number;
	readonly ino: number;
	/** Content hash, for a racy file only. */
	readonly hash?: string;
}

/** Whether two signatures describe the same content: a hash on both sides decides alone. */
export function sameFile(a: WalkedFile, b: WalkedFile): boolean {
	if (a.size !== b.size) return false;
	if (a.hash !== undefined && b.hash !== undefined) return a.hash === b.hash;
	return a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/**
 * Paths created, deleted or changed between `before` and `after`, sorted. O(files of both walks);
 * nothing is read: a content hash was taken by the walk only where the times could not decide.
 */
export function diffWalks(
	before: ReadonlyMap<string, WalkedFile>,
	after: ReadonlyMap<string, WalkedFile>,
): string[] {
	const changed: string[] = [];
	for (const [path, now] of after) {
		const then = before.get(path);
		// A walk hands back the previous signature itself for an unchanged file (project-walk.ts).
		if (then !== now && (!then || !sameFile(then, now))) changed.push(path);
	}
	// Every path of `after` found in `before` and as many of them: nothing was deleted.
	const kept = after.size - changed.length + changed.filter((path) => before.has(path)).length;
	if (kept !== before.size) for (const path of before.keys()) if (!after.has(path)) changed.push(path);
	return changed.sort();
}

/**
 * Rule "a renamed file keeps its baseline": among the `changed` paths, a created path with the
 * inode, size and mtime of a deleted one (a rename keeps all three; only ctime moves) is that file
 * under a new name, so its code existed at the baseline. A file the session wrote or edited (`own`)
 * on either side is not: its content is the session's work wherever it goes. Created path →
 * deleted path; O(changed paths).
 */
export function renamedFiles(
	before: ReadonlyMap<string, WalkedFile>,
	after: ReadonlyMap<string, WalkedFile>,
	changed: readonly string[],
	own: ReadonlySet<string>,
): Map<string, string> {
	const key = (file: WalkedFile) => `${file.ino}:${file.size}:${file.mtimeMs}`;
	const deleted = new Map<string, string | undefined>();
	for (const path of changed) {
		const then = before.get(path);
		if (!then || after.has(path)) continue;
		// Two deleted files with one key (a hard link): which one moved is not known.
		deleted.set(key(then), deleted.has(key(then)) || own.has(path) ? undefined : path);
	}
	const renamed = new Map<string, string>();
	for (const path of changed) {
		const now = after.get(path);
		if (!now || before.has(path) || own.has(path)) continue;
		const from = deleted.get(key(now));
		const then = from === undefined ? undefined : before.get(from);
		if (from === undefined || !then) continue;
		if (then.hash !== undefined && now.hash !== undefined && then.hash !== now.hash) continue;
		renamed.set(path, from);
		deleted.set(key(now), undefined);
	}
	return renamed;
}
