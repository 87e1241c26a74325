import { describe, expect, it } from "vitest";
import { isGeneratedFile } from "../src/core/generated-files.js";

describe("generated files", () => {
	it("package managers' lockfiles are generated, in any folder; code and other data files are not", () => {
		for (const path of ["pnpm-lock.yaml", "web/package-lock.json", "a/b/yarn.lock", "Cargo.lock", "go.sum"])
			expect(isGeneratedFile(path), path).toBe(true);
		for (const path of [
			"src/lock.ts",
			"pnpm-lock.yaml.ts",
			"config/package.json",
			"my-package-lock.json",
			"docs/lock.yaml",
		])
			expect(isGeneratedFile(path), path).toBe(false);
	});
});
