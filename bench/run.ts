/**
 * `pnpm bench` (turbo → `node run.ts` here): every figure of the benchmark issue, written to
 * results/latest.json and results/latest.md with its target, pass/miss and the machine.
 * `node run.ts --smoke` is the short variant (fewer repeats, smaller inputs); `--only a,b` runs some
 * groups. The exit code is 1 when a group crashed; a missed target is a result, reported in the
 * files and on stderr, and fails the run only with `--strict` (for gating). Ratios are measured side by side in the same run, medians over repeats; absolute times are
 * context only. The packages are imported from their BUILT dist/ (build first).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Isolate every settings/baseline read before any extension module loads.
process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-lifecycle-bench-agent-"));

const { machine, writeReport } = await import("./lib/report.ts");
type Metric = import("./lib/report.ts").Metric;

const smoke = process.argv.includes("--smoke");
const strict = process.argv.includes("--strict");
const onlyIndex = process.argv.indexOf("--only");
const only = onlyIndex >= 0 ? new Set((process.argv[onlyIndex + 1] ?? "").split(",")) : undefined;

const groups: [string, () => Promise<Metric[]>][] = [
	["kit", async () => (await import("./metrics/kit.ts")).kitPrimitives(smoke)],
	["reset", async () => (await import("./metrics/reset.ts")).resetRequests(smoke)],
	["digest", async () => (await import("./metrics/reset-digest.ts")).resetDigest(smoke)],
	["wall", async () => (await import("./metrics/wall.ts")).wallTime(smoke)],
	["scaling", async () => (await import("./metrics/scaling.ts")).scaling(smoke)],
	["jscpd", async () => (await import("./metrics/jscpd.ts")).jscpdFigures(smoke)],
	["jscpd-scale", async () => (await import("./metrics/jscpd-scale.ts")).jscpdScale(smoke)],
	["jscpd-walk", async () => (await import("./metrics/jscpd-walk.ts")).jscpdWalk(smoke)],
	["startup", async () => (await import("./metrics/startup.ts")).startup(smoke)],
	["heap", async () => (await import("./metrics/heap.ts")).heap(smoke)],
	["goal", async () => (await import("./metrics/goal-run.ts")).goalRun(smoke)],
	["goal-active", async () => (await import("./metrics/goal-active.ts")).goalActive(smoke)],
	["goal-runaway", async () => (await import("./metrics/goal-runaway.ts")).goalRunaway(smoke)],
	["footprint", async () => (await import("./metrics/footprint.ts")).requestFootprint(smoke)],
	["context-economics", async () => (await import("./metrics/context-economics.ts")).contextEconomics(smoke)],
];

const started = Date.now();
const host = machine();
const metrics: Metric[] = [];
let failed = false;
for (const [name, run] of groups) {
	if (only && !only.has(name)) continue;
	const t = Date.now();
	try {
		const got = await run();
		metrics.push(...got);
		console.error(
			`[bench] ${name}: ${got.map((m) => `${m.id}=${m.value}${m.pass ? "" : " MISS"}`).join(", ")} (${((Date.now() - t) / 1000).toFixed(1)} s)`,
		);
	} catch (error) {
		failed = true;
		console.error(`[bench] ${name} failed: ${(error as Error).stack ?? error}`);
	}
}
const report = {
	date: new Date().toISOString(),
	smoke,
	durationS: Math.round((Date.now() - started) / 1000),
	machine: host,
	metrics,
};
console.log(writeReport(join(import.meta.dirname, "results"), report));
const missed = metrics.filter((m) => !m.pass);
console.error(
	`[bench] ${metrics.length - missed.length} of ${metrics.length} targets met${
		missed.length > 0
			? `; missed: ${missed.map((m) => (m.note ? `${m.id} (${m.note})` : m.id)).join(", ")}`
			: ""
	}${failed ? "; some groups crashed (see above)" : ""}`,
);
if (failed || (strict && missed.length > 0)) process.exitCode = 1;
