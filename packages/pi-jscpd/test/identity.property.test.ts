/**
 * Clone identity does not depend on jscpd's pairing (property tests on a model of jscpd 5.3.2's
 * report: every copy of a block is paired with the alphabetically first copy).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { selectFindings } from "../src/core/compare.js";
import { indexGroups, rebaseIndex } from "../src/core/identity.js";
import { type CloneGroup, parseReport } from "../src/core/report.js";

const ROOT = "/p";

/** A block of code: `lines` distinct statements. */
function block(name: string, lines = 8): string {
	return Array.from(
		{ length: lines },
		(_, i) => `\tconst ${name}_${i} = compute("${name}", ${i}) + offset;`,
	).join("\n");
}

/** One copy of a block in a file. */
interface Copy {
	readonly path: string;
	readonly start: number;
	readonly text: string;
}

/** jscpd 5.3.2's pairing: per identical text, every copy with the alphabetically first one. */
function jscpdReport(copies: readonly Copy[], order: (n: number) => number[] = (n) => [...Array(n).keys()]) {
	const byText = new Map<string, Copy[]>();
	for (const copy of copies) byText.set(copy.text, [...(byText.get(copy.text) ?? []), copy]);
	const duplicates: unknown[] = [];
	for (const [text, group] of byText) {
		const sorted = [...group].sort((a, b) => a.path.localeCompare(b.path) || a.start - b.start);
		const [first, ...rest] = sorted;
		if (!first) continue;
		const side = (c: Copy) => ({
			name: `${ROOT}/${c.path}`,
			start: c.start,
			end: c.start + text.split("\n").length - 1,
		});
		for (const other of rest)
			duplicates.push({
				format: "typescript",
				lines: 8,
				tokens: 80,
				fragment: text,
				firstFile: side(first),
				secondFile: side(other),
			});
	}
	const permuted = order(duplicates.length).map((i) => duplicates[i]);
	const parsed = parseReport(ROOT, JSON.stringify({ duplicates: permuted }));
	if (!parsed.ok) throw new Error(parsed.error);
	return [...parsed.report.groups] as CloneGroup[];
}

function findings(
	before: readonly Copy[],
	after: readonly Copy[],
	changed: readonly string[],
	order?: (n: number) => number[],
) {
	return selectFindings({
		groups: jscpdReport(after, order),
		baseline: indexGroups(jscpdReport(before)),
		changed: new Set(changed),
		acknowledged: () => false,
		max: 20,
	}).findings;
}

const names = fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 3, maxLength: 7 });

describe("clone identity is independent of jscpd's pairing", () => {
	it("the refactor of issue 17: removing the first copy and touching b.ts reports nothing (no false b.ts ≈ c.ts)", () => {
		const f = block("shared");
		const before = ["a.ts", "b.ts", "c.ts"].map((path) => ({ path, start: 3, text: f }));
		const after = before.filter((c) => c.path !== "a.ts");
		expect(findings(before, after, ["a.ts", "b.ts"])).toEqual([]);
	});

	it("stable under removal: removing any copies of a block never reports the rest", () => {
		fc.assert(
			fc.property(names, fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }), (files, keep) => {
				const before = files.map((name) => ({ path: `${name}.ts`, start: 1, text: block("x") }));
				const after = before.filter((_, i) => keep[i]);
				expect(
					findings(
						before,
						after,
						files.map((n) => `${n}.ts`),
					),
				).toEqual([]);
			}),
		);
	});

	it("stable under renaming: renamed or moved files with old copies report nothing", () => {
		fc.assert(
			fc.property(names, fc.nat(), (files, which) => {
				const before = files.map((name) => ({ path: `src/${name}.ts`, start: 5, text: block("y") }));
				const i = which % before.length;
				const after = before.map((c, j) =>
					j === i ? { ...c, path: `lib/zz-${files[j]}.ts`, start: 40 } : c,
				);
				const changed = [before[i]?.path ?? "", after[i]?.path ?? ""];
				expect(findings(before, after, changed)).toEqual([]);
			}),
		);
	});

	it("stable under reordering and line moves: report order and start lines do not matter", () => {
		fc.assert(
			fc.property(
				names,
				fc.array(fc.nat(200), { minLength: 7, maxLength: 7 }),
				fc.nat(),
				(files, starts, seed) => {
					const before = files.map((name) => ({ path: `${name}.ts`, start: 1, text: block("z") }));
					const after = before.map((c, i) => ({ ...c, start: 1 + (starts[i] ?? 0) }));
					const shuffle = (n: number) =>
						[...Array(n).keys()].sort((a, b) => ((a * 7919 + seed) % 101) - ((b * 7919 + seed) % 101));
					expect(
						findings(
							before,
							after,
							files.map((n) => `${n}.ts`),
							shuffle,
						),
					).toEqual([]);
				},
			),
		);
	});

	it("a genuinely new copy is reported once, at its own location, whichever copy it pairs with", () => {
		fc.assert(
			fc.property(names, fc.stringMatching(/^[a-z]{1,6}$/), (files, extra) => {
				const target = `new/${extra}.ts`;
				const before = files.map((name) => ({ path: `${name}.ts`, start: 1, text: block("w") }));
				const after = [...before, { path: target, start: 10, text: block("w") }];
				const found = findings(before, after, [target]);
				expect(found).toHaveLength(1);
				expect(found[0]?.group.locations.map((l) => l.path)).toContain(target);
				expect(found[0]?.label).toBe("matches-existing");
				// Removing the alphabetically first old copy re-pairs it; its identity stays the same.
				const repaired = findings(
					before,
					after.filter((c) => c.path !== after.map((a) => a.path).sort()[0] || c.path === target),
					[target],
				);
				if (repaired.length === 1) expect(repaired[0]?.identity).toBe(found[0]?.identity);
			}),
		);
	});

	it("edit inside an old duplicated block: the still-duplicated remainder is not new", () => {
		const f = block("old", 12);
		const before = ["a.ts", "b.ts"].map((path) => ({ path, start: 1, text: f }));
		const lines = f.split("\n");
		// The agent edits line 7 of a.ts: jscpd now reports the first six lines as a (shorter) clone.
		const after = ["a.ts", "b.ts"].map((path) => ({ path, start: 1, text: lines.slice(0, 6).join("\n") }));
		expect(findings(before, after, ["a.ts"])).toEqual([]);
	});

	it("a new copy written next to an old one in the same two files is reported", () => {
		const before = ["a.ts", "b.ts"].map((path) => ({ path, start: 1, text: block("old") }));
		const after = [
			...before,
			{ path: "a.ts", start: 30, text: block("fresh") },
			{ path: "b.ts", start: 30, text: block("fresh") },
		];
		const found = findings(before, after, ["a.ts", "b.ts"]);
		expect(found).toHaveLength(1);
		expect(found[0]?.label).toBe("new");
		expect(found[0]?.group.locations[0].startLine).toBe(30);
	});

	it("a second copy in the same file has an identity of its own: acknowledging the first does not hide it", () => {
		const f = block("twice");
		const before = [{ path: "a.ts", start: 1, text: f }];
		const once = [...before, { path: "b.ts", start: 1, text: f }];
		const first = findings(before, once, ["b.ts"]);
		expect(first).toHaveLength(1);
		const acknowledged = new Set(first.map((finding) => finding.identity));
		const twice = [...once, { path: "b.ts", start: 40, text: f }];
		const found = selectFindings({
			groups: jscpdReport(twice),
			baseline: indexGroups(jscpdReport(before)),
			changed: new Set(["b.ts"]),
			acknowledged: (identity) => acknowledged.has(identity),
			max: 20,
		});
		// One finding for the file's two copies (an identity counts copies, it does not rank them).
		expect(found.acknowledged).toBe(0);
		expect(found.findings).toHaveLength(1);
		expect(found.findings[0]?.copies).toEqual([{ path: "b.ts", starts: [1, 40], copies: 2, added: 2 }]);
	});

	it("copy counts depend only on the copies in that file: removing copies elsewhere keeps every identity", () => {
		fc.assert(
			fc.property(names, fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }), (files, keep) => {
				const f = block("rank");
				const others = files.map((name) => ({ path: `src/${name}.ts`, start: 1, text: f }));
				const mine = [10, 50].map((start) => ({ path: "new/mine.ts", start, text: f }));
				const all = findings(others.slice(0, 1), [...others, ...mine], ["new/mine.ts"]);
				const fewer = findings(
					others.slice(0, 1),
					[...others.filter((_, i) => i === 0 || keep[i]), ...mine],
					["new/mine.ts"],
				);
				const ids = (list: typeof all) => list.map((finding) => finding.identity).sort();
				// mine.ts's two copies are one finding that counts them (copy-keys.ts).
				expect(ids(all)).toHaveLength(1);
				expect(ids(all)[0]).toMatch(/#2$/);
				expect(ids(fewer)).toEqual(ids(all));
			}),
		);
	});

	it("a change before the baseline was captured is attributed to the session (rebase from the original content)", () => {
		const f = block("early");
		const before = [{ path: "a.ts", start: 1, text: f }];
		const after = [...before, { path: "b.ts", start: 1, text: f }];
		// The baseline scan already saw b.ts's copy; b.ts was empty before the write.
		const baseline = rebaseIndex(indexGroups(jscpdReport(after)), new Map([["b.ts", ""]]));
		const found = selectFindings({
			groups: jscpdReport(after),
			baseline,
			changed: new Set(["b.ts"]),
			acknowledged: () => false,
			max: 5,
		}).findings;
		expect(found).toHaveLength(1);
		// A file that already held the copy before its early write keeps it as old code.
		const kept = rebaseIndex(indexGroups(jscpdReport(after)), new Map([["b.ts", f]]));
		expect(
			selectFindings({
				groups: jscpdReport(after),
				baseline: kept,
				changed: new Set(["b.ts"]),
				acknowledged: () => false,
				max: 5,
			}).findings,
		).toEqual([]);
	});
});
