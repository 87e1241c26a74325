/**
 * One copy is one finding (issue 31): jscpd reports a new copy once per alike function it resembles
 * and once per kind; the selection keeps one finding per new location, the strongest kind, naming
 * existing code when it can, and every finding names the new location first, the existing code second.
 */
import { describe, expect, it } from "vitest";
import { selectFindings } from "../src/core/compare.js";
import { indexGroups } from "../src/core/identity.js";
import { findingLine } from "../src/core/presentation.js";
import type { CloneGroup, CloneLocation } from "../src/core/report.js";

const H = [21, 22, 23, 24, 25, 26];
const at = (path: string, startLine: number): CloneLocation => ({ path, startLine, endLine: startLine + 5 });
const group = (
	a: CloneLocation,
	b: CloneLocation,
	kind?: "renamed" | "similar",
	similarity?: number,
): CloneGroup => ({
	identity: `${a.path}|${b.path}|${kind ?? "exact"}`,
	format: "typescript",
	lines: 6,
	tokens: 60,
	locations: [a, b],
	hashes: H,
	...(kind ? { kind, similarity: similarity ?? 1 } : {}),
});
const select = (groups: CloneGroup[], changed: string[], baseline: CloneGroup[] = []) =>
	selectFindings({
		groups,
		baseline: indexGroups(baseline),
		changed: new Set(changed),
		acknowledged: () => false,
		max: 5,
	});

describe("one copy is one finding", () => {
	it("one copy is one finding: a renamed copy of log.ts that also resembles log-variant.ts (written this session) uses one slot", () => {
		// log-variant.ts was written earlier in the session (already reported); new.ts copies log.ts.
		const baseline: CloneGroup[] = [];
		const groups = [
			group(at("src/log-variant.ts", 1), at("src/new.ts", 1), "renamed"),
			group(at("src/log.ts", 1), at("src/new.ts", 1), "renamed"),
			group(at("src/log-variant.ts", 1), at("src/log.ts", 1), "renamed"),
		];
		const { findings } = select(groups, ["src/new.ts", "src/log-variant.ts"], baseline);
		const lines = findings.map(findingLine);
		const aboutNew = lines.filter((line) => line.includes("src/new.ts"));
		expect(aboutNew).toHaveLength(1);
		expect(aboutNew[0]).toContain("src/new.ts:1-6: renamed copy of src/log.ts:1-6");
	});

	it("one copy is one finding: the strongest kind wins when an exact copy is also a renamed and a near-copy", () => {
		const groups = [
			group(at("src/a.ts", 1), at("src/copy.ts", 1), "similar", 0.8),
			group(at("src/b.ts", 1), at("src/copy.ts", 1), "renamed"),
			group(at("src/c.ts", 1), at("src/copy.ts", 1)),
		];
		const { findings } = select(groups, ["src/copy.ts"]);
		expect(findings).toHaveLength(1);
		expect(findings[0]?.group.kind ?? "exact").toBe("exact");
	});

	it("new location first: an exact copy names the new file first and the existing code second, whatever jscpd's order", () => {
		// jscpd orders a pair by path: the original (a.ts) comes first.
		const { findings } = select([group(at("src/a.ts", 10), at("src/z.ts", 1))], ["src/z.ts"]);
		expect(findings.map(findingLine)).toEqual([
			"1. copies existing code: src/z.ts:1-6 ≈ src/a.ts:10-15 (6 lines, 60 tokens, typescript)",
		]);
	});

	it("new location first: both files changed, only one side new: the new side first", () => {
		// a.ts held the block at the baseline (its copy in old.ts); the session edited a.ts elsewhere and wrote z.ts.
		const baseline = [group(at("src/a.ts", 10), at("src/old.ts", 1))];
		const { findings } = select(
			[group(at("src/a.ts", 10), at("src/old.ts", 1)), group(at("src/a.ts", 10), at("src/z.ts", 1))],
			["src/a.ts", "src/z.ts"],
			baseline,
		);
		expect(findings).toHaveLength(1);
		expect(findings[0]?.group.locations[0].path).toBe("src/z.ts");
	});

	it("one copy is one finding: two copies of existing code made at once each name the existing code, no copy is named twice", () => {
		// `cp src/m.ts src/a.ts && cp src/m.ts src/z.ts`: jscpd pairs a.ts with m.ts and with z.ts only.
		const groups = [group(at("src/a.ts", 1), at("src/m.ts", 1)), group(at("src/a.ts", 1), at("src/z.ts", 1))];
		const lines = select(groups, ["src/a.ts", "src/z.ts"]).findings.map(findingLine);
		expect(lines).toHaveLength(2);
		const newSides = lines.map((line) => /(src\/[a-z]+\.ts):1-6 ≈/.exec(line)?.[1]);
		expect(newSides.sort()).toEqual(["src/a.ts", "src/z.ts"]);
		for (const line of lines) expect(line).toContain("copies existing code");
		expect(lines.find((line) => line.includes("src/z.ts:1-6 ≈"))).toContain("≈ src/m.ts:1-6");
	});

	it("one copy is one finding: a near-copy spanning two exact fragments of the same two files is the one finding", () => {
		const span = (path: string, startLine: number, endLine: number): CloneLocation => ({
			path,
			startLine,
			endLine,
		});
		const near = { ...group(span("src/a.ts", 1, 22), span("src/copy.ts", 1, 22), "similar", 0.9), lines: 22 };
		const before = { ...group(span("src/a.ts", 1, 9), span("src/copy.ts", 1, 9)), hashes: [1, 2] };
		const after = { ...group(span("src/a.ts", 11, 22), span("src/copy.ts", 11, 22)), hashes: [3, 4] };
		const { findings } = select([before, after, near], ["src/copy.ts"]);
		expect(findings.map(findingLine)).toEqual([
			expect.stringContaining("src/copy.ts:1-22: near-copy of src/a.ts:1-22"),
		]);
		// Fragments copied from two different files are two copies: the near-copy does not absorb them.
		const elsewhere = { ...group(span("src/b.ts", 11, 22), span("src/copy.ts", 11, 22)), hashes: [5, 6] };
		const two = select([before, elsewhere, near], ["src/copy.ts"]).findings.map(findingLine);
		expect(two).toHaveLength(2);
		expect(two.join("\n")).not.toContain("near-copy");
	});

	it("one copy is one finding: a fragment copied from elsewhere in the same file is not absorbed by a near-copy that does not span it there", () => {
		const span = (path: string, startLine: number, endLine: number): CloneLocation => ({
			path,
			startLine,
			endLine,
		});
		// copy.ts:1-9 copies a.ts:1-9 and copy.ts:11-22 copies a.ts:40-51: two copies, whatever
		// near-copy pairs copy.ts:1-22 with a.ts:1-22 (it would name a.ts:40-51 nowhere).
		const near = { ...group(span("src/a.ts", 1, 22), span("src/copy.ts", 1, 22), "similar", 0.9), lines: 22 };
		const first = { ...group(span("src/a.ts", 1, 9), span("src/copy.ts", 1, 9)), hashes: [1, 2] };
		const second = { ...group(span("src/a.ts", 40, 51), span("src/copy.ts", 11, 22)), hashes: [3, 4] };
		const lines = select([first, second, near], ["src/copy.ts"]).findings.map(findingLine);
		expect(lines).toHaveLength(2);
		expect(lines.join("\n")).toContain("src/copy.ts:11-22 ≈ src/a.ts:40-51");
		expect(lines.join("\n")).not.toContain("near-copy");
	});

	it("one copy is one finding: exact fragments of one edited copy, one after the other in both files, are one finding; apart, swapped or from two files they are not", () => {
		const span = (path: string, startLine: number, endLine: number): CloneLocation => ({
			path,
			startLine,
			endLine,
		});
		const fragment = (fresh: CloneLocation, partner: CloneLocation, hash: number) => ({
			...group(partner, fresh),
			format: "python",
			hashes: [hash, hash + 1],
		});
		const lines = (groups: CloneGroup[]) => select(groups, ["app/copy.py"]).findings.map(findingLine);
		const edited = lines([
			fragment(span("app/copy.py", 1, 9), span("app/a.py", 1, 9), 1),
			fragment(span("app/copy.py", 11, 20), span("app/a.py", 11, 20), 3),
		]);
		expect(edited).toEqual([expect.stringContaining("app/copy.py:1-20 ≈ app/a.py:1-20")]);
		expect(edited[0]).toContain("120 tokens");
		const apart = [
			fragment(span("app/copy.py", 1, 9), span("app/a.py", 1, 9), 1),
			fragment(span("app/copy.py", 30, 40), span("app/a.py", 30, 40), 3),
		];
		expect(lines(apart)).toHaveLength(2);
		const swapped = [
			fragment(span("app/copy.py", 1, 9), span("app/a.py", 11, 19), 1),
			fragment(span("app/copy.py", 10, 18), span("app/a.py", 1, 9), 3),
		];
		expect(lines(swapped)).toHaveLength(2);
		const twoFiles = [
			fragment(span("app/copy.py", 1, 9), span("app/a.py", 1, 9), 1),
			fragment(span("app/copy.py", 10, 18), span("app/b.py", 10, 18), 3),
		];
		expect(lines(twoFiles)).toHaveLength(2);
		// Both files new this session: the edited copy between them is one finding too.
		const bothNew = select(
			[
				fragment(span("app/copy.py", 1, 9), span("app/a.py", 1, 9), 1),
				fragment(span("app/copy.py", 11, 20), span("app/a.py", 11, 20), 3),
			],
			["app/copy.py", "app/a.py"],
		).findings.map(findingLine);
		expect(bothNew).toEqual([expect.stringMatching(/app\/(a|copy)\.py:1-20 ≈ app\/(a|copy)\.py:1-20/)]);
	});
});
