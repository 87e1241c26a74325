/**
 * This process's descendants, read from /proc (Linux): lets a scripted model "think" until a
 * background child (pi-jscpd's jscpd) has finished, instead of for a fixed time that a loaded
 * machine overruns.
 *
 * The kit's process-memory.ts reads /proc/<pid>/stat the same way (fields after the last ")"), but
 * keeps it private to its memory bound (it sums a process group's resident memory, asynchronously,
 * and exports nothing of it): exporting a one-line parser from the kit's public API for a test
 * helper would cost more than this copy.
 */
import { readdirSync, readFileSync } from "node:fs";

function parentOf(pid: string): string | undefined {
	try {
		// Field 4 of /proc/<pid>/stat, after the parenthesised command name (which may hold spaces).
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
	} catch {
		return undefined;
	}
}

function commandLine(pid: string): string {
	try {
		return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
	} catch {
		return "";
	}
}

/** Whether a descendant of this process has a command line matching `pattern` (false off Linux). */
export function hasDescendant(pattern: RegExp): boolean {
	let pids: string[];
	try {
		pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
	} catch {
		return false;
	}
	const parents = new Map(pids.map((pid) => [pid, parentOf(pid)]));
	const mine = new Set([String(process.pid)]);
	let grew = true;
	while (grew) {
		grew = false;
		for (const [pid, parent] of parents) {
			if (parent && mine.has(parent) && !mine.has(pid)) {
				mine.add(pid);
				grew = true;
			}
		}
	}
	mine.delete(String(process.pid));
	return [...mine].some((pid) => pattern.test(commandLine(pid)));
}

/** Resolves once no descendant matches `pattern` (polled), or after `timeoutMs`. */
export async function untilNoDescendant(pattern: RegExp, timeoutMs = 60_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline && hasDescendant(pattern))
		await new Promise((resolve) => setTimeout(resolve, 50));
}
