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
		if (!then || !sameFile(then, now)) changed.push(path);
	}
	for (const path of before.keys()) if (!after.has(path)) changed.push(path);
	return changed.sort();
}
