/**
 * Precision and recall of jscpd 5.3.2's clone kinds on the labelled corpus (generate.ts): one jscpd
 * run over the whole corpus per detection setting; a sample counts as reported when a clone joins
 * its `a` and `b` (clones between samples are counted apart as `incidental`). Positives: recall
 * per edit class. Negatives: false reports. Usage:
 * `node corpus/evaluate.ts <corpusDir> [out.json] [setting names…]` (every setting when none is named).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { Sample } from "./generate.ts";

/** A detection setting: jscpd arguments before the paths. */
export interface Setting {
	readonly name: string;
	readonly args: readonly string[];
	/**
	 * Exact clones under this many tokens are dropped from the report: pi-jscpd's filter when
	 * near-copies are detected with a lower `--min-tokens` than exact clones (kinds.ts).
	 */
	readonly exactMinTokens?: number;
}

export const SETTINGS: readonly Setting[] = [
	{ name: "exact", args: [] },
	{ name: "renamed", args: ["--ignore-identifiers"] },
	{ name: "renamed+literals", args: ["--ignore-identifiers", "--ignore-literals"] },
	...[0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9].map((t) => ({
		name: `similar@${t}`,
		args: ["--similarity", String(t)],
	})),
	...[0.65, 0.7, 0.75, 0.8].map((t) => ({
		name: `renamed+similar@${t}`,
		args: ["--ignore-identifiers", "--similarity", String(t)],
	})),
	...[0.65, 0.7, 0.75, 0.8].map((t) => ({
		name: `renamed+literals+similar@${t}`,
		args: ["--ignore-identifiers", "--ignore-literals", "--similarity", String(t)],
	})),
	{ name: "renamed+gap2", args: ["--ignore-identifiers", "--max-gap-lines", "2"] },
	{
		name: "renamed+gap4+similar@0.7",
		args: ["--ignore-identifiers", "--max-gap-lines", "4", "--similarity", "0.7"],
	},
	{ name: "renamed k30", args: ["--ignore-identifiers", "--min-tokens", "30"] },
	...[0.65, 0.7, 0.75, 0.8].map((t) => ({
		name: `similar@${t} k30`,
		args: ["--similarity", String(t), "--min-tokens", "30"],
	})),
	{ name: "similar@0.7 k40", args: ["--similarity", "0.7", "--min-tokens", "40"] },
	{ name: "similar@0.7 k30 l4", args: ["--similarity", "0.7", "--min-tokens", "30", "--min-lines", "4"] },
	{
		name: "renamed+similar@0.7 k30",
		args: ["--ignore-identifiers", "--similarity", "0.7", "--min-tokens", "30"],
	},
	// pi-jscpd's default: near-copies from 30 tokens, exact clones from jscpd's 50 as before.
	...[0.65, 0.7].map((t) => ({
		name: `similar@${t} k30, exact k50`,
		args: ["--similarity", String(t), "--min-tokens", "30"],
		exactMinTokens: 50,
	})),
];

/** The setting's report: exact clones under its `exactMinTokens` dropped. */
export function settingDuplicates(setting: Setting, duplicates: readonly RawDuplicate[]): RawDuplicate[] {
	const least = setting.exactMinTokens;
	if (least === undefined) return [...duplicates];
	return duplicates.filter((d) => (d.kind ?? "exact") !== "exact" || d.tokens >= least);
}

/** The settings named on the command line (every setting when none is named). */
export function chosenSettings(names: readonly string[]): readonly Setting[] {
	const unknown = names.filter((name) => !SETTINGS.some((s) => s.name === name));
	if (unknown.length > 0) throw new Error(`unknown setting(s): ${unknown.join(", ")}`);
	return names.length > 0 ? SETTINGS.filter((s) => names.includes(s.name)) : SETTINGS;
}

/** jscpd's executable in this workspace. */
export function jscpdBin(workspace: string): string {
	return join(workspace, "packages/pi-jscpd/node_modules/.bin/jscpd");
}

interface RawSide {
	readonly name: string;
	readonly start: number;
	readonly end: number;
}
/** One duplicate of a jscpd JSON report. */
export interface RawDuplicate {
	readonly kind?: string;
	readonly similarity?: number;
	readonly lines: number;
	readonly tokens: number;
	readonly firstFile: RawSide;
	readonly secondFile: RawSide;
}

/** jscpd's arguments for one JSON report of `args` into `out`, before the paths (shared by the bench's runners). */
export function jscpdReportArgs(args: readonly string[], out: string): string[] {
	return [...args, "--reporters", "json", "--output", out, "--absolute", "--silent"];
}

/** Runs jscpd with `args` on `paths`; returns the duplicates and the wall time. */
export function runJscpd(
	workspace: string,
	args: readonly string[],
	paths: readonly string[],
	cwd: string,
): { duplicates: RawDuplicate[]; ms: number; lines: number } {
	const out = mkdtempSync(join(tmpdir(), "f21-eval-"));
	try {
		const started = performance.now();
		execFileSync(jscpdBin(workspace), [...jscpdReportArgs(args, out), "--no-gitignore", "--", ...paths], {
			cwd,
			stdio: ["ignore", "ignore", "pipe"],
			env: { ...process.env, JSCPD_NO_TIPS: "1" },
			maxBuffer: 1 << 26,
		});
		const ms = performance.now() - started;
		const report = JSON.parse(readFileSync(join(out, "jscpd-report.json"), "utf8"));
		return { duplicates: report.duplicates, ms, lines: report.statistics?.total?.lines ?? 0 };
	} finally {
		rmSync(out, { recursive: true, force: true });
	}
}

/** Figures of one setting. */
export interface SettingResult {
	readonly name: string;
	readonly args: readonly string[];
	readonly recall: number;
	readonly precision: number;
	readonly falseReports: number;
	readonly negatives: number;
	readonly positives: number;
	readonly found: number;
	readonly incidental: number;
	readonly recallByClass: Readonly<Record<string, number>>;
	readonly falseByShape: Readonly<Record<string, number>>;
	/** Mean share of the copy's lines inside a reported clone, over found positives. */
	readonly coverage: number;
	readonly ms: number;
}

function round(value: number, digits = 3): number {
	return Math.round(value * 10 ** digits) / 10 ** digits;
}

/** Evaluates one setting on the corpus in `dir`. */
export function evaluate(
	workspace: string,
	dir: string,
	samples: readonly Sample[],
	setting: Setting,
): SettingResult {
	const run = runJscpd(workspace, setting.args, [dir], dir);
	const duplicates = settingDuplicates(setting, run.duplicates);
	const ms = run.ms;
	const hits = new Map<string, Set<number>>();
	let incidental = 0;
	for (const dup of duplicates) {
		const a = relative(dir, dup.firstFile.name).split(sep);
		const b = relative(dir, dup.secondFile.name).split(sep);
		if (a[0] !== b[0] || a[1] === b[1]) {
			incidental++;
			continue;
		}
		const covered = hits.get(a[0] as string) ?? new Set<number>();
		const side = a[1]?.startsWith("b") ? dup.firstFile : dup.secondFile;
		for (let line = side.start; line <= side.end; line++) covered.add(line);
		hits.set(a[0] as string, covered);
	}
	const byClass: Record<string, [number, number]> = {};
	const falseByShape: Record<string, number> = {};
	let found = 0;
	let falseReports = 0;
	let coverage = 0;
	for (const sample of samples) {
		const covered = hits.get(sample.dir);
		if (sample.positive) {
			const entry = byClass[sample.label] ?? [0, 0];
			entry[1]++;
			if (covered) {
				entry[0]++;
				found++;
				coverage += Math.min(1, covered.size / sample.lines);
			}
			byClass[sample.label] = entry;
		} else if (covered) {
			falseReports++;
			const shape = sample.label.slice("negative:".length);
			falseByShape[shape] = (falseByShape[shape] ?? 0) + 1;
		}
	}
	const positives = samples.filter((s) => s.positive).length;
	const negatives = samples.length - positives;
	return {
		name: setting.name,
		args: setting.args,
		recall: round(found / positives),
		precision: round(found + falseReports === 0 ? 1 : found / (found + falseReports)),
		falseReports,
		negatives,
		positives,
		found,
		incidental,
		recallByClass: Object.fromEntries(
			Object.entries(byClass).map(([k, [hit, all]]) => [k, round(hit / all)]),
		),
		falseByShape,
		coverage: round(found === 0 ? 0 : coverage / found),
		ms: Math.round(ms),
	};
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const [corpus, outFile, ...names] = process.argv.slice(2);
	if (!corpus) throw new Error("usage: node corpus/evaluate.ts <corpusDir> [out.json] [settings…]");
	const workspace = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
	const dir = resolve(corpus);
	const { samples, seed } = JSON.parse(readFileSync(join(dir, "labels.json"), "utf8")) as {
		samples: Sample[];
		seed: number;
	};
	const results = chosenSettings(names).map((setting) => evaluate(workspace, dir, samples, setting));
	for (const r of results)
		console.log(
			`${r.name.padEnd(34)} recall ${r.recall.toFixed(3)} precision ${r.precision.toFixed(3)} false ${r.falseReports}/${r.negatives} coverage ${r.coverage} ${r.ms} ms`,
		);
	if (outFile) writeFileSync(outFile, `${JSON.stringify({ seed, results }, null, "\t")}\n`);
}
