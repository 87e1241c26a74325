/**
 * The seed tooling (issue 25): every failure names its seed with a command that reruns it as
 * pasted; a generator that throws is reported with its seed, never as a bare error;
 * `pnpm reliability:soak` parses its arguments strictly, reports failing seeds with their reproduce
 * command and exits non-zero; `pnpm test` prints its random seed first and again after a failure;
 * the CI count includes a file failed only by its planned-count check. The scripts run from a
 * scratch copy under a path with a space, with fake vitest/biome/turbo binaries: seconds, not minutes.
 */
import { spawnSync } from "node:child_process";
import {
	chmodSync,
	copyFileSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { projectOf, reproduceCommand, reproduceLine, runs } from "@pi-lifecycle/seed-plan";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..");
/** scripts/seeded-files.mjs: the package core properties the random pass and the soak run. */
const { PACKAGE_PROPERTIES } = (await import(
	pathToFileURL(join(repo, "scripts", "seeded-files.mjs")).href
)) as {
	PACKAGE_PROPERTIES: { project: string; files: string[] }[];
};
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

/**
 * A scratch project root holding a copy of `script` and the seeded-file list it reads (from
 * scripts/), an empty test/ directory and, with `packages`, an empty directory per package that has
 * core properties.
 */
function projectWith(script: string, name: string, packages = false): string {
	const root = join(scratch, name);
	mkdirSync(join(root, "scripts"), { recursive: true });
	mkdirSync(join(root, "test"), { recursive: true });
	if (packages)
		for (const { project } of PACKAGE_PROPERTIES) mkdirSync(join(root, project), { recursive: true });
	for (const file of [script, "seeded-files.mjs"])
		copyFileSync(join(repo, "scripts", file), join(root, "scripts", file));
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
		const root = projectWith("count-tests.mjs", "paste root", true);
		const bin = join(scratch, "paste bin");
		fakeBin(
			bin,
			"npx",
			'console.log([process.cwd(), process.env.PI_LIFECYCLE_SEED, process.argv.slice(2).join(" ")].join("|"));',
		);
		const paste = (command: string) =>
			spawnSync("sh", ["-c", command], {
				cwd: root,
				encoding: "utf8",
				env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
			});
		const run = paste(reproduceCommand("reliability/bus.property.test.ts", 1_398_303_631));
		expect(run.stderr).toBe("");
		expect(run.stdout.trim()).toBe(
			`${join(root, "test")}|1398303631|-y pnpm@12.4.2 exec vitest run reliability/bus.property.test.ts`,
		);
		// A package's core property reruns in its package, with that package's vitest config.
		const inPackage = paste(
			reproduceCommand("test/reset.property.test.ts", 1_398_303_631, "packages/pi-reset"),
		);
		expect(inPackage.stderr).toBe("");
		expect(inPackage.stdout.trim()).toBe(
			`${join(root, "packages", "pi-reset")}|1398303631|-y pnpm@12.4.2 exec vitest run test/reset.property.test.ts`,
		);
	});

	it("a package's test file reruns from its package directory; a root file from test/", () => {
		expect(projectOf(join(repo, "packages", "pi-goal", "test", "goal.property.test.ts"))).toEqual({
			project: "packages/pi-goal",
			target: "test/goal.property.test.ts",
		});
		expect(projectOf(join(repo, "test", "reliability", "fuzz.test.ts"))).toEqual({
			project: "test",
			target: "reliability/fuzz.test.ts",
		});
		expect(projectOf(join(repo, "..", "elsewhere.test.ts"))).toBeUndefined();
	});

	it("every package test file that uses the seed plan is listed in scripts/seeded-files.mjs (random pass, soak)", () => {
		const listed = PACKAGE_PROPERTIES.flatMap(({ project, files }) =>
			files.map((file) => `${project}/${file}`),
		);
		const using: string[] = [];
		for (const name of readdirSync(join(repo, "packages"))) {
			const dir = join(repo, "packages", name, "test");
			let files: string[] = [];
			try {
				files = readdirSync(dir);
			} catch {
				continue;
			}
			for (const file of files)
				if (
					file.endsWith(".test.ts") &&
					readFileSync(join(dir, file), "utf8").includes('"@pi-lifecycle/seed-plan"')
				)
					using.push(`packages/${name}/test/${file}`);
		}
		expect(using.sort()).toEqual([...listed].sort());
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
	const root = projectWith("reliability-soak.mjs", "soak root", true);
	// The fake vitest reports the files it was given, in its working directory (the project): seed
	// % 3 = 0 passes, 1 fails a test of pi-reset's core property, 2 fails the root fuzz file's
	// planned-count check (afterAll).
	const FAKE_VITEST = `
import { writeFileSync } from "node:fs";
const out = process.argv.find((a) => a.startsWith("--outputFile.json=")).slice("--outputFile.json=".length);
const seed = Number(process.env.PI_LIFECYCLE_SEED);
const ok = (title) => ({ title, status: "passed", failureMessages: [] });
const results = process.argv.filter((a) => a.endsWith(".test.ts")).map((target) => {
	const name = process.cwd() + "/" + target;
	if (seed % 3 === 1 && target.endsWith("reset.property.test.ts"))
		return { name, status: "failed", message: "", assertionResults: [{ title: "never drops a request", status: "failed", failureMessages: ["Error: [reliability] seed " + seed + "\\nmore"] }] };
	if (seed % 3 === 2 && target.endsWith("fuzz.test.ts"))
		return { name, status: "failed", message: "fuzz: goalState ran 383 of 1200", assertionResults: [ok("goal state")] };
	return { name, status: "passed", message: "", assertionResults: [ok("fine")] };
});
writeFileSync(out, JSON.stringify({ testResults: results }));
process.exit(results.some((r) => r.status === "failed") ? 1 : 0);
`;
	fakeBin(join(root, "node_modules", ".bin"), "vitest", FAKE_VITEST);

	it("prints every failing seed with its failed tests and a reproduce command for the failed files; exit 1", () => {
		const run = node(root, "reliability-soak.mjs", ["--seeds", "3,4,5"]);
		expect(run.code).toBe(1);
		expect(run.out).toContain("seed 3: ok");
		expect(run.out).toContain("seed 4: FAILED");
		expect(run.out).toContain("packages/pi-reset: test/reset.property.test.ts > never drops a request");
		expect(run.out).toContain(
			"reproduce: cd packages/pi-reset && PI_LIFECYCLE_SEED=4 npx -y pnpm@12.4.2 exec vitest run test/reset.property.test.ts",
		);
		expect(run.out).not.toContain("reproduce: cd test && PI_LIFECYCLE_SEED=4");
		// A planned-count failure has no failed test: it is still a failing seed, with its message.
		expect(run.out).toContain("seed 5: FAILED");
		expect(run.out).toContain("test: reliability/fuzz.test.ts: fuzz: goalState ran 383 of 1200");
		expect(run.out).toContain(
			"reproduce: cd test && PI_LIFECYCLE_SEED=5 npx -y pnpm@12.4.2 exec vitest run reliability/fuzz.test.ts",
		);
		expect(run.out.trim().split("\n").at(-1)).toBe("reliability:soak: 2 of 3 seeds failed: 4 5");
	});

	it("runs every package's core property in its package and the root seeded files in test/", () => {
		const run = node(root, "reliability-soak.mjs", ["--seeds", "3"]);
		for (const { project, files } of PACKAGE_PROPERTIES)
			for (const file of files) expect(run.out).toContain(`${project}/${file}`);
		expect(run.out).toContain("test/reliability/fuzz.test.ts");
		expect(run.out).toContain("seed 3: ok");
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
	const root = projectWith("test-all.mjs", "ci root", true);
	const bin = join(root, "node_modules", ".bin");
	fakeBin(bin, "biome", "");
	fakeBin(bin, "turbo", "");
	fakeBin(
		bin,
		"vitest",
		'console.log("vitest seed " + process.env.PI_LIFECYCLE_SEED + " in " + process.cwd() + ": " + process.argv.slice(2).join(" ")); process.exit(1);',
	);

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

	it("runs each package's core properties with the same seed, in its package, with its own report and reproduce line", () => {
		const run = node(root, "test-all.mjs", [], { PI_LIFECYCLE_RANDOM_SEED: "77" });
		for (const { project, files } of PACKAGE_PROPERTIES) {
			const command = `cd ${project} && PI_LIFECYCLE_SEED=77 npx -y pnpm@12.4.2 exec vitest run ${files.join(" ")}`;
			expect(run.out).toContain(`=== ${project} with the same seed: ${command}`);
			expect(run.out).toContain(
				`vitest seed 77 in ${join(root, project)}: run ${files.join(" ")} --reporter=default --reporter=json --outputFile.json=.artifacts/vitest-reliability-random.json`,
			);
			expect(run.out).toContain(
				`=== the random seed 77 found a failure (a finding: docs/reliability.md); reproduce: ${command}`,
			);
		}
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

	it("a package with core properties needs its random-seed report too; other packages do not", () => {
		const root = projectWith("count-tests.mjs", "count packages");
		const report = JSON.stringify({ numPassedTests: 1, numFailedTests: 0, testResults: [] });
		const withProperties = PACKAGE_PROPERTIES[0]?.project ?? "";
		for (const [dir, name] of [
			[withProperties, "with-properties"],
			["packages/without-properties", "without-properties"],
			["test", "t"],
		] as const) {
			mkdirSync(join(root, dir, ".artifacts"), { recursive: true });
			writeFileSync(join(root, dir, "package.json"), JSON.stringify({ name, scripts: { test: "x" } }));
			for (const file of ["vitest.json", "vitest-pi-1.3.0.json"])
				writeFileSync(join(root, dir, ".artifacts", file), report);
		}
		writeFileSync(join(root, "test", ".artifacts", "vitest-reliability-random.json"), report);
		const missing = node(root, "count-tests.mjs", []);
		expect(missing.out).toContain(
			`no test report from with-properties (${join(root, withProperties, ".artifacts", "vitest-reliability-random.json")})`,
		);
		expect(missing.out).not.toContain("no test report from without-properties");
		expect(missing.code).toBe(1);
		writeFileSync(join(root, withProperties, ".artifacts", "vitest-reliability-random.json"), report);
		const counted = node(root, "count-tests.mjs", []);
		expect(counted.out.trim()).toBe("8 passed, 0 failed");
		expect(counted.code).toBe(0);
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
