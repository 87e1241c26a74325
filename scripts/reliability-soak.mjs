#!/usr/bin/env node
// `pnpm reliability:soak [n] [--jobs j] [--seeds a,b,…] [--all]`: runs the seeded reliability files
// (test/reliability: the reducer and kit properties, the persisted-data fuzz, the bus payloads and
// the generators' own test) once per seed, n fresh random seeds by default (10), and prints the
// failing seeds with their failed tests. `--all` runs the whole reliability directory per seed
// (adds the scripted sessions, restore, faults and durability files: much slower). Reproduce a
// failing seed with `PI_LIFECYCLE_SEED=<seed>` (docs/reliability.md). Exit 1 when a seed failed.
import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const SEEDED_FILES = [
	"reliability/kit.property.test.ts",
	"reliability/reset.property.test.ts",
	"reliability/goal.property.test.ts",
	"reliability/jscpd.property.test.ts",
	"reliability/fuzz.test.ts",
	"reliability/bus.property.test.ts",
	"reliability/hostile-generators.test.ts",
];
/** Same bound as test/reliability/support/plan.ts (32-bit fast-check seeds plus offsets). */
const MAX_SEED = 2 ** 31 - 1_001;

function parseArgs(argv) {
	const options = { count: 10, jobs: 1, seeds: undefined, all: false };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === "--jobs") options.jobs = Number(argv[++i]);
		else if (arg === "--seeds") options.seeds = argv[++i].split(",").map((s) => Number(s));
		else if (arg === "--all") options.all = true;
		else if (arg === "--help" || arg === "-h") {
			console.log("usage: pnpm reliability:soak [n=10] [--jobs j=1] [--seeds a,b,…] [--all]");
			process.exit(0);
		} else options.count = Number(arg);
	}
	const bad = (n, max) => !Number.isSafeInteger(n) || n < 0 || n > max;
	if (
		bad(options.count, 10_000) ||
		bad(options.jobs, 16) ||
		options.jobs < 1 ||
		options.seeds?.some((s) => bad(s, MAX_SEED))
	) {
		console.error(`reliability:soak: bad arguments (${argv.join(" ")}); seeds are integers 0-${MAX_SEED}`);
		process.exit(2);
	}
	return options;
}

/** Runs the files with one seed; resolves to the names of the failed tests (empty when green). */
function runSeed(seed, files, scratch) {
	const report = join(scratch, `seed-${seed}.json`);
	const vitest = join(root, "node_modules", ".bin", "vitest");
	const args = ["run", ...files, "--reporter=dot", "--reporter=json", `--outputFile.json=${report}`];
	return new Promise((resolve) => {
		const started = Date.now();
		const child = spawn(vitest, args, {
			cwd: join(root, "test"),
			env: { ...process.env, PI_LIFECYCLE_SEED: String(seed), TURBO_TELEMETRY_DISABLED: "1" },
			stdio: ["ignore", "ignore", "ignore"],
		});
		child.on("close", (code) => {
			const seconds = Math.round((Date.now() - started) / 1000);
			let failed = [];
			try {
				const data = JSON.parse(readFileSync(report, "utf8"));
				for (const file of data.testResults ?? []) {
					const name = file.name.replace(/^.*\/test\//, "");
					const tests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
					if (file.status === "failed" && tests.length === 0)
						failed.push(`${name}: ${file.message ?? "suite failed"}`.slice(0, 300));
					for (const t of tests) {
						const why =
							String(t.failureMessages?.[0] ?? "")
								.split("\n")
								.find((line) => line.trim()) ?? "";
						failed.push(`${name} > ${t.title}\n      ${why.slice(0, 300)}`);
					}
				}
			} catch {
				failed = [`no report (vitest exit ${code})`];
			}
			if (code !== 0 && failed.length === 0) failed = [`vitest exit ${code}`];
			resolve({ seed, failed, seconds });
		});
	});
}

const options = parseArgs(process.argv.slice(2));
const seeds = options.seeds ?? Array.from({ length: options.count }, () => randomInt(0, MAX_SEED + 1));
const files = options.all ? ["reliability"] : SEEDED_FILES;
const scratch = mkdtempSync(join(tmpdir(), "pi-reliability-soak-"));
console.log(`reliability:soak: ${seeds.length} seeds, ${options.jobs} at a time, files: ${files.join(" ")}`);
const failing = [];
let next = 0;
async function worker() {
	while (next < seeds.length) {
		const seed = seeds[next++];
		const result = await runSeed(seed, files, scratch);
		if (result.failed.length === 0) console.log(`seed ${seed}: ok (${result.seconds} s)`);
		else {
			failing.push(result);
			console.log(
				`seed ${seed}: FAILED (${result.seconds} s)\n${result.failed.map((f) => `  ${f}`).join("\n")}`,
			);
		}
	}
}
await Promise.all(Array.from({ length: options.jobs }, worker));
rmSync(scratch, { recursive: true, force: true });
if (failing.length === 0) console.log(`reliability:soak: all ${seeds.length} seeds passed`);
else {
	console.log(
		`reliability:soak: ${failing.length} of ${seeds.length} seeds failed: ${failing.map((f) => f.seed).join(" ")}`,
	);
	console.log(
		`reproduce one: cd test && PI_LIFECYCLE_SEED=<seed> npx -y pnpm@12.4.2 exec vitest run reliability`,
	);
}
process.exit(failing.length === 0 ? 0 : 1);
