/**
 * Retained heap after 1,000 turns, all three extensions vs none: each variant in its own child
 * process (`node --expose-gc`), full GCs, `process.memoryUsage().heapUsed` with the session still
 * open. Variants alternate; median over repeats of (with − without). Two repeats: the difference
 * repeats to ±0.02 MB (1.17, 1.15, 1.14 MB in three repeats on 3 December 2026), and each child is a
 * 1,000-turn session (20–50 s).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { type Metric, metric } from "../lib/report.ts";
import { median, round } from "../lib/stats.ts";

const CHILD = join(import.meta.dirname, "heap-child.ts");
const MB = 1024 * 1024;

function child(variant: "all" | "none", turns: number): { start: number; end: number; entries: number } {
	const out = execFileSync(process.execPath, ["--expose-gc", CHILD, variant, String(turns)], {
		cwd: import.meta.dirname,
		encoding: "utf8",
		timeout: 300_000,
	});
	return JSON.parse(out.trim().split("\n").at(-1) as string);
}

/** See the module comment. */
export async function heap(smoke: boolean): Promise<Metric[]> {
	const turns = smoke ? 100 : 1_000;
	const repeats = smoke ? 1 : 2;
	const diffs: number[] = [];
	const growth: { none: number[]; all: number[] } = { none: [], all: [] };
	const entries: Record<string, number> = {};
	for (let i = 0; i < repeats; i++) {
		const none = child("none", turns);
		const all = child("all", turns);
		diffs.push((all.end - none.end) / MB);
		growth.none.push((none.end - none.start) / MB);
		growth.all.push((all.end - all.start) / MB);
		entries.none = none.entries;
		entries.all = all.entries;
	}
	return [
		metric(
			"heap",
			`retained heap after ${turns} turns, all three minus none`,
			round(median(diffs), 2),
			"MB",
			"<=",
			10,
			{
				repeats,
				diffsMB: diffs.map((d) => round(d, 2)),
				medianGrowthNoneMB: round(median(growth.none), 2),
				medianGrowthAllMB: round(median(growth.all), 2),
				sessionEntries: entries,
			},
		),
	];
}
