import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkPureImports, runtimeImports } from "../src/testing/purity.js";

const fixtures = join(import.meta.dirname, "fixtures", "purity");

describe("checkPureImports follows relative imports", () => {
	it("a forbidden import two relative hops away is found, with the chain that reached it", () => {
		const report = checkPureImports([join(fixtures, "core", "entry.ts")]);
		expect(report.files.map((file) => file.slice(fixtures.length + 1))).toEqual([
			"core/entry.ts",
			"core/helper.ts",
			"deep.ts",
		]);
		expect(report.violations.map((v) => v.specifier)).toEqual(["node:fs"]);
		expect(report.violations[0]?.chain.map((file) => file.split("/").at(-1))).toEqual([
			"entry.ts",
			"helper.ts",
			"deep.ts",
		]);
	});

	it("allow accepts named specifiers", () => {
		const report = checkPureImports([join(fixtures, "core", "entry.ts")], {
			allow: (specifier) => specifier.startsWith("node:"),
		});
		expect(report.violations).toEqual([]);
	});

	it("a module with only relative runtime imports and type imports is pure", () => {
		expect(checkPureImports([join(fixtures, "clean.ts")]).violations).toEqual([]);
	});

	it("an unresolvable relative import is a violation, not a silent stop", () => {
		const report = checkPureImports([join(fixtures, "broken.ts")]);
		expect(report.violations.map((v) => v.specifier)).toEqual(["./missing.js"]);
	});
});

describe("runtimeImports", () => {
	it("reads import, export-from, side-effect and dynamic imports; skips type-only and comments", () => {
		const source = [
			`import type { A } from "type-only";`,
			`import { type B, c } from "mixed";`,
			`import * as d from "star";`,
			`import "side-effect";`,
			`export { e } from "re-export";`,
			`export type { F } from "type-re-export";`,
			`// import { g } from "commented";`,
			`/* import { h } from "block-commented"; */`,
			`const i = await import("dynamic");`,
			`const text = "x from 'not-an-import'";`,
		].join("\n");
		expect(runtimeImports(source).sort()).toEqual(["dynamic", "mixed", "re-export", "side-effect", "star"]);
	});
});
