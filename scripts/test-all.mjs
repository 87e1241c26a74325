#!/usr/bin/env node
// `pnpm test`: lint, typecheck, then every workspace test suite twice — against the dev-pinned Pi
// and against the oldest supported Pi (1.3.0) — and the seeded reliability files once more with a
// fresh random seed (the host passes run them with the fixed regression seed): the root
// test/reliability/ directory and each package's core properties (scripts/seeded-files.mjs),
// writing one vitest JSON report per pass and project that scripts/count-tests.mjs sums. Every pass
// always runs; the exit code is non-zero if anything failed. `PI_LIFECYCLE_RANDOM_SEED=<n>` replays
// a random pass.
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PACKAGE_PROPERTIES, RANDOM_SEED_REPORT, reproduceCommand } from "./seeded-files.mjs";

// fileURLToPath, not URL.pathname: a checkout under a path with a space or non-ASCII name.
const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => join(root, "node_modules", ".bin", name);
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1" };

function run(label, command, args, extraEnv = {}, cwd = root) {
	console.log(`\n=== ${label}`);
	const result = spawnSync(command, args, { cwd, stdio: "inherit", env: { ...env, ...extraEnv } });
	if (result.status !== 0) console.log(`=== ${label}: FAILED (exit ${result.status ?? result.signal})`);
	return result.status === 0;
}

const passes = [
	{ host: "latest", report: ".artifacts/vitest.json" },
	{ host: "1.3.0", report: ".artifacts/vitest-pi-1.3.0.json" },
];
const only = process.env.PI_LIFECYCLE_TEST_HOSTS?.split(",");
// The random pass: printed first, so a failure anywhere later is reproducible from the log's top.
// A replayed seed must be one the suite accepts (tools/seed-plan/plan.ts), never silently another.
const MAX_SEED = 2 ** 31 - 1_001;
const replay = process.env.PI_LIFECYCLE_RANDOM_SEED || undefined;
if (replay !== undefined && !(/^\d{1,10}$/.test(replay) && Number(replay) <= MAX_SEED)) {
	console.error(`PI_LIFECYCLE_RANDOM_SEED must be an integer 0-${MAX_SEED}, not ${JSON.stringify(replay)}`);
	process.exit(2);
}
const randomSeed = replay ?? String(randomInt(0, MAX_SEED + 1));
// Command lines that run as pasted (from the repository root), the same ones the suite's failure messages print.
const randomRuns = [
	{ project: "test", files: ["reliability"] },
	...PACKAGE_PROPERTIES.map(({ project, files }) => ({ project, files })),
].map((entry) => ({ ...entry, reproduce: reproduceCommand(randomSeed, entry.project, entry.files) }));
if (!only || only.includes("latest")) {
	console.log(`=== reliability random seed: ${randomSeed}; reproduce: ${randomRuns[0].reproduce}`);
	for (const entry of randomRuns.slice(1))
		console.log(`=== ${entry.project} with the same seed: ${entry.reproduce}`);
}
let ok = run("lint (biome ci)", bin("biome"), ["ci", "."]);
ok = run("typecheck", bin("turbo"), ["run", "typecheck", "--output-logs=errors-only"]) && ok;
for (const pass of passes) {
	if (only && !only.includes(pass.host)) continue;
	ok =
		run(
			`tests against Pi ${pass.host}`,
			bin("turbo"),
			[
				"run",
				"test",
				"--continue",
				"--concurrency=1",
				"--",
				"--reporter=default",
				"--reporter=json",
				`--outputFile.json=${pass.report}`,
			],
			pass.host === "latest" ? {} : { PI_LIFECYCLE_HOST: pass.host },
		) && ok;
}
// The seeded files with the random seed (dev pin only, like their fixed-seed run): the root reliability
// directory, then each package's core properties. Each report is counted like the others
// (scripts/count-tests.mjs, <project>/.artifacts/vitest-reliability-random.json).
if (!only || only.includes("latest")) {
	for (const entry of randomRuns) {
		const passed = run(
			`${entry.project} ${entry.files.join(" ")} with random seed ${randomSeed}`,
			bin("vitest"),
			[
				"run",
				...entry.files,
				"--reporter=default",
				"--reporter=json",
				`--outputFile.json=.artifacts/${RANDOM_SEED_REPORT}`,
			],
			{ PI_LIFECYCLE_SEED: randomSeed },
			join(root, entry.project),
		);
		if (!passed)
			console.log(
				`=== the random seed ${randomSeed} found a failure (a finding: docs/reliability.md); reproduce: ${entry.reproduce}`,
			);
		ok = passed && ok;
	}
}
process.exit(ok ? 0 : 1);
