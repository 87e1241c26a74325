/**
 * Published READMEs and docs link only what their reader can open, and never name internal
 * planning documents. The root README and docs/ are read in the repository: a relative link must
 * name a file or directory in it. A package README is read from the npm tarball: a relative link
 * must stay inside the package and name something the package's `files` field ships.
 */
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, normalize, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const PACKAGES = ["lifecycle-kit", "pi-reset", "pi-goal", "pi-jscpd"] as const;
/** Published with each package besides its README (npm ships the CHANGELOG). */
const PACKAGE_DOCS = ["README.md", "CHANGELOG.md"] as const;

/** Names of internal planning documents and references a reader of a published doc cannot follow. */
const INTERNAL: readonly { readonly what: string; readonly pattern: RegExp }[] = [
	{ what: "a seed file", pattern: /\bseeds?\b[\s/]*\d{3}|\bseeds\//i },
	{ what: "DESIGN.md", pattern: /\bDESIGN\.md\b/ },
	{ what: "pi-host-api.md", pattern: /\bpi-host-api(?:\.md)?\b/ },
	{ what: "STYLE.md", pattern: /\bSTYLE\.md\b/ },
	{ what: "an issue number", pattern: /\bissues?\s+#?\d+/i },
	{ what: "the shared planning folder", pattern: /\.\.\/shared\b|\/work\/shared\b/ },
];

/** Markdown link targets (inline and reference definitions), without titles. */
function linkTargets(markdown: string): string[] {
	const text = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
	const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? "");
	const defined = [...text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)].map(
		(m) => m[1] ?? "",
	);
	return [...inline, ...defined];
}

/** A link to another site, a mail address or an anchor on the same page needs no file. */
function isExternal(target: string): boolean {
	return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#");
}

function localPath(target: string): string {
	return decodeURIComponent(target.replace(/[#?].*$/, ""));
}

/** What a doc names that its reader cannot follow: `internal` names, then links. */
function problems(file: string, opens: (path: string) => string | undefined): string[] {
	const markdown = readFileSync(file, "utf8");
	const found: string[] = [];
	for (const { what, pattern } of INTERNAL) {
		for (const match of markdown.matchAll(new RegExp(pattern.source, `${pattern.flags}g`)))
			found.push(`names ${what}: "${match[0]}"`);
	}
	for (const target of linkTargets(markdown)) {
		if (isExternal(target)) continue;
		const why = opens(normalize(join(dirname(file), localPath(target))));
		if (why) found.push(`links ${target}: ${why}`);
	}
	return found;
}

function inRepository(path: string): string | undefined {
	const rel = relative(repoRoot, path);
	if (rel.startsWith("..")) return "outside the repository";
	return existsSync(path) ? undefined : "not in the repository";
}

/** Whether a path inside a package is shipped: npm always ships package.json, README, LICENSE, CHANGELOG. */
function inTarball(packageDir: string): (path: string) => string | undefined {
	const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { files?: string[] };
	const shipped = ["package.json", "README.md", "LICENSE", "CHANGELOG.md", ...(manifest.files ?? [])];
	return (path) => {
		const rel = relative(packageDir, path).split(sep).join("/");
		if (rel.startsWith("..")) return "outside the package (not in the npm tarball)";
		if (!shipped.some((entry) => rel === entry || rel.startsWith(`${entry.replace(/\/$/, "")}/`)))
			return "not in the npm tarball (package.json `files`)";
		return existsSync(path) ? undefined : "does not exist";
	};
}

const repositoryDocs = [
	join(repoRoot, "README.md"),
	...readdirSync(join(repoRoot, "docs"))
		.filter((name) => name.endsWith(".md"))
		.map((name) => join(repoRoot, "docs", name)),
];

describe("published docs link only what their reader can open", () => {
	it.each(repositoryDocs.map((file) => [relative(repoRoot, file), file]))(
		"%s links only repository paths and names no internal planning document",
		(_name, file) => {
			expect(problems(file, inRepository)).toEqual([]);
		},
	);
});

describe("package READMEs link only what the npm tarball ships", () => {
	it.each(PACKAGES.flatMap((name) => PACKAGE_DOCS.map((doc) => [name, doc])))(
		"packages/%s/%s",
		(name, doc) => {
			const packageDir = join(repoRoot, "packages", name);
			expect(problems(join(packageDir, doc), inTarball(packageDir))).toEqual([]);
		},
	);
});

describe("the docs checker", () => {
	it("finds a missing file, a path outside the package or the tarball, and every internal name", () => {
		const root = mkdtempSync(join(tmpdir(), "docs-links-"));
		try {
			const pkg = join(root, "pkg");
			mkdirSync(join(pkg, "dist"), { recursive: true });
			mkdirSync(join(pkg, "test"));
			writeFileSync(join(pkg, "package.json"), JSON.stringify({ files: ["dist"] }));
			writeFileSync(join(pkg, "dist", "index.js"), "");
			writeFileSync(join(pkg, "test", "a.test.ts"), "");
			writeFileSync(
				join(pkg, "README.md"),
				[
					"[ok](dist/index.js) [site](https://example.com) [here](#usage) `[code](nope.md)`",
					"[gone](dist/missing.js) [tests](test/a.test.ts) [docs](../docs/x.md)",
					"[ref]: ./test/a.test.ts",
					"As DESIGN.md §4 and pi-host-api.md §7 say (seed 002, issue 24, ../shared/STYLE.md).",
				].join("\n"),
			);
			expect(problems(join(pkg, "README.md"), inTarball(pkg))).toEqual([
				'names a seed file: "seed 002"',
				'names DESIGN.md: "DESIGN.md"',
				'names pi-host-api.md: "pi-host-api.md"',
				'names STYLE.md: "STYLE.md"',
				'names an issue number: "issue 24"',
				'names the shared planning folder: "../shared"',
				"links dist/missing.js: does not exist",
				"links test/a.test.ts: not in the npm tarball (package.json `files`)",
				"links ../docs/x.md: outside the package (not in the npm tarball)",
				"links ./test/a.test.ts: not in the npm tarball (package.json `files`)",
			]);
		} finally {
			rmSync(root, { recursive: true, force: true });
		}
	});
});
