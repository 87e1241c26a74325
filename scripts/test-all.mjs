#!/usr/bin/env node
// `pnpm test`: lint, typecheck, then every workspace test suite twice — against the dev-pinned Pi
// and against the oldest supported Pi (1.3.0) — and the reliability suite once more with a fresh
// random seed (the host passes run it with the fixed regression seed), writing one vitest JSON
// report per pass that scripts/count-tests.mjs sums. Every pass always runs; the exit code is
// non-zero if anything failed. `PI_LIFECYCLE_RANDOM_SEED=<n>` replays a random pass.
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

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
// A replayed seed must be one the suite accepts (test/reliability/support/plan.ts), never silently another.
const MAX_SEED = 2 ** 31 - 1_001;
const replay = process.env.PI_LIFECYCLE_RANDOM_SEED || undefined;
if (replay !== undefined && !(/^\d{1,10}$/.test(replay) && Number(replay) <= MAX_SEED)) {
	console.error(`PI_LIFECYCLE_RANDOM_SEED must be an integer 0-${MAX_SEED}, not ${JSON.stringify(replay)}`);
	process.exit(2);
}
const randomSeed = replay ?? String(randomInt(0, MAX_SEED + 1));
// A command line that runs as pasted (from the repository root), the same one the suite's failure messages print.
const reproduce = `cd test && PI_LIFECYCLE_SEED=${randomSeed} npx -y pnpm@12.4.2 exec vitest run reliability`;
if (!only || only.includes("latest"))
	console.log(`=== reliability random seed: ${randomSeed}; reproduce: ${reproduce}`);
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
// The reliability suite with the random seed (dev pin only, like its fixed-seed run). Its report is
// counted like the others (scripts/count-tests.mjs, test/.artifacts/vitest-reliability-random.json).
if (!only || only.includes("latest")) {
	const passed = run(
		`reliability suite with random seed ${randomSeed}`,
		bin("vitest"),
		[
			"run",
			"reliability",
			"--reporter=default",
			"--reporter=json",
			"--outputFile.json=.artifacts/vitest-reliability-random.json",
		],
		{ PI_LIFECYCLE_SEED: randomSeed },
		join(root, "test"),
	);
	if (!passed)
		console.log(
			`=== the random seed ${randomSeed} found a failure (a finding: docs/reliability.md); reproduce: ${reproduce}`,
		);
	ok = passed && ok;
}
process.exit(ok ? 0 : 1);
