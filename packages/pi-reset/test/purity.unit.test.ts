/**
 * The pure core (`src/core/`) imports nothing from Pi or the kit at runtime, directly or through
 * another module: the kit's purity check follows every relative import, so no file list is kept here.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { checkPureImports } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";

const core = join(import.meta.dirname, "..", "src", "core");

describe("pure core", () => {
	it("src/core/ and everything it imports load nothing from Pi, the kit (but its pure text entry) or Node at runtime", () => {
		const entries = readdirSync(core)
			.filter((file) => file.endsWith(".ts"))
			.map((file) => join(core, file));
		expect(entries.length).toBeGreaterThan(5);
		// The kit's `./text` entry has no runtime import at all (the kit tests that).
		const report = checkPureImports(entries, {
			allow: (specifier) => specifier === "@pi-lifecycle/lifecycle-kit/text",
		});
		expect(report.violations).toEqual([]);
		// Relative imports never lead out of the core into an adapter.
		expect(report.files.filter((file) => !file.startsWith(core))).toEqual([]);
	});
});
