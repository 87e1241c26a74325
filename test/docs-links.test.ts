/**
 * Published READMEs and docs link only what their reader can open, and never name internal
 * planning documents. Every Markdown file in the repository is read there: a relative link must
 * name a file in it (and an anchor a heading of that file). What npm ships is read from the
 * packed tarball (run `pnpm pack:all` first): every doc in it may link only inside the tarball.
 * Pending changesets become CHANGELOG text in the tarball, so they are held to the same rule.
 * Test files and `docs/*.md` a doc mentions by name, linked or not, must exist in the repository.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { docProblems, type Opens } from "./support/docs-check.js";
import { tarballFiles, tarballPath } from "./support/packed.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGES = ["lifecycle-kit", "pi-reset", "pi-goal", "pi-jscpd"] as const;

const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: repoRoot, encoding: "utf8" })
	.split("\0")
	.filter(Boolean);
const repository = {
	root: repoRoot,
	testFiles: new Set(tracked.filter((path) => path.endsWith(".test.ts")).map((path) => basename(path))),
	exists: existsSync,
};

/** Opens a path inside `root` (the repository, or an unpacked tarball) as its reader would. */
function opener(root: string, outside: string): Opens {
	return (path) => {
		const rel = relative(root, path);
		if (rel.startsWith("..")) return { missing: outside };
		if (!existsSync(path))
			return { missing: `not in the ${outside.includes("tarball") ? "npm tarball" : "repository"}` };
		return path.endsWith(".md") && statSync(path).isFile() ? { markdown: readFileSync(path, "utf8") } : {};
	};
}

const repositoryDocs = tracked.filter((path) => path.endsWith(".md") && !path.startsWith(".changeset/"));
const changesets = tracked.filter(
	(path) => /^\.changeset\/.+\.md$/.test(path) && path !== ".changeset/README.md",
);

const unpacked = mkdtempSync(join(tmpdir(), "docs-links-"));
afterAll(() => rmSync(unpacked, { recursive: true, force: true }));

const unpackedPackages = new Map<string, { dir: string; docs: string[] }>();

/** The unpacked tarball of a package (`pnpm pack:all` output) and the docs it ships. */
function shipped(name: string): { dir: string; docs: string[] } {
	const known = unpackedPackages.get(name);
	if (known) return known;
	const tarball = tarballPath(name as (typeof PACKAGES)[number]);
	const dir = join(unpacked, name);
	mkdirSync(dir, { recursive: true });
	execFileSync("tar", ["xzf", tarball, "-C", dir, "--strip-components=1"]);
	// Every shipped text a reader reads as documentation: Markdown, and the examples' sources.
	const docs = tarballFiles(tarball).filter((file) => file.endsWith(".md") || file.startsWith("examples/"));
	unpackedPackages.set(name, { dir, docs });
	return { dir, docs };
}

describe("the docs this test checks", () => {
	it("are every Markdown file in the repository and every doc in each tarball (not vacuous)", () => {
		for (const doc of ["README.md", "bench/README.md", "docs/glossary.md", "docs/tui-tour.md"])
			expect(repositoryDocs).toContain(doc);
		for (const name of PACKAGES) {
			expect(repositoryDocs).toContain(`packages/${name}/README.md`);
			expect(shipped(name).docs).toEqual(expect.arrayContaining(["README.md", "CHANGELOG.md"]));
		}
		expect(repository.testFiles.size).toBeGreaterThan(50);
	});
});

describe("repository docs link only repository paths", () => {
	it.each(repositoryDocs)(
		"%s links only repository paths and names no internal planning document",
		(path) => {
			const file = join(repoRoot, path);
			const problems = docProblems(
				file,
				readFileSync(file, "utf8"),
				opener(repoRoot, "outside the repository"),
				repository,
			);
			expect(problems).toEqual([]);
		},
	);
});

describe("docs in the npm tarballs link only what the tarball ships", () => {
	it.each(PACKAGES)("@pi-lifecycle/%s", (name) => {
		const { dir, docs } = shipped(name);
		const problems = docs.flatMap((doc) =>
			docProblems(
				join(dir, doc),
				readFileSync(join(dir, doc), "utf8"),
				opener(dir, "outside the package (not in the npm tarball)"),
				repository,
			).map((problem) => `${doc}: ${problem}`),
		);
		expect(problems).toEqual([]);
	});
});

describe("pending changesets (CHANGELOG text in the tarball)", () => {
	it.each(changesets.length > 0 ? changesets : ["(none pending)"])("%s", (path) => {
		if (path === "(none pending)") return;
		const text = readFileSync(join(repoRoot, path), "utf8");
		const names = [
			...(/^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? "").matchAll(/"@pi-lifecycle\/([\w-]+)"/g),
		].map((m) => m[1] ?? "");
		expect(names.length, "a changeset names at least one package").toBeGreaterThan(0);
		const problems = names.flatMap((name) => {
			const { dir } = shipped(name);
			return docProblems(
				join(dir, "CHANGELOG.md"),
				text,
				opener(dir, "outside the package (not in the npm tarball)"),
				repository,
			);
		});
		expect([...new Set(problems)]).toEqual([]);
	});
});

describe("the docs checker", () => {
	it("finds a missing file, a path outside the package, a missing anchor, a missing test file and every internal name", () => {
		const root = mkdtempSync(join(tmpdir(), "docs-links-self-"));
		try {
			const pkg = join(root, "pkg");
			mkdirSync(join(pkg, "dist"), { recursive: true });
			writeFileSync(join(pkg, "dist", "index.js"), "");
			writeFileSync(join(pkg, "NOTES.md"), "# Notes\n\n## The `switch` table, in short\n");
			const markdown = [
				"# Usage",
				"[ok](dist/index.js) [site](https://example.com) [here](#usage) `[code](nope.md)`",
				"[anchor](NOTES.md#the-switch-table-in-short) [bad anchor](NOTES.md#switches) [self](#nowhere)",
				"[gone](dist/missing.js) [docs](../docs/x.md)",
				"[ref]: ./test/a.test.ts",
				"As DESIGN.md §4, DESIGN §3 and pi-host-api.md §7 say (seed 002, seed-4, issue 24, #12, ../shared/STYLE.md).",
				"Proven by `alone.test.ts` and `no-such.test.ts`; see docs/glossary.md and docs/nope.md in the repository.",
				"Files named `*.unit.test.ts` or `*.session.test.ts` are a kind of test, not a file; `lost.unit.test.ts` is one.",
			].join("\n");
			const problems = docProblems(
				join(pkg, "README.md"),
				markdown,
				opener(pkg, "outside the package (not in the npm tarball)"),
				repository,
			);
			expect(problems).toEqual([
				'names a seed file: "seed 002"',
				'names a seed file: "seed-4"',
				'names DESIGN.md: "DESIGN.md"',
				'names DESIGN.md: "DESIGN §"',
				'names pi-host-api.md: "pi-host-api.md"',
				'names STYLE.md: "STYLE.md"',
				'names an issue number: "issue 24"',
				'names an issue number: "#12"',
				'names the shared planning folder: "../shared"',
				"links NOTES.md#switches: no heading makes #switches",
				"links #nowhere: no heading makes #nowhere",
				"links dist/missing.js: not in the npm tarball",
				"links ../docs/x.md: outside the package (not in the npm tarball)",
				"links ./test/a.test.ts: not in the npm tarball",
				"mentions ./test/a.test.ts: no such test file in the repository",
				"mentions no-such.test.ts: no such test file in the repository",
				"mentions lost.unit.test.ts: no such test file in the repository",
				"mentions docs/nope.md: not in the repository",
			]);
		} finally {
			rmSync(root, { recursive: true, force: true });
		}
	});
});
