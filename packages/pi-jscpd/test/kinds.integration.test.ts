/** Clone kinds (issue 21): settings validation, report classification, line shapes, identity per kind. */

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, detectionOf, validateSettings } from "../src/adapters/config.js";
import { projectSetsMinTokens } from "../src/adapters/project-config.js";
import { scanArguments } from "../src/adapters/scan.js";
import { findingIdentity } from "../src/core/identity.js";
import {
	checkedNote,
	classify,
	detectionArguments,
	detectionPlan,
	EXACT_ONLY,
	MAX_NEAR_COPY_PAIRS,
	nearCopyOverload,
	parseDetection,
	shapeHashes,
	shapeOf,
} from "../src/core/kinds.js";
import { findingLine, scanText } from "../src/core/presentation.js";
import { type CloneGroup, fragmentHashes, toGroup } from "../src/core/report.js";

const ROOT = "/project";

function raw(
	kind: string | undefined,
	similarity?: number,
	fragment = "const total = a + b;\\nreturn total;",
) {
	return {
		format: "typescript",
		lines: 14,
		tokens: 90,
		fragment: fragment.replaceAll("\\n", "\n"),
		...(kind ? { kind } : {}),
		...(similarity === undefined ? {} : { similarity }),
		firstFile: { name: "/project/src/a.ts", start: 2, end: 15 },
		secondFile: { name: "/project/src/b.ts", start: 2, end: 15 },
	};
}

describe("settings: kinds, similarity, minTokens, minLines (trusted-only like all config)", () => {
	it("defaults: every kind, similarity 0.7, jscpd's own token and line minimums", () => {
		expect(DEFAULT_SETTINGS.kinds).toEqual(["exact", "renamed", "similar"]);
		expect(DEFAULT_SETTINGS.similarity).toBe(0.7);
		expect(detectionOf(DEFAULT_SETTINGS)).toEqual({
			kinds: ["exact", "renamed", "similar"],
			similarity: 0.7,
		});
	});

	it("valid values are accepted and kinds are put in canonical order", () => {
		const result = validateSettings({
			kinds: ["similar", "exact"],
			similarity: 0.8,
			minTokens: 30,
			minLines: 4,
		});
		expect(result).toEqual({
			ok: true,
			value: { kinds: ["exact", "similar"], similarity: 0.8, minTokens: 30, minLines: 4 },
		});
	});

	it("bad values are rejected with clear errors", () => {
		const result = validateSettings({
			kinds: ["exact", "fuzzy"],
			similarity: 1.5,
			minTokens: 3,
			minLines: "5",
		});
		expect(result.ok).toBe(false);
		const issues = result.ok ? [] : result.issues;
		expect(issues).toContain(
			'"kinds" has unknown kind "fuzzy"; use a non-empty list of "exact", "renamed", "similar"',
		);
		expect(issues).toContain('"similarity" must be a number from 0.5 to 0.99 (e.g. 0.7)');
		expect(issues).toContain('"minTokens" must be an integer from 10 to 1000');
		expect(issues).toContain('"minLines" must be an integer from 2 to 1000');
		expect(validateSettings({ kinds: [] })).toMatchObject({ ok: false });
	});
});

describe("jscpd arguments per detection (nothing user-typed precedes --)", () => {
	it("exact only adds nothing; near kinds add --similarity; minimums add their flags", () => {
		expect(detectionArguments(EXACT_ONLY)).toEqual([]);
		expect(detectionArguments({ kinds: ["exact", "similar"], similarity: 0.75, minTokens: 30 })).toEqual([
			"--similarity",
			"0.75",
			"--min-tokens",
			"30",
		]);
		// Renamed without similar: the AST comparison at (almost) 1 only, from 30 tokens.
		expect(detectionArguments({ kinds: ["renamed"], similarity: 0.7, minLines: 4 })).toEqual([
			"--similarity",
			"0.99",
			"--min-tokens",
			"30",
			"--min-lines",
			"4",
		]);
		const args = scanArguments(["/project/src"], {
			detection: { kinds: ["exact", "similar"], similarity: 0.7 },
		});
		expect(args.indexOf("--similarity")).toBeLessThan(args.indexOf("--"));
	});

	it("near-copies from 30 tokens, exact clones from jscpd's 50: jscpd runs with 30 and exact clones under 50 are dropped", () => {
		expect(detectionPlan({ kinds: ["exact", "renamed", "similar"], similarity: 0.7 })).toEqual({
			args: ["--similarity", "0.7", "--min-tokens", "30"],
			exactMinTokens: 50,
		});
		// No exact kind: nothing to drop.
		expect(detectionPlan({ kinds: ["similar"], similarity: 0.8 })).toEqual({
			args: ["--similarity", "0.8", "--min-tokens", "30"],
		});
		// A configured minTokens, or the project's own jscpd minimum, applies to every kind.
		expect(detectionPlan({ kinds: ["exact", "similar"], similarity: 0.7, minTokens: 40 })).toEqual({
			args: ["--similarity", "0.7", "--min-tokens", "40"],
		});
		expect(detectionPlan({ kinds: ["exact", "similar"], similarity: 0.7 }, true)).toEqual({
			args: ["--similarity", "0.7"],
		});
		expect(detectionPlan(EXACT_ONLY)).toEqual({ args: [] });
	});

	it("a persisted detection is read back; a malformed one is refused", () => {
		expect(parseDetection({ kinds: ["exact", "similar"], similarity: 0.7, minTokens: 30 })).toEqual({
			kinds: ["exact", "similar"],
			similarity: 0.7,
			minTokens: 30,
		});
		expect(parseDetection({ kinds: ["fuzzy"], similarity: 0.7 })).toBeUndefined();
		expect(parseDetection({ kinds: ["exact"], similarity: 7 })).toBeUndefined();
		expect(parseDetection(undefined)).toBeUndefined();
	});
});

describe("report entries by kind", () => {
	it("jscpd's kinds: exact (or none), renamed, AST similar at 1 is a renamed copy, below it a near-copy", () => {
		expect(classify({})).toEqual({ kind: "exact" });
		expect(classify({ kind: "exact" })).toEqual({ kind: "exact" });
		expect(classify({ kind: "renamed" })).toEqual({ kind: "renamed" });
		expect(classify({ kind: "similar", similarity: 1 })).toEqual({ kind: "renamed", similarity: 1 });
		expect(classify({ kind: "similar", similarity: 0.7 })).toEqual({ kind: "similar", similarity: 0.7 });
	});

	it("a renamed or near-miss group hashes its lines' shapes: both sides of a renamed copy hash alike", () => {
		expect(shapeOf('const amount = entry.price * 2; log("x")')).toBe("const i = i.i * 0; i(#)");
		expect(shapeHashes("let base = 0;\nbase += amount;")).toEqual(
			shapeHashes("let subtotal = 0;\nsubtotal += line;"),
		);
		const near = toGroup(ROOT, raw("similar", 0.8)) as CloneGroup;
		expect(near).toMatchObject({ kind: "similar", similarity: 0.8 });
		expect(near.hashes).toEqual(shapeHashes("const total = a + b;\nreturn total;"));
		const exact = toGroup(ROOT, raw(undefined)) as CloneGroup;
		expect(exact.kind).toBeUndefined();
		expect(exact.hashes).toEqual(fragmentHashes("const total = a + b;\nreturn total;"));
		expect(near.hashes).not.toEqual(exact.hashes);
	});

	it("identity per kind: an acknowledged exact finding does not acknowledge a renamed one at the same place", () => {
		const exact = toGroup(ROOT, raw(undefined)) as CloneGroup;
		const renamed = { ...exact, kind: "renamed" as const };
		const loc = exact.locations[1];
		expect(findingIdentity(renamed, [loc])).not.toBe(findingIdentity(exact, [loc]));
	});
});

describe("messages name the kind and the original's location", () => {
	it("renamed copy of / near-copy of, with the original; exact findings keep their wording", () => {
		const renamed = toGroup(ROOT, raw("similar", 1)) as CloneGroup;
		const [original] = renamed.locations;
		expect(findingLine({ identity: "x", group: renamed, label: "matches-existing", original }, 0)).toBe(
			"1. src/b.ts:2-15: renamed copy of src/a.ts:2-15 (14 lines, 90 tokens, typescript)",
		);
		const near = toGroup(ROOT, raw("similar", 0.734)) as CloneGroup;
		expect(findingLine({ identity: "x", group: near, label: "matches-existing", original }, 1)).toBe(
			"2. src/b.ts:2-15: near-copy of src/a.ts:2-15 (73% similar, 14 lines, 90 tokens, typescript)",
		);
		expect(findingLine({ identity: "x", group: near, label: "new" }, 0)).toBe(
			"1. new near-copy: src/a.ts:2-15 ≈ src/b.ts:2-15 (73% similar, 14 lines, 90 tokens, typescript)",
		);
		const exact = toGroup(ROOT, raw(undefined)) as CloneGroup;
		expect(findingLine({ identity: "x", group: exact, label: "matches-existing", original }, 0)).toBe(
			"1. copies existing code: src/a.ts:2-15 ≈ src/b.ts:2-15 (14 lines, 90 tokens, typescript)",
		);
		expect(scanText([near], 5, 2, 0)).toContain("1. near-copy: src/a.ts:2-15 ≈ src/b.ts:2-15 (73% similar");
	});

	it("a scan's first line counts the files it checked apart from the blocks: one block between two files is not 'in 3 files'", () => {
		const exact = toGroup(ROOT, raw(undefined)) as CloneGroup;
		const [first] = scanText([exact], 5, 3, 0).split("\n");
		expect(first).toBe("jscpd: 1 duplicated block (3 files checked).");
		expect(scanText([], 5, 1, 0)).toBe("jscpd: no duplicated blocks found (1 file checked).");
		expect(scanText([exact], 5, 40, 0, " (checked: exact)").split("\n")[0]).toBe(
			"jscpd: 1 duplicated block (40 files checked; kinds checked: exact).",
		);
	});
});

describe("a project's own jscpd token minimum", () => {
	const dirs: string[] = [];
	afterEach(() => {
		for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
	});
	const project = (files: Record<string, string>) => {
		const dir = mkdtempSync(join(tmpdir(), "pi-jscpd-config-"));
		dirs.push(dir);
		for (const [name, text] of Object.entries(files)) {
			mkdirSync(dirname(join(dir, name)), { recursive: true });
			writeFileSync(join(dir, name), text);
		}
		return dir;
	};

	it("is set by minTokens or min-tokens in .jscpd.json, .config/jscpd.json, .config/.jscpd.json or package.json jscpd; an unreadable config counts as set", () => {
		expect(projectSetsMinTokens(project({}))).toBe(false);
		expect(projectSetsMinTokens(project({ ".jscpd.json": '{"ignore":["dist"]}' }))).toBe(false);
		expect(projectSetsMinTokens(project({ ".jscpd.json": '{"minTokens":70}' }))).toBe(true);
		expect(projectSetsMinTokens(project({ ".jscpd.json": '{"min-tokens":70}' }))).toBe(true);
		expect(projectSetsMinTokens(project({ ".jscpd.json": "{oops" }))).toBe(true);
		expect(projectSetsMinTokens(project({ ".config/jscpd.json": '{"minTokens":70}' }))).toBe(true);
		expect(projectSetsMinTokens(project({ ".config/.jscpd.json": '{"min-tokens":70}' }))).toBe(true);
		expect(projectSetsMinTokens(project({ "package.json": '{"jscpd":{"minTokens":70}}' }))).toBe(true);
		expect(projectSetsMinTokens(project({ "package.json": '{"name":"x"}' }))).toBe(false);
	});
});

describe("a project's jscpd config that is not a regular file", () => {
	it("a named pipe as .jscpd.json is never opened (opening one would stall Pi until a writer came)", async () => {
		const root = mkdtempSync(join(tmpdir(), "pi-jscpd-config-"));
		const fifo = join(root, ".jscpd.json");
		expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
		// Only a writer releases a blocking open of the pipe: this one comes after 3 s so that the test ends
		// either way; a probe that never opens the pipe returns long before it.
		const writer = spawn(process.execPath, [
			"-e",
			`setTimeout(() => require("fs").writeFileSync(${JSON.stringify(fifo)}, "{}"), 3000)`,
		]);
		try {
			const started = performance.now();
			expect(projectSetsMinTokens(root)).toBe(false);
			expect(performance.now() - started).toBeLessThan(1500);
		} finally {
			writer.kill();
			rmSync(root, { recursive: true, force: true });
		}
	});
});

describe("near-copy overload and what a clean check names", () => {
	const groups = (near: number, exact = 0) => [
		...Array.from({ length: near }, () => ({ kind: "similar" as const })),
		...Array.from({ length: exact }, () => ({})),
	];

	it("more than 1,000 renamed or near-copy pairs and more than 1 per 100 lines turn near-copies off", () => {
		expect(nearCopyOverload(groups(MAX_NEAR_COPY_PAIRS, 5_000), 10_000)).toBeUndefined();
		expect(nearCopyOverload(groups(MAX_NEAR_COPY_PAIRS + 1), 10_000)).toContain(
			"the project has 1001 renamed or near-copy pairs in 10000 lines",
		);
		// A large project may have many pairs and still few per line.
		expect(nearCopyOverload(groups(2_000), 1_000_000)).toBeUndefined();
		expect(nearCopyOverload(groups(2_000), undefined)).toBeDefined();
	});

	it("a clean check names the kinds it checked unless it checked them all", () => {
		expect(checkedNote({ kinds: ["exact", "renamed", "similar"], similarity: 0.7 })).toBe("");
		expect(checkedNote(EXACT_ONLY)).toBe(" (checked: exact)");
		expect(checkedNote(undefined)).toBe(" (checked: exact)");
	});
});
