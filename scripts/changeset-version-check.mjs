#!/usr/bin/env node
// Proves that `changeset version` versions the four packages independently and writes their
// CHANGELOGs, without touching this checkout: it clones the committed HEAD into a temp directory,
// replaces the pending changesets with a known pair (lifecycle-kit minor, pi-reset patch), runs the
// workspace's changesets CLI there and checks every package.json and CHANGELOG.md.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// fileURLToPath, not URL.pathname: a checkout under a path with a space or non-ASCII name.
const root = fileURLToPath(new URL("..", import.meta.url));
const changeset = join(root, "node_modules", "@changesets", "cli", "bin.js");
const clone = mkdtempSync(join(tmpdir(), "pi-lifecycle-release-"));
const problems = [];
const check = (ok, message) => {
	if (!ok) problems.push(message);
};
const pkg = (name) => JSON.parse(readFileSync(join(clone, "packages", name, "package.json"), "utf8"));
const changelog = (name) => readFileSync(join(clone, "packages", name, "CHANGELOG.md"), "utf8");

try {
	execFileSync("git", ["clone", "--quiet", "--no-hardlinks", root, clone], { stdio: "inherit" });
	const names = ["lifecycle-kit", "pi-reset", "pi-goal", "pi-jscpd"];
	const before = Object.fromEntries(names.map((name) => [name, pkg(name).version]));
	const logsBefore = Object.fromEntries(names.map((name) => [name, changelog(name)]));
	const dir = join(clone, ".changeset");
	for (const file of readdirSync(dir))
		if (file.endsWith(".md") && file !== "README.md") rmSync(join(dir, file));
	writeFileSync(
		join(dir, "kit-feature.md"),
		'---\n"@pi-lifecycle/lifecycle-kit": minor\n---\n\nRelease check: a kit feature.\n',
	);
	writeFileSync(
		join(dir, "reset-fix.md"),
		'---\n"@pi-lifecycle/pi-reset": patch\n---\n\nRelease check: a reset fix.\n',
	);
	execFileSync(process.execPath, [changeset, "version"], { cwd: clone, stdio: "inherit" });

	const bump = (version, part) => {
		const [major, minor, patch] = version.split(".").map(Number);
		return part === "minor" ? `${major}.${minor + 1}.0` : `${major}.${minor}.${patch + 1}`;
	};
	const expected = {
		"lifecycle-kit": bump(before["lifecycle-kit"], "minor"),
		"pi-reset": bump(before["pi-reset"], "patch"),
		// Dependents of the kit get a patch release that records the new kit version.
		"pi-goal": bump(before["pi-goal"], "patch"),
		"pi-jscpd": bump(before["pi-jscpd"], "patch"),
	};
	for (const name of names) {
		const after = pkg(name);
		check(after.version === expected[name], `${name}: version ${after.version}, expected ${expected[name]}`);
		const log = changelog(name);
		check(log.includes(`## ${expected[name]}`), `${name}: CHANGELOG has no "## ${expected[name]}" section`);
		check(
			log.endsWith(logsBefore[name].replace(/^# [^\n]*\n\n?/, "")),
			`${name}: CHANGELOG lost earlier entries`,
		);
		// The hand-written first entry (.changeset/README.md) stays below the generated one.
		check(
			log.indexOf(`## ${expected[name]}`) < log.indexOf(`## ${before[name]}`),
			`${name}: the new entry is not above the ${before[name]} entry`,
		);
		if (name !== "lifecycle-kit") {
			check(
				after.dependencies["@pi-lifecycle/lifecycle-kit"].startsWith("workspace:"),
				`${name}: the kit dependency must stay a workspace range (pnpm rewrites it when packing)`,
			);
			check(
				log.includes(`@pi-lifecycle/lifecycle-kit@${expected["lifecycle-kit"]}`),
				`${name}: CHANGELOG does not name the new kit version`,
			);
		}
	}
	check(
		changelog("lifecycle-kit").includes("### Minor Changes\n\n- "),
		"lifecycle-kit: no Minor Changes section",
	);
	check(
		changelog("lifecycle-kit").includes("Release check: a kit feature."),
		"lifecycle-kit: changeset text missing",
	);
	check(changelog("pi-reset").includes("Release check: a reset fix."), "pi-reset: changeset text missing");
	check(
		!changelog("pi-goal").includes("a reset fix"),
		"pi-goal: got pi-reset's entry (versions must be independent)",
	);
	check(
		readdirSync(dir).every((file) => !file.endsWith(".md") || file === "README.md"),
		"changesets were not consumed",
	);
} finally {
	rmSync(clone, { recursive: true, force: true });
}
if (problems.length > 0) {
	console.error(`changeset version check failed:\n  ${problems.join("\n  ")}`);
	process.exit(1);
}
console.log("changeset version check: independent versions and CHANGELOGs as expected");
