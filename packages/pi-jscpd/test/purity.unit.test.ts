/**
 * The pure core: `src/core/` and every module it loads at runtime (found by following relative
 * imports, not from a file list) import nothing from Pi, the kit, jscpd or Node's I/O.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { checkPureImports } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";

const core = join(import.meta.dirname, "..", "src", "core");

/**
 * Pure computations the core may use: path arithmetic (`relative`, `join`; no file system) for
 * project-relative paths, hashing for clone identities, and the kit's text entry (text bounds
 * that never split a character; it has no runtime import at all).
 */
const PURE_IMPORTS: ReadonlySet<string> = new Set([
	"node:path",
	"node:crypto",
	"@pi-lifecycle/lifecycle-kit/text",
]);

describe("pure core", () => {
	it("pure core modules do not import Pi, the kit or Node I/O, and never reach into an adapter", () => {
		const entries = readdirSync(core)
			.filter((file) => file.endsWith(".ts"))
			.map((file) => join(core, file));
		expect(entries.length).toBeGreaterThan(10);
		const report = checkPureImports(entries, { allow: (specifier) => PURE_IMPORTS.has(specifier) });
		expect(report.violations).toEqual([]);
		expect(report.files.filter((file) => !file.startsWith(core))).toEqual([]);
	});
});
