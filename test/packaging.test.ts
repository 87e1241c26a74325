import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { tarballFiles, tarballPath } from "./support/packed.js";

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

describe.each(names)("packed %s", (name) => {
	const tarball = tarballPath(name);
	const files = tarballFiles(tarball);
	const pkg = manifest(tarball);

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
	}
});
