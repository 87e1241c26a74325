/**
 * What the jscpd groups share: a plain jscpd scan with pi-jscpd's report options, memory sampling
 * from /proc, and the wait for an automatic check.
 *
 * The wait follows the scheduler's generations, not the list of recent check records: that list
 * keeps the last 10, so waiting for it to grow never ended once it was full (the 943 s run of
 * 2 December 2026 sat in a 300 s wait per round). It is bounded, and a check that ended without
 * consuming its generation (cancelled, stale, undelivered) fails the group with what happened.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JscpdController } from "../lib/extensions.ts";
import { nowMs, waitUntil } from "../lib/stats.ts";

function rssKb(pid: number): number {
	try {
		const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
		return match ? Number(match[1]) : 0;
	} catch {
		return 0;
	}
}

/** Descendants of this process (jscpd is a child of the runner). */
function children(): number[] {
	const pids: number[] = [];
	for (const task of readdirSync(`/proc/${process.pid}/task`)) {
		try {
			const list = readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8").trim();
			if (list) pids.push(...list.split(" ").map(Number));
		} catch {
			// The task ended.
		}
	}
	return pids;
}

/** Samples the peak RSS of child processes and the growth of this process until `stop()`. */
export function sampleMemory(): { stop: () => { childPeakMb: number; selfGrowthMb: number } } {
	const selfStart = rssKb(process.pid);
	let childPeak = 0;
	let selfPeak = selfStart;
	const timer = setInterval(() => {
		const sum = children().reduce((total, pid) => total + rssKb(pid), 0);
		childPeak = Math.max(childPeak, sum);
		selfPeak = Math.max(selfPeak, rssKb(process.pid));
	}, 20);
	return {
		stop: () => {
			clearInterval(timer);
			return { childPeakMb: childPeak / 1024, selfGrowthMb: Math.max(0, selfPeak - selfStart) / 1024 };
		},
	};
}

/** A plain jscpd full scan of `cwd` with pi-jscpd's report options: wall time and peak RSS. */
export function plainScan(command: string, cwd: string): Promise<{ ms: number; peakMb: number }> {
	const out = mkdtempSync(join(tmpdir(), "pi-lifecycle-bench-jscpd-"));
	const args = ["--reporters", "json", "--output", out, "--absolute", "--silent", "--", "."];
	const memory = sampleMemory();
	const start = nowMs();
	return new Promise((resolve, reject) => {
		execFile(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 900_000 }, (error) => {
			const ms = nowMs() - start;
			const { childPeakMb } = memory.stop();
			rmSync(out, { recursive: true, force: true });
			if (error) reject(error);
			else resolve({ ms, peakMb: childPeakMb });
		});
	});
}

/**
 * Waits until the automatic check of the latest mutation generation has recorded its outcome
 * (`attemptedGeneration` reaches it and no check runs); throws after `timeoutMs` with the last
 * record, so a check that is never recorded ends the group instead of hanging it.
 */
export async function checkRecorded(
	controller: JscpdController | undefined,
	timeoutMs: number,
): Promise<void> {
	const target = controller?.status().scheduler.mutationGeneration ?? 0;
	const done = () => {
		const scheduler = controller?.status().scheduler;
		return (scheduler?.attemptedGeneration ?? 0) >= target && scheduler?.automaticActive === false;
	};
	await waitUntil(done, timeoutMs, 2);
	if (!done()) {
		const status = controller?.status();
		const records = status?.recentChecks
			.map((r) => `${r.generation}:${r.disposition}(${r.detail})`)
			.join(", ");
		throw new Error(
			`the check of generation ${target} was not recorded within ${timeoutMs} ms; records: ${records}`,
		);
	}
}
