/**
 * pi-jscpd's private temp dirs (`<tempRoot>/pi-jscpd-<pid>-XXXXXX`, one per jscpd run). A run removes
 * its own when it ends; when the Pi process was killed (kill -9, a crash) the dir stays, so the next
 * start removes the ones left behind: named with a process id that no longer runs, owned by this
 * user, real folders (never a symlink). A dir of a live process is never touched.
 */
import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/** The name prefix of this process's temp dirs (mkdtemp adds six characters). */
export function tempDirPrefix(): string {
	return `pi-jscpd-${process.pid}-`;
}

function isRunning(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: it runs, as another user.
		return (error as NodeJS.ErrnoException).code === "EPERM";
	}
}

/** Removes temp dirs left by dead pi-jscpd processes in `tempRoot`; resolves to the names removed. Never throws. */
export async function removeStaleTempDirs(tempRoot: string): Promise<string[]> {
	const names = await readdir(tempRoot).catch(() => [] as string[]);
	const removed: string[] = [];
	const uid = process.getuid?.();
	for (const name of names) {
		const pid = Number(/^pi-jscpd-(\d+)-[A-Za-z0-9]{6}$/.exec(name)?.[1]);
		if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || isRunning(pid)) continue;
		const path = join(tempRoot, name);
		const stat = await lstat(path).catch(() => undefined);
		if (!stat?.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue;
		await rm(path, { recursive: true, force: true }).catch(() => undefined);
		removed.push(name);
	}
	return removed;
}
