import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const PURE = ["digest.ts", "handoff.ts", "meter.ts", "reducer.ts", "state.ts", "texts.ts", "window.ts"];

describe("pure core", () => {
	it.each(PURE)("%s imports nothing from Pi or the kit at runtime", (file) => {
		const source = readFileSync(join(import.meta.dirname, "..", "src", file), "utf8");
		const runtimeImports = [...source.matchAll(/^import\s+(?!type\b)[^;]*from\s+"([^"]+)"/gm)].map(
			(m) => m[1],
		);
		expect(runtimeImports.filter((spec) => !spec?.startsWith("./"))).toEqual([]);
	});
});
