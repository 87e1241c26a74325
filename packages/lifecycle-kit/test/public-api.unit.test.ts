/**
 * The public API is what the two entry points export (README "Public API and semver policy"). Every
 * export is documented in the README and used by the tests; anything else is internal.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import * as main from "../src/index.js";
import * as testing from "../src/testing/index.js";
import { checkPureImports } from "../src/testing/purity.js";
import * as text from "../src/text.js";

const root = join(import.meta.dirname, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const tests = readdirSync(join(root, "test"))
	.filter((file) => file.endsWith(".ts") && file !== "public-api.unit.test.ts")
	.map((file) => readFileSync(join(root, "test", file), "utf8"))
	.join("\n");

/** Every name an entry point exports, types included, read from its export lists. */
function exportedNames(entry: string): string[] {
	const source = readFileSync(join(root, entry), "utf8");
	const lists = [...source.matchAll(/export (?:type )?\{([^}]*)\}/g)].map((match) => match[1] ?? "");
	return lists
		.flatMap((list) => list.split(","))
		.map((name) => name.replace(/^\s*type\s+/, "").trim())
		.filter(Boolean);
}

describe.each([
	["@pi-lifecycle/lifecycle-kit", "src/index.ts", main, 10],
	["@pi-lifecycle/lifecycle-kit/testing", "src/testing/index.ts", testing, 10],
	["@pi-lifecycle/lifecycle-kit/text", "src/text.ts", text, 4],
] as const)("public API of %s", (_entry, file, module, fewest) => {
	const names = exportedNames(file);

	it("every export, types included, is documented in the README", () => {
		expect(names.length).toBeGreaterThanOrEqual(fewest);
		expect(names.filter((name) => !readme.includes(`\`${name}`))).toEqual([]);
	});

	it("every runtime export exists and is used by the tests", () => {
		const runtime = Object.keys(module);
		expect(runtime.every((name) => names.includes(name))).toBe(true);
		expect(runtime.filter((name) => !new RegExp(`\\b${name}\\b`).test(tests))).toEqual([]);
	});
});

describe("the text entry", () => {
	it("is pure: a package's pure core may import it (no runtime import at all)", () => {
		const report = checkPureImports([join(root, "src", "text.ts")]);
		expect(report.violations).toEqual([]);
	});
});

describe("internal helpers", () => {
	it("the dispatcher's decision step and identity's scope comparison are not exported", () => {
		expect(Object.keys(main)).not.toContain("selectIntent");
		expect(Object.keys(main)).not.toContain("isSameScope");
	});
});
