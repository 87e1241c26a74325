/**
 * A package's README and CHANGELOG are read where the package is: in its tarball, on the registry's
 * page, in `node_modules`. They must stand alone there: no repository path or source file that the
 * tarball does not ship (`src/core/completion.ts`, `docs/glossary.md`, `./packages/pi-goal`), no
 * test file. Reads the packed tarballs (`pnpm pack:all` first), as docs-links.test.ts does.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tarballFiles, tarballPath } from "./support/packed.js";
import { pathWords, shippedDocProblems } from "./support/shipped-doc-refs.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGES = ["lifecycle-kit", "pi-reset", "pi-goal", "pi-jscpd"] as const;
const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" })
	.split("\0")
	.filter(Boolean);

describe.each(PACKAGES)("the packed @pi-lifecycle/%s", (name) => {
	const tarball = tarballPath(name);
	const shipped = tarballFiles(tarball);
	const docs = shipped.filter((file) => file === "README.md" || file === "CHANGELOG.md");

	it("ships a README and a CHANGELOG (the check below is not vacuous)", () => {
		expect(docs.sort()).toEqual(["CHANGELOG.md", "README.md"]);
	});

	it.each(["README.md", "CHANGELOG.md"])(
		"%s names no repository file the tarball lacks, no internal module path and no test file",
		(doc) => {
			const text = execFileSync("tar", ["xzOf", tarball, `package/${doc}`], { encoding: "utf8" });
			expect(shippedDocProblems(text, { shipped, tracked, packageDir: `packages/${name}` })).toEqual([]);
		},
	);
});

// A pending changeset becomes CHANGELOG text in each package it names (`changeset version`).
const changesets = tracked.filter(
	(path) => /^\.changeset\/.+\.md$/.test(path) && path !== ".changeset/README.md",
);

describe("pending changesets (CHANGELOG text once versioned)", () => {
	it.each(changesets)("%s names nothing the tarballs of its packages lack", (path) => {
		const text = readFileSync(join(repoRoot, path), "utf8");
		const [, front = "", body = ""] = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text) ?? [];
		const names = [...front.matchAll(/"@pi-lifecycle\/([\w-]+)"/g)].map((match) => match[1] ?? "");
		expect(names.length, "a changeset names at least one package").toBeGreaterThan(0);
		const problems = names.flatMap((name) =>
			shippedDocProblems(body, {
				shipped: tarballFiles(tarballPath(name as (typeof PACKAGES)[number])),
				tracked,
				packageDir: `packages/${name}`,
			}),
		);
		expect([...new Set(problems)]).toEqual([]);
	});
});

describe("the shipped-doc check", () => {
	const context = {
		shipped: ["package.json", "README.md", "CHANGELOG.md", "dist/index.js", "examples/keep-going.ts"],
		tracked: [
			"docs/glossary.md",
			"docs/security.md",
			"packages/pi-goal/src/core/completion.ts",
			"packages/pi-goal/src/index.ts",
			"packages/pi-goal/test/helpers.ts",
			"packages/pi-goal/README.md",
			"packages/lifecycle-kit/src/identity.ts",
			"test/cli/run-pi.ts",
			"bench/README.md",
			".gitignore",
		],
		packageDir: "packages/pi-goal",
	};

	it("fails on a planted internal path, repository doc, checkout path, source file name and test file", () => {
		const planted = [
			"Admission lives in `src/core/completion.ts`; `src/index.ts` only composes.",
			"Words: docs/glossary.md in the pi-lifecycle repository; see also [security](../../docs/security.md).",
			"Try it: `pi -e ./packages/pi-goal`. Measured in bench/README.md.",
			"### Identity (`identity.ts`)",
			"Proven by `goal-rules.unit.test.ts` and test/helpers.ts; files `*.session.test.ts`.",
		].join("\n");
		expect(shippedDocProblems(planted, context)).toEqual([
			'names a repository path that is not in the tarball: "src/core/completion.ts"',
			'names a repository path that is not in the tarball: "src/index.ts"',
			'names a repository path that is not in the tarball: "docs/glossary.md"',
			'names a path outside the package: "../../docs/security.md"',
			'names a repository path that is not in the tarball: "./packages/pi-goal"',
			'names a repository path that is not in the tarball: "bench/README.md"',
			'names a repository file that is not in the tarball: "identity.ts"',
			'names a test file: "goal-rules.unit.test.ts"',
			'names a repository path that is not in the tarball: "test/helpers.ts"',
			'names a test file: "*.session.test.ts"',
		]);
	});

	it("passes shipped files, URLs, package names and paths of the user's project", () => {
		const fine = [
			"See [the example](examples/keep-going.ts), dist/index.js, README.md and CHANGELOG.md.",
			"Install `npm:@pi-lifecycle/pi-goal` or `@pi-lifecycle/lifecycle-kit/testing`; https://example.com/docs/glossary.md.",
			"`/goal clear the build warnings in src/`; `src/orders.ts:2-15: renamed copy of src/invoice.ts`.",
			"Settings: `~/.pi/agent/pi-lifecycle/pi-goal.json`, `.pi/pi-lifecycle/pi-goal.json`, `.gitignore`, `node_modules/.bin/jscpd`.",
		].join("\n");
		expect(shippedDocProblems(fine, context)).toEqual([]);
	});

	it("reads path-like words out of prose and code alike", () => {
		expect(pathWords("see `src/a.ts`, docs/x.md. and (dist/) or cli.ts; plain words")).toEqual([
			"src/a.ts",
			"docs/x.md",
			"dist/",
			"cli.ts",
		]);
	});
});
