#!/usr/bin/env node
// `pnpm reliability:soak [n] [--jobs j] [--seeds a,b,…] [--all]`: runs the seeded reliability files
// (scripts/seeded-files.mjs: each package's core properties — the kit, pi-reset, pi-goal and pi-jscpd
// reducers — and, in test/reliability, the persisted-data fuzz, the bus payloads and the generators'
// own test) once per seed, n fresh random seeds by default (10), and prints the failing seeds with
// their failed tests and the command that reproduces each. `--all` runs the whole root reliability
// directory per seed (adds the scripted sessions, restore, faults and durability files: much
// slower) besides the package properties. Exit 0 when every seed passed, 1 when a seed failed, 2 on
// bad arguments.
import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PACKAGE_PROPERTIES, ROOT_SEEDED, reproduceCommand } from "./seeded-files.mjs";

// fileURLToPath, not URL.pathname: a checkout under a path with a space or non-ASCII name.
const root = fileURLToPath(new URL("..", import.meta.url));
/** Same bound as tools/seed-plan/plan.ts (32-bit fast-check seeds plus offsets). */
const MAX_SEED = 2 ** 31 - 1_001;
/** A seed's run is killed (its whole process group) after this long: a hang is a failure, not a stall. */
const SEED_TIMEOUT_MS = Number(process.env.PI_LIFECYCLE_SOAK_TIMEOUT_MS) || 30 * 60_000;
const USAGE = "usage: pnpm reliability:soak [n=10] [--jobs j=1] [--seeds a,b,…] [--all]";

function usageError(why) {
	console.error(`reliability:soak: ${why}\n${USAGE}\nseeds are integers 0-${MAX_SEED}`);
	process.exit(2);
}

/** A whole decimal integer in [min, max], else a usage error (no `Number("")` = 0, no `1e3`). */
function integer(text, what, min, max) {
	if (text === undefined) usageError(`${what} needs a value`);
	const n = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
	if (!(n >= min && n <= max)) usageError(`bad ${what}: ${JSON.stringify(text)}`);
	return n;
}

function parseArgs(argv) {
	const options = { count: 10, jobs: 1, seeds: undefined, all: false };
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i];
		if (arg === "--jobs") options.jobs = integer(argv[++i], "--jobs", 1, 16);
		else if (arg === "--seeds")
			options.seeds = (argv[++i] ?? usageError("--seeds needs a value"))
				.split(",")
				.map((s) => integer(s.trim(), "seed", 0, MAX_SEED));
		else if (arg === "--all") options.all = true;
		else if (arg === "--help" || arg === "-h") {
			console.log(USAGE);
			process.exit(0);
		} else if (arg.startsWith("-")) usageError(`unknown option ${arg}`);
		else options.count = integer(arg, "seed count", 1, 10_000);
	}
	return options;
}

const running = new Set();
/** Kills a seed's vitest and its workers (their own process group). */
function killTree(child) {
	try {
		process.kill(-child.pid, "SIGKILL");
	} catch {
		// Already gone.
	}
}
for (const signal of ["SIGINT", "SIGTERM"])
	process.on(signal, () => {
		for (const child of running) killTree(child);
		process.exit(130);
	});

/**
 * The failed tests (and files failed outside a test, such as a planned-count check) of one report
 * of the project in `dir`; files are named relative to it, as its reproduce command names them.
 */
function failuresOf(report, dir) {
	const failed = [];
	const files = new Set();
	const data = JSON.parse(readFileSync(report, "utf8"));
	for (const file of data.testResults ?? []) {
		const name = file.name.startsWith(`${dir}/`) ? file.name.slice(dir.length + 1) : file.name;
		const tests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
		if (file.status === "failed") files.add(name);
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
	return { failed, files: [...files] };
}

/** Runs one project's files with one seed; resolves to the failed tests and files (empty when green). */
function runProject(seed, project, files, scratch) {
	const dir = join(root, ...project.split("/"));
	const report = join(scratch, `seed-${seed}-${randomInt(1e9)}.json`);
	const vitest = join(root, "node_modules", ".bin", "vitest");
	const args = ["run", ...files, "--reporter=dot", "--reporter=json", `--outputFile.json=${report}`];
	return new Promise((resolve) => {
		const started = Date.now();
		let settled = false;
		const finish = (code, startError) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			running.delete(child);
			const seconds = Math.round((Date.now() - started) / 1000);
			let result = { failed: [], files: [] };
			if (startError) result.failed = [`could not start vitest (${vitest}): ${startError.message}`];
			else if (timedOut) result.failed = [`killed after ${SEED_TIMEOUT_MS / 1000} s (a hang)`];
			else
				try {
					result = failuresOf(report, dir);
				} catch {
					result.failed = [`no report (vitest exit ${code})`];
				}
			if (code !== 0 && result.failed.length === 0) result.failed = [`vitest exit ${code}`];
			resolve({ ...result, seconds });
		};
		const child = spawn(vitest, args, {
			cwd: dir,
			env: { ...process.env, PI_LIFECYCLE_SEED: String(seed), TURBO_TELEMETRY_DISABLED: "1" },
			stdio: ["ignore", "ignore", "ignore"],
			detached: true, // its own process group, so a timeout or Ctrl-C kills the workers too
		});
		running.add(child);
		let timedOut = false;
		const timer = setTimeout(() => {
			timedOut = true;
			killTree(child);
		}, SEED_TIMEOUT_MS);
		child.on("error", (error) => finish(undefined, error));
		child.on("close", (code) => finish(code));
	});
}

/** Runs every project with one seed, one after another; the failures of each, with its reproduce command. */
async function runSeed(seed, projects, scratch) {
	const failed = [];
	const reproduce = [];
	let seconds = 0;
	for (const { project, files } of projects) {
		const result = await runProject(seed, project, files, scratch);
		seconds += result.seconds;
		if (result.failed.length === 0) continue;
		failed.push(...result.failed.map((line) => `${project}: ${line}`));
		reproduce.push(reproduceCommand(seed, project, result.files.length > 0 ? result.files : files));
	}
	return { seed, failed, reproduce, seconds };
}

const options = parseArgs(process.argv.slice(2));
const seeds = options.seeds ?? Array.from({ length: options.count }, () => randomInt(0, MAX_SEED + 1));
const projects = [
	...PACKAGE_PROPERTIES,
	options.all ? { project: ROOT_SEEDED.project, files: ["reliability"] } : ROOT_SEEDED,
];
const scratch = mkdtempSync(join(tmpdir(), "pi-reliability-soak-"));
console.log(
	`reliability:soak: ${seeds.length} seeds, ${options.jobs} at a time, files: ${projects.flatMap(({ project, files }) => files.map((file) => `${project}/${file}`)).join(" ")}`,
);
console.log(`seeds: ${seeds.join(",")}`);
const failing = [];
let next = 0;
async function worker() {
	while (next < seeds.length) {
		const seed = seeds[next++];
		const result = await runSeed(seed, projects, scratch);
		if (result.failed.length === 0) console.log(`seed ${seed}: ok (${result.seconds} s)`);
		else {
			failing.push(result);
			console.log(
				`seed ${seed}: FAILED (${result.seconds} s)\n${result.failed.map((f) => `  ${f}`).join("\n")}\n${result.reproduce.map((command) => `  reproduce: ${command}`).join("\n")}`,
			);
		}
	}
}
await Promise.all(Array.from({ length: options.jobs }, worker));
rmSync(scratch, { recursive: true, force: true });
if (failing.length === 0) console.log(`reliability:soak: all ${seeds.length} seeds passed`);
else
	console.log(
		`reliability:soak: ${failing.length} of ${seeds.length} seeds failed: ${failing.map((f) => f.seed).join(" ")}`,
	);
process.exit(failing.length === 0 ? 0 : 1);
