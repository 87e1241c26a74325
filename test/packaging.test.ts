import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tarballFiles, tarballPath } from "./support/packed.js";
import { unresolvedReferences } from "./support/tarball-refs.js";

const names = ["lifecycle-kit", "pi-reset", "pi-goal", "pi-jscpd"] as const;
const hostPackages = [
	"@earendil-works/pi-ai",
	"@earendil-works/pi-coding-agent",
	"@earendil-works/pi-tui",
	"typebox",
];

function manifest(tarball: string): Record<string, unknown> & {
	dependencies?: Record<string, string>;
	peerDependencies?: Record<string, string>;
	pi?: { extensions?: string[] };
	keywords?: string[];
} {
	return JSON.parse(execFileSync("tar", ["xzOf", tarball, "package/package.json"], { encoding: "utf8" }));
}

const unpacked = mkdtempSync(join(tmpdir(), "pi-lifecycle-unpacked-"));
afterAll(() => rmSync(unpacked, { recursive: true, force: true }));

describe.each(names)("packed %s", (name) => {
	const tarball = tarballPath(name);
	const files = tarballFiles(tarball);
	const pkg = manifest(tarball);

	it("has no reference that does not resolve inside the tarball (relative imports, bare imports, exports/types/main/pi targets)", () => {
		const dir = join(unpacked, name);
		mkdirSync(dir, { recursive: true });
		execFileSync("tar", ["xzf", tarball, "-C", dir, "--strip-components=1"]);
		expect(unresolvedReferences(dir)).toEqual([]);
	});

	it("ships no development-only export condition (the workspace's source condition points at unshipped files)", () => {
		expect(JSON.stringify(pkg.exports ?? {})).not.toContain("@pi-lifecycle/source");
	});

	it("ships built JS with declarations, README, LICENSE and CHANGELOG, and no sources or tests", () => {
		for (const file of [
			"package.json",
			"README.md",
			"LICENSE",
			"CHANGELOG.md",
			"dist/index.js",
			"dist/index.d.ts",
		]) {
			expect(files).toContain(file);
		}
		expect(files.filter((file) => file.startsWith("src/") || file.startsWith("test/"))).toEqual([]);
	});

	it("lists host packages only as peers with a * range, never as dependencies", () => {
		for (const host of hostPackages) {
			expect(pkg.dependencies?.[host]).toBeUndefined();
		}
		for (const [dep, range] of Object.entries(pkg.peerDependencies ?? {})) {
			expect(hostPackages).toContain(dep);
			expect(range).toBe("*");
		}
	});

	it("has no workspace: protocol left in its dependencies", () => {
		for (const range of Object.values(pkg.dependencies ?? {})) expect(range).not.toMatch(/^workspace:/);
	});

	if (name !== "lifecycle-kit") {
		it("is a Pi package whose manifest points at built JS inside the tarball", () => {
			expect(pkg.keywords).toContain("pi-package");
			expect(pkg.pi?.extensions).toEqual(["./dist/index.js"]);
			expect(files).toContain("dist/index.js");
		});

		it("depends on lifecycle-kit with a normal semver range", () => {
			expect(pkg.dependencies?.["@pi-lifecycle/lifecycle-kit"]).toMatch(/^\^?\d+\.\d+\.\d+/);
		});
	} else {
		it("exports the testing harness subpath as built JS", () => {
			expect(files).toContain("dist/testing/index.js");
			expect(files).toContain("dist/testing/index.d.ts");
		});

		it("exports the pure text subpath as built JS", () => {
			expect(files).toContain("dist/text.js");
			expect(files).toContain("dist/text.d.ts");
		});
	}
});

describe("the tarball reference check", () => {
	it("reports a relative import, an exports target and a bare import that do not resolve", () => {
		const dir = mkdtempSync(join(tmpdir(), "pi-lifecycle-refs-"));
		try {
			mkdirSync(join(dir, "dist"));
			mkdirSync(join(dir, "examples"));
			writeFileSync(
				join(dir, "package.json"),
				JSON.stringify({
					name: "x",
					exports: { ".": { source: "./src/index.ts", import: "./dist/index.js" } },
					peerDependencies: { typebox: "*" },
				}),
			);
			writeFileSync(
				join(dir, "dist", "index.js"),
				'import "node:fs";\nimport { a } from "./a.js";\nimport "typebox";\n',
			);
			writeFileSync(join(dir, "dist", "a.js"), 'export const a = await import("./missing.js");\n');
			writeFileSync(join(dir, "dist", "index.d.ts"), 'export * from "./a.js";\nexport * from "./gone.js";\n');
			writeFileSync(
				join(dir, "examples", "e.ts"),
				'import { x } from "../src/index.js";\nimport "left-pad";\n',
			);
			expect(unresolvedReferences(dir).sort()).toEqual([
				"dist/a.js imports ./missing.js: not in the tarball",
				"dist/index.d.ts imports ./gone.js: not in the tarball",
				"examples/e.ts imports ../src/index.js: not in the tarball",
				"examples/e.ts imports left-pad: not a dependency or peer of x",
				"package.json exports -> ./src/index.ts: not in the tarball",
			]);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
