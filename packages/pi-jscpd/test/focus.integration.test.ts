/**
 * Checks that cost what changed (issue 31): a check scans the changed files and their partner files
 * (the project's fingerprint index), and finds what a whole-project scan finds. Each case runs the
 * real pinned jscpd twice on the same tree, whole and focused, and compares the findings.
 */
import { renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FingerprintIndexBuilder, fingerprintsOf, partnersOf } from "../src/core/fingerprints.js";
import { focusTooWide } from "../src/core/focus.js";
import { type Detection, shapeOf } from "../src/core/kinds.js";
import { findingLine } from "../src/core/presentation.js";
import {
	duplicatedFunction,
	INVOICE,
	NEAR,
	RENAMED,
	remove,
	tempDir,
	wholeAndFocusedFinder,
	writeFiles,
} from "./helpers.js";

const DEFAULT: Detection = { kinds: ["exact", "renamed", "similar"], similarity: 0.7 };

/** A file of distinct code: a lookup table and a small function shaped by `i`. */
function unrelated(i: number): string {
	const keys = Array.from({ length: 6 }, (_, k) => `\tkey${i}_${k}: "${(i * 31 + k * 7).toString(36)}",`);
	return `export const table${i} = {\n${keys.join("\n")}\n};\nexport const size${i} = ${i} * ${i + 1};\n`;
}

const dirs: string[] = [];
afterEach(() => remove(...dirs.splice(0)));

async function setup(files: Record<string, string>, detection: Detection = DEFAULT) {
	const root = tempDir("pi-jscpd-focus-");
	dirs.push(root);
	const all: Record<string, string> = {};
	for (let i = 0; i < 40; i++) all[`src/lib/u${i}.ts`] = unrelated(i);
	writeFiles(root, { ...all, ...files });
	const find = await wholeAndFocusedFinder(root, detection);
	/** Findings of the whole scan and of the focused one, as text; and what the focused one read. */
	const both = async (changed: string[]) => {
		const whole = await find(changed, false);
		const focused = await find(changed, true);
		return {
			whole: whole.current.map(findingLine),
			focused: focused.current.map(findingLine),
			identities: [whole.current.map((f) => f.identity), focused.current.map((f) => f.identity)],
			scanned: focused.scanned,
			full: focused.full,
		};
	};
	return { root, both };
}

describe("a check scans the changed files and their partners, and finds what a whole scan finds", () => {
	it("checks that cost what changed: an exact copy of existing code is found reading 2 of 42 files", async () => {
		const { root, both } = await setup({ "src/invoice.ts": duplicatedFunction("invoiceTotals") });
		writeFiles(root, { "src/copy.ts": duplicatedFunction("copyTotals") });
		const result = await both(["src/copy.ts"]);
		expect(result.whole).toHaveLength(1);
		expect(result.focused).toEqual(result.whole);
		expect(result.identities[1]).toEqual(result.identities[0]);
		expect(result.full).toBeUndefined();
		expect(result.scanned).toBeLessThanOrEqual(3);
		expect(result.focused[0]).toContain("src/copy.ts");
	});

	it("checks that cost what changed: a renamed copy and a near-copy are found as by a whole scan", async () => {
		const { root, both } = await setup({ "src/invoice.ts": INVOICE });
		writeFiles(root, { "src/orders.ts": RENAMED, "src/totals.ts": NEAR });
		const result = await both(["src/orders.ts", "src/totals.ts"]);
		expect(result.whole.length).toBeGreaterThanOrEqual(2);
		expect(result.focused).toEqual(result.whole);
		expect(result.scanned).toBeLessThan(10);
	});

	it("checks that cost what changed: the changed files are compared with each other too", async () => {
		const { root, both } = await setup({});
		writeFiles(root, { "src/a.ts": duplicatedFunction("alpha"), "src/b.ts": duplicatedFunction("beta") });
		const result = await both(["src/a.ts", "src/b.ts"]);
		expect(result.whole).toHaveLength(1);
		expect(result.focused).toEqual(result.whole);
	});

	it("checks that cost what changed: a moved file and an edit beside an old copy are not new", async () => {
		const { root, both } = await setup({
			"src/invoice.ts": duplicatedFunction("invoiceTotals"),
			"src/old-copy.ts": `${duplicatedFunction("oldTotals")}export const x = 1;\n`,
		});
		renameSync(join(root, "src/invoice.ts"), join(root, "src/billing.ts"));
		writeFiles(root, { "src/old-copy.ts": `${duplicatedFunction("oldTotals")}export const x = 2;\n` });
		const result = await both(["src/invoice.ts", "src/billing.ts", "src/old-copy.ts"]);
		expect(result.whole).toEqual([]);
		expect(result.focused).toEqual([]);
	});

	it("checks that cost what changed: a deleted changed file is not scanned and finds nothing", async () => {
		const { root, both } = await setup({ "src/invoice.ts": duplicatedFunction("invoiceTotals") });
		rmSync(join(root, "src/invoice.ts"));
		const result = await both(["src/invoice.ts"]);
		expect(result.focused).toEqual([]);
		expect(result.scanned).toBe(0);
	});
});

describe("the fingerprint index (pure)", () => {
	it("a renamed copy shares shape pairs with its original, not with unrelated code", () => {
		const families = { exact: false, shapes: true };
		const builder = new FingerprintIndexBuilder(families);
		builder.add("src/invoice.ts", fingerprintsOf(INVOICE, families, shapeOf));
		for (let i = 0; i < 20; i++) builder.add(`src/u${i}.ts`, fingerprintsOf(unrelated(i), families, shapeOf));
		const index = builder.build();
		const partners = partnersOf(
			index,
			fingerprintsOf(RENAMED, families, shapeOf),
			new Set(["src/orders.ts"]),
		);
		expect(partners[0]).toBe("src/invoice.ts");
	});

	it("a check reads the whole project only when more than half of it is related", () => {
		expect(focusTooWide(10, 100)).toBeUndefined();
		expect(focusTooWide(60, 100)).toMatch(/more than half the project/);
	});
});
