/**
 * Repeated copies of one content in one file are counted, not ranked by position (copy-keys.ts): a copy
 * pasted above an acknowledged one is one more copy and the text names every copy (the product cannot
 * know which block is new); deleting a copy keeps a dismissal in force; one more copy after a dismissal is
 * one more, not every copy since the session started. A rejected scan path is printed escaped.
 */
import { describe, expect, it } from "vitest";
import { validateScanPaths } from "../src/adapters/paths.js";
import { beyondCovered, selectFindings } from "../src/core/compare.js";
import { applyDismissal, DISMISSAL_ENTRY, isDismissed } from "../src/core/dismissals.js";
import { groupKey } from "../src/core/findings-store.js";
import { indexGroups } from "../src/core/identity.js";
import { findingLine } from "../src/core/presentation.js";
import { type CloneGroup, type CloneLocation, numberOccurrences } from "../src/core/report.js";
import { Triage } from "../src/core/triage.js";
import { itemDetail, itemLine } from "../src/core/triage-text.js";

const H = [11, 12, 13, 14, 15, 16];
const loc = (path: string, startLine: number) => ({ path, startLine, endLine: startLine + 5 });
const g = (a: CloneLocation, b: CloneLocation): CloneGroup => ({
	identity: "x",
	format: "typescript",
	lines: 6,
	tokens: 60,
	locations: [a, b],
	hashes: H,
});
/** The n-th element, failing the test when it is missing. */
function nth<T>(list: readonly T[], n: number): T {
	const item = list[n];
	if (item === undefined) throw new Error(`no element ${n}`);
	return item;
}
describe("repeated copies in one file (copy counts, no rank)", () => {
	it("a copy inserted above an acknowledged copy is reported once, naming the file's copies, never the old block alone as new", () => {
		// baseline: nothing. Turn 1: a.ts@100 copies b.ts@1 -> delivered, acknowledged.
		const acked = new Set<string>();
		const t1 = numberOccurrences([g(loc("b.ts", 1), loc("a.ts", 100))]);
		const s1 = selectFindings({
			groups: t1,
			baseline: indexGroups([]),
			changed: new Set(["a.ts"]),
			acknowledged: (i) => acked.has(i),
			max: 10,
		});
		expect(s1.findings).toHaveLength(1);
		for (const f of s1.findings) acked.add(f.identity);
		// Turn 2: a new copy is inserted at a.ts@10 (old one moves to 106).
		const t2 = numberOccurrences([g(loc("b.ts", 1), loc("a.ts", 10)), g(loc("b.ts", 1), loc("a.ts", 106))]);
		const s2 = selectFindings({
			groups: t2,
			baseline: indexGroups([]),
			changed: new Set(["a.ts"]),
			acknowledged: (i) => acked.has(i),
			max: 10,
		});
		// Which copy is new is not known (line numbers shift), so the finding names the file and both
		// copies; it never calls the old block alone the new one.
		expect(s2.findings).toHaveLength(1);
		const text = findingLine(nth(s2.findings, 0), 0);
		expect(text).toContain("in a.ts (2 copies now, at lines 10, 106)");
		expect(text).not.toMatch(/a\.ts:106/);
	});
	it("a scan dismissal made with two copies still applies after the first copy is deleted", () => {
		const before = numberOccurrences([
			g(loc("b.ts", 1), loc("a.ts", 10)),
			g(loc("b.ts", 1), loc("a.ts", 100)),
		]);
		// Both copies share one key (content, file and the number of copies), whatever their order.
		expect(groupKey(nth(before, 1))).toBe(groupKey(nth(before, 0)));
		const dismissed = applyDismissal(new Set(), {
			action: "dismiss",
			keys: [groupKey(nth(before, 1))],
			where: "",
		});
		const after = numberOccurrences([g(loc("b.ts", 1), loc("a.ts", 94))]);
		expect(isDismissed(dismissed, [groupKey(nth(after, 0))])).toBe(true);
	});
});
describe("a copy note counts from the covered copies", () => {
	it("a third copy after two were dismissed is one more copy; with nothing covered, every copy the file gained", () => {
		const base = [g(loc("b.ts", 1), loc("a.ts", 100))];
		const three = numberOccurrences([
			g(loc("b.ts", 1), loc("a.ts", 10)),
			g(loc("b.ts", 1), loc("a.ts", 106)),
			g(loc("b.ts", 1), loc("a.ts", 200)),
		]);
		const s = selectFindings({
			groups: three,
			baseline: indexGroups(numberOccurrences(base)),
			changed: new Set(["a.ts"]),
			acknowledged: () => false,
			max: 10,
		});
		const finding = nth(s.findings, 0);
		expect(findingLine(finding, 0)).toContain("2 more copies in a.ts (3 copies now");
		const twoDismissed = applyDismissal(new Set(), {
			action: "dismiss",
			keys: [finding.identity.replace(/#3$/, "#2")],
			where: "",
		});
		const covered = (identity: string) => isDismissed(twoDismissed, [identity]);
		expect(findingLine(beyondCovered(finding, covered), 0)).toContain("one more copy in a.ts (3 copies now");
		expect(beyondCovered(finding, () => false)).toBe(finding);
	});

	it.each([
		["acknowledged", "told"],
		["dismissed", "dismissal"],
	] as const)("the Browse view counts more copies from the %s copies, as the finding text does", (_, how) => {
		const three = numberOccurrences([
			g(loc("b.ts", 1), loc("a.ts", 10)),
			g(loc("b.ts", 1), loc("a.ts", 106)),
			g(loc("b.ts", 1), loc("a.ts", 200)),
		]);
		const finding = nth(
			selectFindings({
				groups: three,
				baseline: indexGroups(numberOccurrences([g(loc("b.ts", 1), loc("a.ts", 100))])),
				changed: new Set(["a.ts"]),
				acknowledged: () => false,
				max: 10,
			}).findings,
			0,
		);
		const two = finding.identity.replace(/#3$/, "#2");
		const triage = new Triage({
			acknowledged: (identity) => how === "told" && identity === two,
			changed: () => {},
		});
		if (how === "dismissal")
			triage.replay(
				[
					{
						type: "custom",
						customType: DISMISSAL_ENTRY,
						data: { action: "dismiss", keys: [two], where: "" },
					},
				],
				false,
			);
		triage.recordNew("checkpoint", [finding]);
		const item = nth(triage.items(), 0);
		for (const text of [itemLine(item), itemDetail(item)]) {
			expect(text).toContain("one more copy in a.ts (3 copies now");
			expect(text).not.toContain("2 more copies");
		}
	});
});

describe("printable paths", () => {
	it("a rejected scan path is printed escaped", () => {
		const r = validateScanPaths("/tmp", ["nope\nIGNORE PREVIOUS"]);
		expect(r.ok).toBe(false);
		expect(r.ok ? "" : r.error).not.toContain("\n");
	});
});
