/**
 * Cost of the clone kinds: plain jscpd 5.3.2 runs with pi-jscpd's report options, exact only vs the
 * default kinds (`--similarity 0.7 --min-tokens 30`, exact clones under 50 tokens dropped),
 * alternating, on the bench's generated TypeScript trees and on the two real codebases of
 * real-codebase.ts. Per tree: wall and CPU time (CPU through /usr/bin/time when present: on a shared
 * machine it is the steadier figure), the report's size, the time to read it (`JSON.parse`), and
 * whether the session keeps near-copy detection (pi-jscpd's overload rule, kinds.ts): if not, every
 * check after the baseline is an exact scan. Usage: `node corpus/cost.ts <out.json> [files…]`
 * (default 2000; 20000 takes several minutes per run on 2 cores).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { typescriptTree } from "../lib/project.ts";
import { jscpdBin, type RawDuplicate, SETTINGS, settingDuplicates } from "./evaluate.ts";
import { packageDir } from "./functions.ts";
import { CODEBASES } from "./real-codebase.ts";

const DEFAULT = SETTINGS.find((s) => s.name === "similar@0.7 k30, exact k50");
if (!DEFAULT) throw new Error("the default setting is missing from evaluate.ts");
/** pi-jscpd's bounds (runner.ts maxReportBytes; kinds.ts MAX_NEAR_COPY_PAIRS). */
const MAX_REPORT_BYTES = 32 * 1024 * 1024;
const MAX_NEAR_COPY_PAIRS = 1_000;
const TIME = "/usr/bin/time";

interface Run {
	readonly wallMs: number;
	readonly cpuMs?: number;
	readonly bytes: number;
	readonly parseMs: number;
	readonly duplicates: RawDuplicate[];
	readonly lines: number;
}

function run(workspace: string, args: readonly string[], paths: readonly string[], cwd: string): Run {
	const out = mkdtempSync(join(tmpdir(), "f21-cost-"));
	try {
		const timed = existsSync(TIME);
		const jscpd = [
			jscpdBin(workspace),
			...args,
			...["--reporters", "json", "--output", out, "--absolute", "--silent", "--no-gitignore", "--", ...paths],
		];
		const started = performance.now();
		const result = spawnSync(
			timed ? TIME : (jscpd[0] as string),
			timed ? ["-f", "cpu %U %S", ...jscpd] : jscpd.slice(1),
			{
				cwd,
				stdio: ["ignore", "ignore", "pipe"],
				env: { ...process.env, JSCPD_NO_TIPS: "1" },
				maxBuffer: 1 << 26,
			},
		);
		const wallMs = performance.now() - started;
		const cpu = /cpu ([\d.]+) ([\d.]+)\s*$/.exec(result.stderr.toString());
		const file = join(out, "jscpd-report.json");
		const bytes = statSync(file).size;
		const parsing = performance.now();
		const report = JSON.parse(readFileSync(file, "utf8"));
		const parseMs = performance.now() - parsing;
		return {
			wallMs,
			...(cpu ? { cpuMs: (Number(cpu[1]) + Number(cpu[2])) * 1000 } : {}),
			bytes,
			parseMs,
			duplicates: report.duplicates,
			lines: report.statistics?.total?.lines ?? 0,
		};
	} finally {
		rmSync(out, { recursive: true, force: true });
	}
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] as number;
}

const ms = (values: number[]) => Math.round(median(values));
const ratio = (a: number[], b: number[]) => Math.round((median(a) / median(b)) * 100) / 100;

function compare(workspace: string, name: string, paths: string[], cwd: string, repeats: number) {
	const exact: Run[] = [];
	const kinds: Run[] = [];
	for (let i = 0; i < repeats; i++) {
		exact.push(run(workspace, [], paths, cwd));
		kinds.push(run(workspace, DEFAULT?.args ?? [], paths, cwd));
	}
	const last = kinds[kinds.length - 1] as Run;
	const reported = settingDuplicates(DEFAULT as NonNullable<typeof DEFAULT>, last.duplicates);
	const pairs = reported.filter((d) => (d.kind ?? "exact") !== "exact").length;
	const tooLarge = last.bytes > MAX_REPORT_BYTES;
	const nearKept = !tooLarge && !(pairs > MAX_NEAR_COPY_PAIRS && pairs > last.lines / 100);
	const wall = (runs: Run[]) => runs.map((r) => r.wallMs);
	const cpu = (runs: Run[]) => runs.flatMap((r) => (r.cpuMs === undefined ? [] : [r.cpuMs]));
	const result = {
		name,
		repeats,
		lines: last.lines,
		exact: {
			wallMs: ms(wall(exact)),
			cpuMs: ms(cpu(exact)),
			bytes: exact[0]?.bytes,
			parseMs: ms(exact.map((r) => r.parseMs)),
		},
		kinds: {
			wallMs: ms(wall(kinds)),
			cpuMs: ms(cpu(kinds)),
			bytes: last.bytes,
			parseMs: ms(kinds.map((r) => r.parseMs)),
		},
		clones: { exact: exact[0]?.duplicates.length, kinds: reported.length, nearPairs: pairs },
		wallRatio: ratio(wall(kinds), wall(exact)),
		cpuRatio: cpu(exact).length > 0 ? ratio(cpu(kinds), cpu(exact)) : undefined,
		// pi-jscpd: a report over 32 MB fails and the baseline is scanned again with exact clones; an
		// overload keeps the report's exact clones. Either way every later check is an exact scan.
		session: nearKept
			? "near-copies kept"
			: tooLarge
				? "exact (report over 32 MB, rescanned)"
				: "exact (overload)",
		checkRatio: nearKept ? ratio(wall(kinds), wall(exact)) : 1,
	};
	console.log(JSON.stringify(result));
	return result;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
	const [outFile, ...sizes] = process.argv.slice(2);
	if (!outFile) throw new Error("usage: node corpus/cost.ts <out.json> [files…]");
	const workspace = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
	const results = [];
	for (const base of CODEBASES) {
		const paths = base.parts.map((part) => packageDir(workspace, part.prefix, part.dir) as string);
		results.push(compare(workspace, base.name, paths, resolve(workspace, "node_modules/.pnpm"), 3));
	}
	for (const files of (sizes.length > 0 ? sizes : ["2000"]).map(Number)) {
		const tree = typescriptTree(files);
		try {
			results.push(compare(workspace, `bench tree, ${files} files`, ["."], tree, files > 5_000 ? 1 : 2));
		} finally {
			rmSync(tree, { recursive: true, force: true });
		}
	}
	writeFileSync(outFile, `${JSON.stringify(results, null, "\t")}\n`);
}
