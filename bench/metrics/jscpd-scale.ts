/**
 * pi-jscpd's automatic changed-check at monorepo scale (group `jscpd-scale`): generated git-tracked
 * TypeScript trees of 2,000 and 20,000 files (200 and 2,000 in smoke mode). Per size: the check
 * after the model rewrote 3 files (settle → check recorded) vs a plain jscpd 5.3.2 full scan of the
 * same tree with the same report options, run back to back (plain → check → plain; the check is
 * divided by the faster neighbour). Memory: peak RSS of the jscpd process plus the growth of this
 * Node process's RSS during the check (report read, parse, line index, selection), vs the plain
 * scan's peak RSS; sampled every 20 ms from /proc (Linux). Growth from the smallest to the largest
 * tree is reported as context.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reply, toolCalls } from "@pi-lifecycle/lifecycle-kit/testing";
import { createJscpdExtension } from "@pi-lifecycle/pi-jscpd";
import type { JscpdController } from "../lib/extensions.ts";
import { session } from "../lib/extensions.ts";
import { moduleSource, treeFile, typescriptTree } from "../lib/project.ts";
import { type Metric, metric } from "../lib/report.ts";
import { nowMs, round, waitUntil } from "../lib/stats.ts";

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
function sampleMemory(): { stop: () => { childPeakMb: number; selfGrowthMb: number } } {
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

function plainScan(command: string, cwd: string): Promise<{ ms: number; peakMb: number }> {
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

interface SizeFigures {
	readonly files: number;
	readonly checkMs: number;
	readonly plainMs: number;
	readonly checkMb: number;
	readonly plainMb: number;
}

async function measure(files: number): Promise<SizeFigures> {
	const tree = typescriptTree(files);
	let controller: JscpdController | undefined;
	// A private agent dir whose settings allow a scan of the large tree (the default timeout is 30 s).
	const settings = mkdtempSync(join(tmpdir(), "pi-lifecycle-bench-agent-"));
	mkdirSync(join(settings, "pi-lifecycle"), { recursive: true });
	writeFileSync(join(settings, "pi-lifecycle", "pi-jscpd.json"), JSON.stringify({ timeoutMs: 600_000 }));
	const factory = createJscpdExtension({ agentDir: () => settings, onController: (c) => (controller = c) });
	const h = await session([{ name: "pi-jscpd", factory }], { cwd: tree });
	try {
		await waitUntil(() => controller?.status().baseline.status !== "pending", 1_800_000, 50);
		await controller?.settled();
		const status = controller?.status();
		if (status?.baseline.status !== "accepted")
			throw new Error(`baseline ${status?.baseline.status}: ${status?.baseline.reason}`);
		const command = (status.capability as { command?: string }).command;
		if (!command) throw new Error("jscpd unavailable");
		const plainBefore = await plainScan(command, tree);
		const writes = [1, 2, 3].map((k) => ({
			name: "write",
			args: { path: treeFile(k * 37), content: moduleSource(k * 37, 1) },
		}));
		h.faux.appendResponses([toolCalls(writes), reply("rewrote three files")]);
		const before = controller?.status().recentChecks.length ?? 0;
		await h.prompt("Rewrite three files.");
		const memory = sampleMemory();
		const settled = nowMs();
		await waitUntil(() => (controller?.status().recentChecks.length ?? 0) > before, 1_800_000, 2);
		const checkMs = nowMs() - settled;
		const used = memory.stop();
		const record = controller?.status().lastRecord;
		if (record?.disposition !== "recorded")
			throw new Error(`check ended ${record?.disposition}: ${record?.detail}`);
		const plainAfter = await plainScan(command, tree);
		const plain = plainBefore.ms <= plainAfter.ms ? plainBefore : plainAfter;
		return {
			files,
			checkMs,
			plainMs: plain.ms,
			checkMb: used.childPeakMb + used.selfGrowthMb,
			plainMb: Math.max(plainBefore.peakMb, plainAfter.peakMb),
		};
	} finally {
		await h.dispose();
		rmSync(tree, { recursive: true, force: true });
		rmSync(settings, { recursive: true, force: true });
	}
}

/** See the module comment. */
export async function jscpdScale(smoke: boolean): Promise<Metric[]> {
	const sizes = smoke ? [200, 2_000] : [2_000, 20_000];
	const figures: SizeFigures[] = [];
	for (const files of sizes) figures.push(await measure(files));
	const [small, large] = [figures[0], figures.at(-1)] as [SizeFigures, SizeFigures];
	const context = {
		sizes: figures.map((f) => ({
			files: f.files,
			checkMs: round(f.checkMs, 0),
			plainMs: round(f.plainMs, 0),
			checkMb: round(f.checkMb, 1),
			plainMb: round(f.plainMb, 1),
		})),
		checkGrowth: round(large.checkMs / small.checkMs, 2),
		plainGrowth: round(large.plainMs / small.plainMs, 2),
		filesGrowth: large.files / small.files,
	};
	return [
		metric(
			`jscpd-changed-check-${large.files}`,
			`automatic changed-check vs plain jscpd scan, ${large.files} files (time)`,
			round(large.checkMs / large.plainMs, 3),
			"×",
			"<=",
			1.2,
			context,
		),
		metric(
			`jscpd-changed-check-${large.files}-rss`,
			`automatic changed-check vs plain jscpd scan, ${large.files} files (peak RSS)`,
			round(large.checkMb / large.plainMb, 3),
			"×",
			"<=",
			1.2,
			context,
		),
	];
}
