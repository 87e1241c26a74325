/**
 * The memory bound of {@link runProcess}: the resident memory of a whole process group (a launcher
 * and the program it starts count together), sampled while it runs. Linux reads `/proc`; elsewhere
 * `ps -A -o pgid=,rss=` (no shell). Native programs have no heap flag, so this is the one bound that
 * holds for every child; a sample that cannot be taken counts as 0 (never a false kill).
 */
import { execFile } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { memoryReading } from "./platform.js";

/** How often the group's memory is sampled once it ran a while (sooner at the start: 10, 20, 40… ms). */
export const MEMORY_SAMPLE_MS = 250;
/** Every this many samples the whole group is counted (listing `/proc` costs more); the leader every time. */
const GROUP_EVERY = 4;

async function linuxRss(pid: string): Promise<number> {
	const status = await readFile(`/proc/${pid}/status`, "utf8");
	return Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? 0) * 1024;
}

async function linuxGroupRss(pgid: number, limitBytes: number, wholeGroup: boolean): Promise<number> {
	// The group leader first: a single program over the bound is caught without listing /proc.
	let total = await linuxRss(String(pgid)).catch(() => 0);
	if (total > limitBytes || !wholeGroup) return total;
	let entries: string[];
	try {
		entries = await readdir("/proc");
	} catch {
		return 0;
	}
	for (const entry of entries) {
		if (!/^\d+$/.test(entry) || entry === String(pgid)) continue;
		try {
			const stat = await readFile(`/proc/${entry}/stat`, "utf8");
			// Fields after the command (which may hold spaces and parentheses): state ppid pgrp …
			const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			if (Number(fields[2]) === pgid) total += await linuxRss(entry);
		} catch {
			// The process ended between the listing and the read.
		}
	}
	return total;
}

function psGroupRss(pgid: number): Promise<number> {
	return new Promise((resolve) => {
		execFile(
			"ps",
			["-A", "-o", "pgid=,rss="],
			{ timeout: 2_000, maxBuffer: 4 * 1024 * 1024 },
			(error, out) => {
				if (error) return resolve(0);
				let total = 0;
				for (const line of out.split("\n")) {
					const [group, rss] = line.trim().split(/\s+/);
					if (Number(group) === pgid) total += Number(rss) * 1024 || 0;
				}
				resolve(total);
			},
		);
	});
}

/**
 * Resident bytes of the processes in group `pgid` (0 when unreadable). On Linux it may stop counting
 * above `limitBytes`, and with `wholeGroup: false` counts the leader only.
 */
export function groupRss(
	pgid: number,
	limitBytes = Number.POSITIVE_INFINITY,
	wholeGroup = true,
): Promise<number> {
	switch (memoryReading()) {
		case "proc":
			return linuxGroupRss(pgid, limitBytes, wholeGroup);
		case "ps":
			return psGroupRss(pgid);
		case "none":
			return Promise.resolve(0);
	}
}

/**
 * Samples group `pgid` every {@link MEMORY_SAMPLE_MS} until the returned stop is called; calls
 * `over` once when it holds more than `limitBytes`.
 */
export function watchMemory(pgid: number, limitBytes: number, over: () => void): () => void {
	let stopped = false;
	let timer: NodeJS.Timeout | undefined;
	let count = 0;
	const sample = async () => {
		count++;
		const rss = await groupRss(pgid, limitBytes, count % GROUP_EVERY === 0);
		if (stopped) return;
		if (rss > limitBytes) {
			stopped = true;
			over();
			return;
		}
		timer = setTimeout(sample, Math.min(MEMORY_SAMPLE_MS, 10 * 2 ** (count - 1)));
	};
	timer = setTimeout(sample, 0);
	return () => {
		stopped = true;
		if (timer) clearTimeout(timer);
	};
}
