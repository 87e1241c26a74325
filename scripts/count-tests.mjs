#!/usr/bin/env node
// Sums the vitest JSON reports every workspace test run wrote and prints the line CI reads:
// "N passed, N failed" (", N skipped" when any). Exits 1 when a report is missing or a test failed.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PACKAGE_PROPERTIES, RANDOM_SEED_REPORT } from "./seeded-files.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const dirs = [
	...readdirSync(join(root, "packages")).map((name) => join(root, "packages", name)),
	join(root, "test"),
];
// One report per host pass of scripts/test-all.mjs (plus the random-seed reliability pass).
const hosts = process.env.PI_LIFECYCLE_TEST_HOSTS?.split(",") ?? ["latest", "1.3.0"];
const expectedReports = hosts.map((host) => (host === "latest" ? "vitest.json" : `vitest-pi-${host}.json`));
// scripts/test-all.mjs also runs the root suite's reliability files and each package's core
// properties with a random seed (dev pin): one more report in each of those projects.
const randomSeedDirs = new Set([
	join(root, "test"),
	...PACKAGE_PROPERTIES.map(({ project }) => join(root, ...project.split("/"))),
]);
let passed = 0;
let failed = 0;
let skipped = 0;
let missing = 0;
// CI keeps only the tail of the log: the names of what failed are printed just above the count.
const failures = [];
for (const dir of dirs) {
	if (!existsSync(join(dir, "package.json"))) continue;
	const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
	if (!pkg.scripts?.test) continue;
	const reports = [...expectedReports];
	if (randomSeedDirs.has(dir) && hosts.includes("latest")) reports.push(RANDOM_SEED_REPORT);
	for (const reportName of reports) {
		const report = join(dir, ".artifacts", reportName);
		if (!existsSync(report)) {
			console.log(`no test report from ${pkg.name} (${report})`);
			missing++;
			continue;
		}
		const data = JSON.parse(readFileSync(report, "utf8"));
		passed += data.numPassedTests ?? 0;
		failed += data.numFailedTests ?? 0;
		skipped += (data.numPendingTests ?? 0) + (data.numTodoTests ?? 0);
		// A file that failed outside its tests (it did not load, or an afterAll such as the reliability
		// suite's planned-count check failed) has no failed test but is a failure.
		for (const file of data.testResults ?? []) {
			const where = `${pkg.name} ${reportName} ${file.name?.replace(root, "") ?? "?"}`;
			const failedTests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
			for (const test of failedTests) {
				const why = (test.failureMessages?.[0] ?? "").split("\n")[0].slice(0, 300);
				failures.push(`FAILED ${where} > ${test.fullName ?? test.title}: ${why}`);
			}
			// A file that failed outside its tests (it did not load, or an afterAll such as the reliability
			// suite's planned-count check failed) has no failed test but is a failure.
			if (file.status === "failed" && failedTests.length === 0) {
				failed++;
				failures.push(
					`FAILED ${where} (outside its tests): ${(file.message ?? "").split("\n")[0].slice(0, 300)}`,
				);
			}
		}
	}
}
failed += missing;
for (const line of failures) console.log(line);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 ? 1 : 0);
