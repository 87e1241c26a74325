/**
 * The seed tooling (issue 25): every failure names its seed with a command that reruns it as
 * pasted; a generator that throws is reported with its seed, never as a bare error;
 * `pnpm reliability:soak` parses its arguments strictly, reports failing seeds with their reproduce
 * command and exits non-zero; `pnpm test` prints its random seed first and again after a failure;
 * the CI count includes a file failed only by its planned-count check. The scripts run from a
 * scratch copy under a path with a space, with fake vitest/biome/turbo binaries: seconds, not minutes.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { reproduceCommand, reproduceLine, runs } from "./support/plan.js";

const repo = join(import.meta.dirname, "..", "..");
const scratch = mkdtempSync(join(tmpdir(), "pi reliability seeds "));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An executable that runs `source` (an ES module) with this Node, whatever `node` is on PATH. */
function fakeBin(dir: string, name: string, source: string): void {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, `${name}.mjs`), source);
	const path = join(dir, name);
	writeFileSync(path, `#!/bin/sh\nexec '${process.execPath}' '${join(dir, `${name}.mjs`)}' "$@"\n`);
	chmodSync(path, 0o755);
}

/** A scratch project root holding a copy of `script` (from scripts/) and an empty test/ directory. */
function projectWith(script: string, name: string): string {
	const root = join(scratch, name);
	mkdirSync(join(root, "scripts"), { recursive: true });
	mkdirSync(join(root, "test"), { recursive: true });
	copyFileSync(join(repo, "scripts", script), join(root, "scripts", script));
	return root;
}

function node(root: string, script: string, args: string[], env: Record<string, string> = {}) {
	const result = spawnSync(process.execPath, [join(root, "scripts", script), ...args], {
		cwd: root,
		encoding: "utf8",
		env: { ...process.env, ...env },
		timeout: 60_000,
	});
	return { code: result.status, out: result.stdout, err: result.stderr };
}

describe("reproduce lines", () => {
	it("the reproduce command runs as pasted from the repository root: test/, the seed, vitest on the file", () => {
		const root = projectWith("count-tests.mjs", "paste root");
		const bin = join(scratch, "paste bin");
		fakeBin(
			bin,
			"npx",
			'console.log([process.cwd(), process.env.PI_LIFECYCLE_SEED, process.argv.slice(2).join(" ")].join("|"));',
		);
		const command = reproduceCommand("reliability/reset.property.test.ts", 1_398_303_631);
		const run = spawnSync("sh", ["-c", command], {
			cwd: root,
			encoding: "utf8",
			env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
		});
		expect(run.stderr).toBe("");
		expect(run.stdout.trim()).toBe(
			`${join(root, "test")}|1398303631|-y pnpm@12.4.2 exec vitest run reliability/reset.property.test.ts`,
		);
	});

	it("inside a test, the reproduce line names the seed and reruns this file", () => {
		expect(reproduceLine()).toMatch(
			/^\[reliability\] seed \d+; reproduce: cd test && PI_LIFECYCLE_SEED=\d+ npx -y pnpm@12\.4\.2 exec vitest run reliability\/seed-tooling\.test\.ts$/,
		);
	});

	it("a failing property's message starts with the reproduce line, then fast-check's counterexample", () => {
		let message = "";
		try {
			fc.assert(
				fc.property(fc.nat(), (n) => n < 0),
				runs(900, 5),
			);
		} catch (error) {
			message = (error as Error).message;
		}
		expect(message.split("\n")[0]).toBe(reproduceLine());
		expect(message).toContain("Counterexample");
	});

	// Issue 25's symptom: a generator threw `Converting circular structure to JSON` and fast-check let
	// the bare TypeError escape, with no seed in the failure (only a planned-count check named it).
	it("a generator that throws is reported with the seed and the reproduce line, not as a bare error", () => {
		const throwing = fc.nat().map((): number => {
			throw new TypeError("Converting circular structure to JSON");
		});
		let message = "";
		try {
			fc.assert(
				fc.property(throwing, () => true),
				runs(901, 5),
			);
		} catch (error) {
			message = (error as Error).message;
		}
		expect(message.split("\n")[0]).toBe(reproduceLine());
		expect(message).toContain(
			"a generator threw (fix the generator): TypeError: Converting circular structure",
		);
	});
});

describe("pnpm reliability:soak", () => {
	const root = projectWith("reliability-soak.mjs", "soak root");
	// The fake vitest: seed % 3 = 0 passes, 1 fails a test, 2 fails a planned-count check (afterAll).
	const FAKE_VITEST = `
import { writeFileSync } from "node:fs";
const out = process.argv.find((a) => a.startsWith("--outputFile.json=")).slice("--outputFile.json=".length);
const seed = Number(process.env.PI_LIFECYCLE_SEED);
const file = (name, status, message, tests) => ({ name: process.cwd() + "/reliability/" + name, status, message, assertionResults: tests });
const ok = (title) => ({ title, status: "passed", failureMessages: [] });
const results = [
	file("kit.property.test.ts", "passed", "", [ok("mutex")]),
	seed % 3 === 1
		? file("reset.property.test.ts", "failed", "", [{ title: "never drops a request", status: "failed", failureMessages: ["Error: [reliability] seed " + seed + "\\nmore"] }])
		: file("reset.property.test.ts", "passed", "", [ok("never drops a request")]),
	seed % 3 === 2
		? file("fuzz.test.ts", "failed", "fuzz: goalState ran 383 of 1200", [ok("goal state")])
		: file("fuzz.test.ts", "passed", "", [ok("goal state")]),
];
writeFileSync(out, JSON.stringify({ testResults: results }));
process.exit(seed % 3 === 0 ? 0 : 1);
`;
	fakeBin(join(root, "node_modules", ".bin"), "vitest", FAKE_VITEST);

	it("prints every failing seed with its failed tests and a reproduce command for the failed files; exit 1", () => {
		const run = node(root, "reliability-soak.mjs", ["--seeds", "3,4,5"]);
		expect(run.code).toBe(1);
		expect(run.out).toContain("seed 3: ok");
		expect(run.out).toContain("seed 4: FAILED");
		expect(run.out).toContain("reliability/reset.property.test.ts > never drops a request");
		expect(run.out).toContain(
			"reproduce: cd test && PI_LIFECYCLE_SEED=4 npx -y pnpm@12.4.2 exec vitest run reliability/reset.property.test.ts",
		);
		// A planned-count failure has no failed test: it is still a failing seed, with its message.
		expect(run.out).toContain("seed 5: FAILED");
		expect(run.out).toContain("reliability/fuzz.test.ts: fuzz: goalState ran 383 of 1200");
		expect(run.out).toContain(
			"PI_LIFECYCLE_SEED=5 npx -y pnpm@12.4.2 exec vitest run reliability/fuzz.test.ts",
		);
		expect(run.out.trim().split("\n").at(-1)).toBe("reliability:soak: 2 of 3 seeds failed: 4 5");
	});

	it("exits 0 when every seed passed; n random seeds are listed first; --jobs runs them all", () => {
		expect(node(root, "reliability-soak.mjs", ["--seeds", "3,6,9", "--jobs", "2"])).toMatchObject({
			code: 0,
		});
		const run = node(root, "reliability-soak.mjs", ["4"]);
		const seeds = /^seeds: ([\d,]+)$/m.exec(run.out)?.[1]?.split(",") ?? [];
		expect(seeds).toHaveLength(4);
		for (const seed of seeds) expect(run.out).toMatch(new RegExp(`^seed ${seed}: (ok|FAILED)`, "m"));
	});

	for (const args of [
		["0"],
		["abc"],
		["1e1"],
		["--seeds"],
		["--seeds", ""],
		["--seeds", "4,,5"],
		["--seeds", "-1"],
		["--seeds", "2147483647"],
		["--jobs", "0"],
		["--jobs"],
		["--job", "2"],
	])
		it(`rejects ${JSON.stringify(args)} with the usage and exit 2 (never a vacuous or different run)`, () => {
			const run = node(root, "reliability-soak.mjs", args);
			expect(run.code).toBe(2);
			expect(run.err).toContain("usage: pnpm reliability:soak");
			expect(run.out).not.toContain("seed ");
		});

	it("a vitest that cannot start is a reported failure, not a crash", () => {
		const bare = projectWith("reliability-soak.mjs", "soak without vitest");
		const run = node(bare, "reliability-soak.mjs", ["--seeds", "3"]);
		expect(run.code).toBe(1);
		expect(run.out).toContain("seed 3: FAILED");
		expect(run.out).toContain("could not start vitest");
		expect(run.err).not.toContain("Unhandled");
	});
});

describe("pnpm test (scripts/test-all.mjs): the random-seed pass", () => {
	const root = projectWith("test-all.mjs", "ci root");
	const bin = join(root, "node_modules", ".bin");
	fakeBin(bin, "biome", "");
	fakeBin(bin, "turbo", "");
	fakeBin(bin, "vitest", 'console.log("vitest seed " + process.env.PI_LIFECYCLE_SEED); process.exit(1);');

	it("prints the seed and a runnable reproduce command first, and again after the random pass failed", () => {
		const run = node(root, "test-all.mjs", [], { PI_LIFECYCLE_RANDOM_SEED: "77" });
		const command = "cd test && PI_LIFECYCLE_SEED=77 npx -y pnpm@12.4.2 exec vitest run reliability";
		expect(run.out.split("\n")[0]).toBe(`=== reliability random seed: 77; reproduce: ${command}`);
		expect(run.out).toContain("vitest seed 77");
		expect(run.out).toContain(
			`=== the random seed 77 found a failure (a finding: docs/reliability.md); reproduce: ${command}`,
		);
		expect(run.code).toBe(1);
	});

	it("refuses a replay seed the suite would not use, before running anything", () => {
		const run = node(root, "test-all.mjs", [], { PI_LIFECYCLE_RANDOM_SEED: "12abc" });
		expect(run.code).toBe(2);
		expect(run.err).toContain("PI_LIFECYCLE_RANDOM_SEED must be an integer");
		expect(run.out).not.toContain("===");
	});
});

describe("CI count (scripts/count-tests.mjs)", () => {
	it("names every failed test above the count", () => {
		const root = projectWith("count-tests.mjs", "count names");
		writeFileSync(join(root, "test", "package.json"), JSON.stringify({ name: "t", scripts: { test: "x" } }));
		mkdirSync(join(root, "packages"), { recursive: true });
		mkdirSync(join(root, "test", ".artifacts"), { recursive: true });
		const failing = {
			name: join(root, "test", "x.test.ts"),
			status: "failed",
			assertionResults: [
				{ status: "passed", fullName: "fine" },
				{
					status: "failed",
					fullName: "suite > it breaks",
					failureMessages: ["AssertionError: boom\n    at x"],
				},
			],
		};
		for (const name of ["vitest.json", "vitest-pi-1.3.0.json", "vitest-reliability-random.json"])
			writeFileSync(
				join(root, "test", ".artifacts", name),
				JSON.stringify({
					numPassedTests: 1,
					numFailedTests: name === "vitest.json" ? 1 : 0,
					testResults: name === "vitest.json" ? [failing] : [],
				}),
			);
		const run = node(root, "count-tests.mjs", []);
		expect(run.out.trim().split("\n")).toEqual([
			"FAILED t vitest.json test/x.test.ts > suite > it breaks: AssertionError: boom",
			"3 passed, 1 failed",
		]);
		expect(run.code).toBe(1);
	});

	it("a file failed only by its planned-count check (afterAll) counts as failed", () => {
		const root = projectWith("count-tests.mjs", "count root");
		const report = (files: object[]) => ({ numPassedTests: 1, numFailedTests: 0, testResults: files });
		const planned = {
			status: "failed",
			message: "ran 383 of 1200",
			assertionResults: [{ status: "passed" }],
		};
		writeFileSync(join(root, "test", "package.json"), JSON.stringify({ name: "t", scripts: { test: "x" } }));
		mkdirSync(join(root, "packages"), { recursive: true });
		mkdirSync(join(root, "test", ".artifacts"), { recursive: true });
		for (const name of ["vitest.json", "vitest-pi-1.3.0.json"])
			writeFileSync(join(root, "test", ".artifacts", name), JSON.stringify(report([])));
		writeFileSync(
			join(root, "test", ".artifacts", "vitest-reliability-random.json"),
			JSON.stringify(report([planned])),
		);
		const run = node(root, "count-tests.mjs", []);
		const lines = run.out.trim().split("\n");
		// CI keeps only the log's tail: what failed is named just above the count.
		expect(lines).toEqual([
			"FAILED t vitest-reliability-random.json ? (outside its tests): ran 383 of 1200",
			"3 passed, 1 failed",
		]);
		expect(run.code).toBe(1);
	});
});
