import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_SCAN_PATHS, projectPathOf, tokenize, validateScanPaths } from "../src/adapters/paths.js";
import { scanArguments } from "../src/adapters/scan.js";
import { remove, tempDir, writeFiles } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => remove(...dirs.splice(0)));

function project() {
	const root = tempDir("pi-jscpd-paths-");
	const outside = tempDir("pi-jscpd-outside-");
	dirs.push(root, outside);
	writeFiles(root, { "src/a.ts": "export const a = 1;\n" });
	writeFiles(outside, { "secret.ts": "export const s = 1;\n" });
	return { root, outside };
}

describe("scan path rules", () => {
	it("accepts paths inside the project and returns canonical absolute paths", () => {
		const { root } = project();
		expect(validateScanPaths(root, ["src", "./src/a.ts", "src/"])).toEqual({
			ok: true,
			paths: [join(root, "src"), join(root, "src/a.ts")],
		});
	});

	it("rejects path escape with .. and absolute paths outside the root", () => {
		const { root, outside } = project();
		expect(validateScanPaths(root, ["../"]).ok).toBe(false);
		expect(validateScanPaths(root, [outside]).ok).toBe(false);
	});

	it("rejects a symlink that resolves outside the project root", () => {
		const { root, outside } = project();
		symlinkSync(outside, join(root, "link"));
		const result = validateScanPaths(root, ["link"]);
		expect(result).toMatchObject({ ok: false, error: expect.stringContaining("outside the project root") });
	});

	it("rejects option injection: anything starting with - is refused", () => {
		const { root } = project();
		for (const arg of ["--reporters", "-c", "--config=/etc/passwd", "-"]) {
			expect(validateScanPaths(root, [arg])).toMatchObject({
				ok: false,
				error: expect.stringContaining("option"),
			});
		}
	});

	it("rejects NUL bytes, empty and missing paths, and too many arguments", () => {
		const { root } = project();
		expect(validateScanPaths(root, ["src\0x"]).ok).toBe(false);
		expect(validateScanPaths(root, [""]).ok).toBe(false);
		expect(validateScanPaths(root, ["nope"]).ok).toBe(false);
		expect(
			validateScanPaths(
				root,
				Array.from({ length: MAX_SCAN_PATHS + 1 }, () => "src"),
			).ok,
		).toBe(false);
	});

	it("puts every path after -- so jscpd never reads one as an option", () => {
		const args = scanArguments(["/p/src"]);
		expect(args.indexOf("--")).toBe(args.length - 2);
		expect(args.slice(0, args.indexOf("--"))).not.toContain("/p/src");
	});

	it("canonicalises written paths and refuses ones outside the project", () => {
		const { root, outside } = project();
		symlinkSync(outside, join(root, "link"));
		expect(projectPathOf(root, root, "src/a.ts")).toBe("src/a.ts");
		expect(projectPathOf(root, root, join(root, "src/new/file.ts"))).toBe("src/new/file.ts");
		expect(projectPathOf(root, root, "link/secret.ts")).toBeUndefined();
		expect(projectPathOf(root, root, "../x.ts")).toBeUndefined();
	});

	it("tokenizes quoted arguments", () => {
		expect(tokenize(`scan "my dir" 'b c' d`)).toEqual(["scan", "my dir", "b c", "d"]);
	});
});
