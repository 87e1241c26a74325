/**
 * Where the time of a near-copy scan goes on the bench's generated tree: jscpd's CPU time (through
 * /usr/bin/time) for exact, exact at 30 tokens, the default kinds with `--kind exact` (the function
 * comparison done, its pairs not written) and the default kinds in full; the report's size; the time
 * to `JSON.parse` it; and pi-jscpd's own `parseReport` (src/report.ts, bundled with the workspace's
 * esbuild). Usage: `node corpus/cost-breakdown.ts <out.json> [files]` (default 2000; Linux).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { typescriptTree } from "../lib/project.ts";
import { jscpdBin, jscpdReportArgs } from "./evaluate.ts";

const VARIANTS: readonly (readonly string[])[] = [
	[],
	["--min-tokens", "30"],
	["--similarity", "0.7", "--min-tokens", "30", "--kind", "exact"],
	["--similarity", "0.7", "--min-tokens", "30"],
];

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const [outFile, size] = process.argv.slice(2);
	if (!outFile) throw new Error("usage: node corpus/cost-breakdown.ts <out.json> [files]");
	const workspace = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
	const pnpm = join(workspace, "node_modules/.pnpm");
	const esbuildDir = readdirSync(pnpm).find((name) => name.startsWith("esbuild@"));
	if (!esbuildDir) throw new Error("esbuild is not installed in the workspace");
	const work = mkdtempSync(join(tmpdir(), "f21-breakdown-"));
	const bundle = join(work, "report.mjs");
	execFileSync(join(pnpm, esbuildDir, "node_modules/esbuild/bin/esbuild"), [
		join(workspace, "packages/pi-jscpd/src/report.ts"),
		"--bundle",
		"--platform=node",
		"--format=esm",
		`--outfile=${bundle}`,
	]);
	const { parseReport } = (await import(pathToFileURL(bundle).href)) as {
		parseReport: (root: string, text: string) => { ok: boolean };
	};
	const files = Number(size ?? 2000);
	const tree = typescriptTree(files);
	const results = [];
	try {
		for (const args of VARIANTS) {
			const out = join(work, "out");
			const jscpd = [jscpdBin(workspace), ...jscpdReportArgs(args, out)];
			const started = performance.now();
			const run = spawnSync("/usr/bin/time", ["-f", "cpu %U %S", ...jscpd, "--", "."], {
				cwd: tree,
				stdio: ["ignore", "ignore", "pipe"],
				env: { ...process.env, JSCPD_NO_TIPS: "1" },
			});
			const wallMs = Math.round(performance.now() - started);
			const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(run.stderr.toString());
			const file = join(out, "jscpd-report.json");
			const text = readFileSync(file, "utf8");
			const parsing = performance.now();
			const report = JSON.parse(text);
			const jsonParseMs = Math.round(performance.now() - parsing);
			const ours = performance.now();
			parseReport(tree, text);
			const parseReportMs = Math.round(performance.now() - ours);
			const kinds: Record<string, number> = {};
			for (const d of report.duplicates) kinds[d.kind ?? "exact"] = (kinds[d.kind ?? "exact"] ?? 0) + 1;
			const result = {
				files,
				args: args.join(" ") || "(exact)",
				wallMs,
				cpuMs: cpu ? Math.round((Number(cpu[1]) + Number(cpu[2])) * 1000) : undefined,
				bytes: statSync(file).size,
				kinds,
				jsonParseMs,
				parseReportMs,
			};
			console.log(JSON.stringify(result));
			results.push(result);
			rmSync(out, { recursive: true, force: true });
		}
	} finally {
		rmSync(tree, { recursive: true, force: true });
		rmSync(work, { recursive: true, force: true });
	}
	writeFileSync(outFile, `${JSON.stringify(results, null, "\t")}\n`);
}
