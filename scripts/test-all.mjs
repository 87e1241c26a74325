#!/usr/bin/env node
// `pnpm test`: lint, typecheck, then every workspace test suite twice — against the dev-pinned Pi
// and against the oldest supported Pi (1.3.0) — writing one vitest JSON report per pass that
// scripts/count-tests.mjs sums. Both passes always run; the exit code is non-zero if anything failed.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const bin = (name) => join(root, "node_modules", ".bin", name);
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1" };

function run(label, command, args, extraEnv = {}) {
	console.log(`\n=== ${label}`);
	const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...env, ...extraEnv } });
	if (result.status !== 0) console.log(`=== ${label}: FAILED (exit ${result.status ?? result.signal})`);
	return result.status === 0;
}

const passes = [
	{ host: "latest", report: ".artifacts/vitest.json" },
	{ host: "1.3.0", report: ".artifacts/vitest-pi-1.3.0.json" },
];
const only = process.env.PI_LIFECYCLE_TEST_HOSTS?.split(",");
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
process.exit(ok ? 0 : 1);
