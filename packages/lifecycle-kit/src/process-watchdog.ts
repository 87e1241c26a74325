/**
 * The parent-death safeguard of {@link runProcess}: one small Node process per Pi process, started
 * lazily at the first child. Pi tells it each child's process group over a pipe (`+pgid`, `-pgid`).
 * When Pi disappears, even by SIGKILL, the pipe closes (and its parent pid changes): it SIGKILLs
 * every group still listed and exits. It runs in its own process group so a Ctrl-C aimed at Pi's
 * group does not take it down before it has cleaned up. Costs one Node start per Pi process, not
 * one per child.
 *
 * A child whose group was not yet delivered when Pi dies (Pi was descheduled between the spawn and
 * the write, which a loaded machine stretches to many milliseconds) is still found on Linux: every
 * child carries {@link WATCHDOG_MARKER} in its environment (inherited by what it starts), and the
 * watchdog sweeps /proc for it on the way out. Elsewhere that window remains. Which of this runs
 * where is decided in platform.ts (`watchdogSupport`, passed in by the caller): this module imports
 * nothing of the kit, so it also runs on its own.
 */
import { type ChildProcess, spawn } from "node:child_process";

/** Where the watchdog runs, and whether it sweeps by environment marker (platform.ts decides). */
export interface WatchdogSupport {
	readonly watchdog: boolean;
	readonly environmentSweep: boolean;
}

const SOURCE = `"use strict";
const parent = process.argv[1];
const marker = process.argv[2];
const groups = new Set();
const sweep = () => {
	if (!marker) return; // given only where /proc can be swept (platform.ts)
	const fs = require("fs");
	let entries = [];
	try { entries = fs.readdirSync("/proc"); } catch { return; }
	for (const entry of entries) {
		if (!/^[0-9]+$/.test(entry)) continue;
		let environ;
		try { environ = fs.readFileSync("/proc/" + entry + "/environ", "latin1"); } catch { continue; }
		if (!environ.split("\\0").includes(marker)) continue;
		try { process.kill(-Number(entry), "SIGKILL"); } catch {}
		try { process.kill(Number(entry), "SIGKILL"); } catch {}
	}
};
const stop = () => { for (const g of groups) { try { process.kill(-g, "SIGKILL"); } catch {} } sweep(); process.exit(0); };
let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
	buffer += chunk;
	let i;
	while ((i = buffer.indexOf("\\n")) >= 0) {
		const line = buffer.slice(0, i); buffer = buffer.slice(i + 1);
		const pgid = Number(line.slice(1));
		if (!Number.isSafeInteger(pgid) || pgid <= 1) continue;
		if (line[0] === "+") groups.add(pgid); else groups.delete(pgid);
	}
});
process.stdin.on("end", stop); process.stdin.on("error", stop); process.stdin.on("close", stop);
// A starved watchdog can see the ppid change before it has read the groups waiting in the pipe:
// setImmediate runs after this loop iteration's I/O phase has read them.
setInterval(() => { if (String(process.ppid) !== parent) setImmediate(stop); }, 500);
process.on("SIGTERM", () => {}); process.on("SIGINT", () => {}); process.on("SIGHUP", () => {});`;

/** `NAME=value` put in every child's environment, unique to this Pi process. */
export const WATCHDOG_MARKER = `PI_LIFECYCLE_WATCHDOG=${process.pid}-${Date.now().toString(36)}`;

let watchdog: ChildProcess | undefined;
let failed = false;

function ensure(support: WatchdogSupport): ChildProcess | undefined {
	if (watchdog || failed || !support.watchdog) return watchdog;
	const sweepMarker = support.environmentSweep ? [WATCHDOG_MARKER] : [];
	try {
		const child = spawn(process.execPath, ["-e", SOURCE, "--", String(process.pid), ...sweepMarker], {
			detached: true,
			shell: false,
			stdio: ["pipe", "ignore", "ignore"],
			env: { PATH: "" },
			windowsHide: true,
		});
		child.on("error", () => {
			failed = true;
			watchdog = undefined;
		});
		child.on("exit", () => {
			if (watchdog === child) watchdog = undefined;
		});
		child.stdin?.on("error", () => undefined);
		// Neither the watchdog nor its pipe keeps Pi's event loop alive.
		child.unref();
		(child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
		watchdog = child;
	} catch {
		failed = true;
	}
	return watchdog;
}

/** Starts the watchdog if it is not running (before a child is spawned, so listing it is immediate). */
export function startWatchdog(support: WatchdogSupport): void {
	ensure(support);
}

/** Lists a live child's process group with the watchdog started by {@link startWatchdog}. */
export function watchGroup(pgid: number): void {
	watchdog?.stdin?.write(`+${pgid}\n`);
}

/** Removes a finished child's process group from the watchdog's list. */
export function unwatchGroup(pgid: number): void {
	watchdog?.stdin?.write(`-${pgid}\n`);
}
