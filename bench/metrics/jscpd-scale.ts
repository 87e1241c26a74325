/**
 * pi-jscpd's automatic changed-check at monorepo scale (group `jscpd-scale`): generated git-tracked
 * TypeScript trees of 2,000 and 20,000 files (200 and 2,000 in smoke mode). Per size: the check
 * after the model rewrote 3 files (settle → check recorded) vs a plain jscpd 5.3.2 full scan of the
 * same tree with the same report options, run back to back: at 2,000 files 5 rounds of check →
 * plain scan (each check divided by the faster neighbouring scan), at 20,000 files 3 checks after
 * one plain scan; the median round is the figure. The check scans the changed files
 * and their partner files (the project's fingerprint index): its cost follows the changed files,
 * not the tree. Memory: peak RSS of the jscpd process plus the growth of this Node process's RSS
 * during the check, vs the plain scan's peak RSS; sampled every 20 ms from /proc (Linux).
 *
 * These trees are made of alike functions, so a session with the default kinds would scan them
 * twice at its start (the near-copy scan, then exact clones only; kinds.ts `nearCopyOverload`):
 * the sessions here set `"kinds": ["exact"]`, which is where that fallback lands, and the plain scan
 * is an exact scan too.
 *
 * Then the high-duplication case of issue 31 (`jscpd-highdup-*`): 10,000 files, the cjs and esm
 * builds of 5,000 modules (1,000 in smoke mode), 9,000 exact clone groups, with the default
 * settings: the baseline must be accepted (near-copies dropped for time or size, said in status),
 * and a check after 3 changed files must be cheap.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reply, toolCalls } from "@pi-lifecycle/lifecycle-kit/testing";
import { createJscpdExtension } from "@pi-lifecycle/pi-jscpd";
import type { JscpdController } from "../lib/extensions.ts";
import { session } from "../lib/extensions.ts";
import { moduleSource, treeFile, typescriptTree } from "../lib/project.ts";
import { type Metric, metric } from "../lib/report.ts";
import { median, nowMs, round, waitUntil } from "../lib/stats.ts";
import { checkRecorded, plainScan, sampleMemory } from "./jscpd-common.ts";

interface SizeFigures {
	readonly files: number;
	/** Median over the rounds of the check time (and its ratio to the faster neighbouring plain scan). */
	readonly checkMs: number;
	readonly plainMs: number;
	readonly ratio: number;
	/** Every round: check ms, plain ms it was divided by, own steps ms. */
	readonly rounds: readonly { checkMs: number; plainMs: number; ownMs: number }[];
	readonly checkMb: number;
	readonly plainMb: number;
	readonly scope: string | undefined;
	/** The check's steps (ms) in the median round: change detection, focus, jscpd, comparison. */
	readonly steps: Record<string, number> | undefined;
}

/** The check's own time: focus, jscpd and comparison, without the change detection before it. */
function stepsOwnMs(steps: Record<string, number> | undefined, checkMs: number): number {
	return steps ? (steps.focus ?? 0) + (steps.scan ?? 0) + (steps.compare ?? 0) : checkMs;
}

/**
 * Check rounds per size: one jscpd process start is most of a check at 2,000 files, so a single
 * round spread 0.18–0.29 between two runs at the same load; 5 rounds there (plain scans between
 * them, about 1 s each), 3 at 20,000 files (one plain scan: a minute under load).
 */
function roundsFor(files: number): number {
	return files > 5_000 ? 3 : 5;
}

async function measure(files: number): Promise<SizeFigures> {
	const tree = typescriptTree(files);
	let controller: JscpdController | undefined;
	// A private agent dir whose settings allow a scan of the large tree (the default timeout is 30 s).
	const settings = mkdtempSync(join(tmpdir(), "pi-lifecycle-bench-agent-"));
	mkdirSync(join(settings, "pi-lifecycle"), { recursive: true });
	writeFileSync(
		join(settings, "pi-lifecycle", "pi-jscpd.json"),
		JSON.stringify({ timeoutMs: 600_000, kinds: ["exact"] }),
	);
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
		let plainPrevious = plainBefore;
		let plainMb = plainBefore.peakMb;
		let checkMb = 0;
		const rounds: { checkMs: number; plainMs: number; ownMs: number; steps?: Record<string, number> }[] = [];
		for (let pass = 1; pass <= roundsFor(files); pass++) {
			const writes = [1, 2, 3].map((k) => ({
				name: "write",
				args: { path: treeFile(k * 37), content: moduleSource(k * 37, pass) },
			}));
			h.faux.setResponses([toolCalls(writes), reply("rewrote three files")]);
			await h.prompt(`Rewrite three files (${pass}).`);
			const memory = sampleMemory();
			const settled = nowMs();
			await checkRecorded(controller, 600_000);
			const checkMs = nowMs() - settled;
			const used = memory.stop();
			checkMb = Math.max(checkMb, used.childPeakMb + used.selfGrowthMb);
			const record = controller?.status().lastRecord;
			if (record?.disposition !== "recorded")
				throw new Error(`check ended ${record?.disposition}: ${record?.detail}`);
			const steps = controller?.status().lastOutcome?.ms as Record<string, number> | undefined;
			// At 20,000 files one plain scan is a minute: the neighbour before is enough.
			const plainAfter = files > 5_000 ? plainPrevious : await plainScan(command, tree);
			plainMb = Math.max(plainMb, plainAfter.peakMb);
			const plainMs = Math.min(plainPrevious.ms, plainAfter.ms);
			rounds.push({ checkMs, plainMs, ownMs: stepsOwnMs(steps, checkMs), ...(steps ? { steps } : {}) });
			plainPrevious = plainAfter;
		}
		const byRatio = [...rounds].sort((a, b) => a.checkMs / a.plainMs - b.checkMs / b.plainMs);
		const middle = byRatio[Math.floor(byRatio.length / 2)] as (typeof rounds)[number];
		return {
			files,
			checkMs: median(rounds.map((r) => r.checkMs)),
			plainMs: median(rounds.map((r) => r.plainMs)),
			ratio: middle.checkMs / middle.plainMs,
			rounds: rounds.map((r) => ({
				checkMs: round(r.checkMs, 0),
				plainMs: round(r.plainMs, 0),
				ownMs: r.ownMs,
			})),
			checkMb,
			plainMb,
			scope: controller?.status().lastOutcome?.scope,
			steps: middle.steps,
		};
	} finally {
		await h.dispose();
		rmSync(tree, { recursive: true, force: true });
		rmSync(settings, { recursive: true, force: true });
	}
}

/** The check's own time (focus, jscpd, comparison), median over the rounds. */
function ownMs(f: SizeFigures): number {
	return median(f.rounds.map((r) => r.ownMs));
}

/** One generated function of ~22 lines whose names and literals are its own (`id`): no exact clone of another. */
function moduleFunction(id: string, seed: number): string {
	const lines = [`function ${id}(input, options) {`, `	const result_${id} = [];`];
	for (let k = 0; k < 6; k++) {
		lines.push(
			`	if (input.${id}_f${k} !== undefined && options.limit_${k} > ${seed + k}) {`,
			`		result_${id}.push({ key: "${id}_${k}", value: input.${id}_f${k} * ${(seed * 7 + k) % 97} });`,
			"	}",
		);
	}
	lines.push(`	return result_${id};`, "}");
	return `${lines.join("\n")}\n`;
}

/**
 * The published-package tree of issue 31: `lib/cjs/mN.js` and `lib/esm/mN.js` hold the same two
 * functions of module N (cjs and esm wrappers around them), except that 1 in 5 modules' second
 * function differs between the builds: 2 × modules × 4/5 + modules / 5 = 1.8 × modules exact groups.
 */
export function publishedTree(modules: number): string {
	const dir = mkdtempSync(join(tmpdir(), "pi-lifecycle-bench-highdup-"));
	for (let i = 0; i < modules; i++) {
		const sub = Math.floor(i / 50);
		const a = moduleFunction(`m${i}a`, i);
		const b = moduleFunction(`m${i}b`, i + 1);
		const bEsm = i % 5 === 0 ? moduleFunction(`m${i}c`, i + 2) : b;
		for (const build of ["cjs", "esm"]) {
			mkdirSync(join(dir, "lib", build, `d${sub}`), { recursive: true });
			// The build's own export line between the functions keeps their clones apart (two groups).
			const text =
				build === "cjs"
					? `"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n${a}exports.m${i}a = m${i}a;\n${b}exports.m${i}b = m${i}b;\n`
					: `${a}export { m${i}a };\n${bEsm}export { m${i}b };\n`;
			writeFileSync(join(dir, "lib", build, `d${sub}`, `m${i}.js`), text);
		}
	}
	return dir;
}

interface HighDupFigures {
	readonly files: number;
	readonly baselineMs: number;
	readonly status: string;
	readonly groups: number;
	readonly kinds: string;
	readonly fallback: string | undefined;
	readonly checkMs: number;
	readonly plainMs: number;
	readonly found: string | undefined;
	readonly scope: string | undefined;
}

/** The 10,000-file high-duplication baseline and a check after 3 changed files, default settings. */
async function measureHighDup(modules: number): Promise<HighDupFigures> {
	const tree = publishedTree(modules);
	let controller: JscpdController | undefined;
	const settings = mkdtempSync(join(tmpdir(), "pi-lifecycle-bench-agent-"));
	const factory = createJscpdExtension({ agentDir: () => settings, onController: (c) => (controller = c) });
	const started = nowMs();
	const h = await session([{ name: "pi-jscpd", factory }], { cwd: tree });
	try {
		await waitUntil(() => controller?.status().baseline.status !== "pending", 900_000, 50);
		await controller?.settled();
		const baselineMs = nowMs() - started;
		const baseline = controller?.status().baseline;
		if (baseline?.status !== "accepted")
			throw new Error(`high-dup baseline ${baseline?.status}: ${baseline?.reason}`);
		const capability = controller?.status().capability as { command?: string } | undefined;
		const command = capability?.command;
		if (!command) throw new Error("jscpd unavailable");
		const plain = await plainScan(command, tree);
		// Two modules rewritten, and a third file: a copy of module 7's first function.
		const copy = moduleFunction("m7a", 7);
		const writes = [
			{
				name: "write",
				args: { path: "lib/esm/d0/m3.js", content: `${moduleFunction("m3x", 3)}export { m3x };\n` },
			},
			{
				name: "write",
				args: { path: "lib/esm/d0/m4.js", content: `${moduleFunction("m4x", 4)}export { m4x };\n` },
			},
			{ name: "write", args: { path: "src/copied.js", content: `${copy}export { m7a };\n` } },
		];
		h.faux.appendResponses([toolCalls(writes), reply("rewrote two modules and copied one")]);
		await h.prompt("Rewrite two modules and copy one.");
		const settled = nowMs();
		await checkRecorded(controller, 600_000);
		const checkMs = nowMs() - settled;
		const last = controller?.status().lastOutcome;
		return {
			files: modules * 2,
			baselineMs,
			status: baseline.status,
			groups: baseline.groups ?? 0,
			kinds: (baseline.kinds ?? []).join(","),
			fallback: baseline.fallback,
			checkMs,
			plainMs: plain.ms,
			found: last?.kind === "findings" ? last.text : `${last?.kind}: ${last?.text}`,
			scope: last?.scope,
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
			ratio: round(f.ratio, 3),
			rounds: f.rounds,
			checkMb: round(f.checkMb, 1),
			plainMb: round(f.plainMb, 1),
			scope: f.scope,
			steps: f.steps,
		})),
		checkGrowth: round(large.checkMs / small.checkMs, 2),
		ownGrowth: round(ownMs(large) / ownMs(small), 2),
		plainGrowth: round(large.plainMs / small.plainMs, 2),
		filesGrowth: large.files / small.files,
	};
	const high = await measureHighDup(smoke ? 1_000 : 5_000);
	const highContext = {
		files: high.files,
		baselineS: round(high.baselineMs / 1000, 1),
		baseline: high.status,
		kinds: high.kinds,
		fallback: high.fallback,
		checkMs: round(high.checkMs, 0),
		plainMs: round(high.plainMs, 0),
		lastCheck: high.found,
		scope: high.scope,
	};
	const ratio = (f: SizeFigures) => round(f.ratio, 3);
	return [
		metric(
			`jscpd-changed-check-${small.files}`,
			`automatic changed-check (3 changed files) vs plain jscpd scan, ${small.files} files (time)`,
			ratio(small),
			"×",
			"<=",
			0.15,
			context,
		),
		metric(
			`jscpd-changed-check-${large.files}`,
			`automatic changed-check (3 changed files) vs plain jscpd scan, ${large.files} files (time)`,
			ratio(large),
			"×",
			"<=",
			0.1,
			context,
		),
		metric(
			"jscpd-check-growth",
			`check's own time (focus, jscpd, comparison) at ${large.files} files / at ${small.files} files, 3 changed files each`,
			context.ownGrowth,
			"×",
			"<=",
			2,
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
		metric(
			"jscpd-highdup-baseline",
			`accepted baseline of a ${high.files}-file published-package tree (cjs + esm builds), clone groups`,
			high.groups,
			"groups",
			">=",
			smoke ? 1_800 : 9_000,
			highContext,
		),
		metric(
			"jscpd-highdup-check",
			`automatic check (3 changed files) vs plain jscpd scan, ${high.files}-file high-duplication tree`,
			round(high.checkMs / high.plainMs, 3),
			"×",
			"<=",
			0.1,
			highContext,
		),
	];
}
