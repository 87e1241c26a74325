#!/usr/bin/env node
// Publish dry-run (CI, before any real release): `pnpm publish --dry-run` for each publishable
// package, exactly as changesets will publish it, and a check of what each tarball would contain:
// built JS with declarations, README, CHANGELOG, LICENSE, package.json, and no sources or tests.
// Run after a build. Exits non-zero on the first package whose contents are wrong.
// Provenance: npm rejects a provenance publish (E422) unless each package.json's `repository.url`
// names the GitHub repository the workflow runs in. Every run reports a package without it; with
// `--release` (the release workflow) that is a failure, checked against $GITHUB_REPOSITORY.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// fileURLToPath, not URL.pathname: a checkout under a path with a space or non-ASCII name.
const root = fileURLToPath(new URL("..", import.meta.url));
// biome-ignore lint/suspicious/noUndeclaredEnvVars: set by pnpm for every script it runs.
const pnpm = process.env.npm_execpath;
if (!pnpm) throw new Error("run through pnpm (pnpm publish:dry-run) so npm_execpath is set");

const required = {
	"lifecycle-kit": [
		"dist/index.js",
		"dist/index.d.ts",
		"dist/testing/index.js",
		"dist/testing/index.d.ts",
		"dist/text.js",
		"dist/text.d.ts",
	],
	"pi-reset": ["dist/index.js", "dist/index.d.ts"],
	"pi-goal": ["dist/index.js", "dist/index.d.ts"],
	"pi-jscpd": ["dist/index.js", "dist/index.d.ts"],
};
const always = ["package.json", "README.md", "CHANGELOG.md", "LICENSE"];
const release = process.argv.includes("--release");
// biome-ignore lint/suspicious/noUndeclaredEnvVars: set by GitHub Actions.
const githubRepository = process.env.GITHUB_REPOSITORY;
/** `git+https://github.com/o/r.git` and `github:o/r` forms, as npm compares them. */
const normalise = (url) =>
	String(url ?? "")
		.replace(/^git\+/, "")
		.replace(/^github:/, "https://github.com/")
		.replace(/\.git$/, "")
		.replace(/\/$/, "");

/** What is wrong with a package's `repository` for a provenance publish ("" when nothing). */
function repositoryProblem(name) {
	const manifest = JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"));
	const repository =
		typeof manifest.repository === "string" ? { url: manifest.repository } : manifest.repository;
	if (!repository?.url) return "has no repository.url (npm rejects a provenance publish without it: E422)";
	if (githubRepository && normalise(repository.url) !== `https://github.com/${githubRepository}`)
		return `repository.url ${repository.url} is not https://github.com/${githubRepository} (E422 with provenance)`;
	if (repository.directory !== `packages/${name}`) return `repository.directory should be packages/${name}`;
	return "";
}

let failed = false;
for (const [name, files] of Object.entries(required)) {
	const out = execFileSync(pnpm, ["publish", "--dry-run", "--no-git-checks", "--json"], {
		cwd: join(root, "packages", name),
		encoding: "utf8",
		stdio: ["ignore", "pipe", "inherit"],
	});
	const report = JSON.parse(out.slice(out.indexOf("{")));
	const paths = report.files.map((file) => file.path);
	const missing = [...always, ...files].filter((file) => !paths.includes(file));
	const unwanted = paths.filter((file) => /^(src|test)\//.test(file) || file.endsWith(".test.ts"));
	const repository = repositoryProblem(name);
	const ok = missing.length === 0 && unwanted.length === 0 && !(release && repository);
	failed ||= !ok;
	console.log(`${ok ? "ok  " : "FAIL"} ${report.id}: ${paths.length} files, ${report.size} bytes packed`);
	for (const file of missing) console.log(`     missing ${file}`);
	for (const file of unwanted) console.log(`     must not ship ${file}`);
	if (repository)
		console.log(`     ${release ? "" : "warning: "}packages/${name}/package.json ${repository}`);
}
process.exit(failed ? 1 : 0);
