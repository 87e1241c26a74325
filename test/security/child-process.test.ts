/**
 * Issue 14: every child process goes through the kit's audited helper. No file under
 * packages/<name>/src imports node:child_process except the helper's own modules.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
// The helper's own modules: the runner, its parent-death watchdog, and its memory sampler (`ps` off Linux).
const ALLOWED = [
	"packages/lifecycle-kit/src/process-memory.ts",
	"packages/lifecycle-kit/src/process-watchdog.ts",
	"packages/lifecycle-kit/src/process.ts",
];
/** An import or require of child_process, with or without the `node:` prefix. */
const IMPORTS_CHILD_PROCESS =
	/(from\s*|import\s*\(\s*|require\s*\(\s*|import\s+)["'](node:)?child_process["']/;

function sourceFiles(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) out.push(...sourceFiles(path));
		else if (/\.(ts|mts|cts|js|mjs)$/.test(entry.name)) out.push(path);
	}
	return out;
}

describe("security: one audited child-process helper", () => {
	it("no file under packages/*/src imports node:child_process other than the kit's process helper", () => {
		const files = readdirSync(join(repo, "packages")).flatMap((pkg) => {
			const src = join(repo, "packages", pkg, "src");
			return statSync(src, { throwIfNoEntry: false })?.isDirectory() ? sourceFiles(src) : [];
		});
		expect(files.length).toBeGreaterThan(50);
		const importing = files
			.filter((file) => IMPORTS_CHILD_PROCESS.test(readFileSync(file, "utf8")))
			.map((file) => relative(repo, file).split("\\").join("/"));
		expect(importing.sort()).toEqual(ALLOWED);
	});

	it("the import check catches every spelling (it can fail)", () => {
		for (const sample of [
			'import { spawn } from "node:child_process";',
			"import { execFile } from 'child_process';",
			'import * as cp from "node:child_process";',
			'import "child_process";',
			'const cp = await import("node:child_process");',
			'const cp = require("child_process");',
		])
			expect(IMPORTS_CHILD_PROCESS.test(sample), sample).toBe(true);
		expect(IMPORTS_CHILD_PROCESS.test('import { runProcess } from "@pi-lifecycle/lifecycle-kit";')).toBe(
			false,
		);
	});
});
