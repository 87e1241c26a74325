import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { walkProject } from "../src/adapters/project-walk.js";
import { diffWalks } from "../src/core/walk-diff.js";

/** A later walk, as if `seconds` had passed: the tree's times are then old, not racy. */
function later(seconds: number) {
	vi.setSystemTime(Date.now() + seconds * 1000);
}

describe("a walk reuses what did not change (walkProject with the previous walk)", () => {
	let root: string;
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ["Date"] });
		root = mkdtempSync(join(tmpdir(), "pi-jscpd-walk-"));
		mkdirSync(join(root, "src", "a"), { recursive: true });
		mkdirSync(join(root, "src", "b"));
		writeFileSync(join(root, "src", "a", "one.ts"), "export const one = 1;\n");
		writeFileSync(join(root, "src", "b", "two.ts"), "export const two = 2;\n");
	});
	afterEach(() => {
		vi.useRealTimers();
		rmSync(root, { recursive: true, force: true });
	});

	it("keeps an unchanged folder's listing and an unchanged file's signature object once both are old", () => {
		later(10);
		const first = walkProject(root, { trusted: false });
		later(10);
		const second = walkProject(root, { trusted: false, previous: first });
		expect(second.folders.get("src/a")).toBe(first.folders.get("src/a"));
		expect(second.files.get("src/a/one.ts")).toBe(first.files.get("src/a/one.ts"));
		expect(diffWalks(first.files, second.files)).toEqual([]);
	});

	it("sees a file created, deleted or rewritten in place although unchanged folders are not read again", () => {
		later(10);
		const first = walkProject(root, { trusted: false });
		writeFileSync(join(root, "src", "a", "new.ts"), "export const created = 3;\n");
		unlinkSync(join(root, "src", "b", "two.ts"));
		writeFileSync(join(root, "src", "a", "one.ts"), "export const one = 11;\n");
		const second = walkProject(root, { trusted: false, previous: first });
		expect(diffWalks(first.files, second.files)).toEqual(["src/a/new.ts", "src/a/one.ts", "src/b/two.ts"]);
		mkdirSync(join(root, "src", "b", "deeper"));
		writeFileSync(join(root, "src", "b", "deeper", "three.ts"), "export const three = 3;\n");
		const third = walkProject(root, { trusted: false, previous: second });
		expect(diffWalks(second.files, third.files)).toEqual(["src/b/deeper/three.ts"]);
	});

	it("reads a folder again while its times are racy (changed within 2 s of the listing)", () => {
		const first = walkProject(root, { trusted: false });
		const second = walkProject(root, { trusted: false, previous: first });
		expect(second.folders.get("src/a")).not.toBe(first.folders.get("src/a"));
	});

	it("still refuses an ignore file in a folder whose listing is reused", () => {
		mkdirSync(join(root, "src", "a", ".ignore"));
		later(10);
		const first = walkProject(root, { trusted: false });
		later(10);
		const second = walkProject(root, { trusted: false, previous: first });
		expect(second.folders.get("src/a")).toBe(first.folders.get("src/a"));
		expect(second.skipped.map((file) => file.path)).toEqual(["src/a/.ignore"]);
	});
});

/**
 * The same with the real clock: every folder's times made old (mtime set back, then more than the
 * 2 s racy window waited for ctime), so the walk before each command reuses every listing; each
 * command then sets the changed folders' mtimes back (`touch -d`), as a restoring tool would.
 */
describe("a walk on reused listings misses no change a command makes (real clock)", () => {
	const commands: readonly (readonly [string, readonly string[]])[] = [
		["echo x > src/a/new.ts && touch -d '1 hour ago' src/a", ["src/a/new.ts"]],
		["mv src/a/one.ts src/b/uno.ts && touch -d '1 hour ago' src/a src/b", ["src/a/one.ts", "src/b/uno.ts"]],
		[
			"mkdir src/a/deep && echo x > src/a/deep/d.ts && touch -d '1 hour ago' src/a/deep src/a",
			["src/a/deep/d.ts"],
		],
		// The same size and the mtime restored: the ctime tells.
		[
			"touch -r src/b/two.ts ../ref && printf 'export const two = 3;\\n' > src/b/two.ts && touch -r ../ref src/b/two.ts",
			["src/b/two.ts"],
		],
		["rm -r src/b && echo f > src/b && touch -d '1 hour ago' src", ["src/b", "src/b/two.ts"]],
		[
			"mv src/a src/t && mv src/b src/a && mv src/t src/b",
			["src/a/one.ts", "src/a/two.ts", "src/b/one.ts", "src/b/two.ts"],
		],
		["echo x > $'src/a/new\\nline ü.ts' && touch -d '1 hour ago' src/a", ["src/a/new\nline ü.ts"]],
		[
			"ln -s ../.. src/a/loop && ln -s self src/a/self && touch -d '1 hour ago' src/a",
			["src/a/loop", "src/a/self"],
		],
		["mkfifo src/a/.gitignore && echo x > src/a/z.ts && touch -d '1 hour ago' src/a", ["src/a/z.ts"]],
	];
	for (const trusted of [false, true])
		it(`${trusted ? "trusted" : "untrusted"}: creations, renames, a same-size edit, a folder replaced by a file, swapped folders, odd names, symlink loops`, async () => {
			const parent = mkdtempSync(join(tmpdir(), "pi-jscpd-walk-real-"));
			const old = new Date(Date.now() - 3_600_000);
			const roots = commands.map((_, n) => {
				const root = join(parent, `p${n}`);
				mkdirSync(join(root, "src", "a"), { recursive: true });
				mkdirSync(join(root, "src", "b"));
				writeFileSync(join(root, "src", "a", "one.ts"), "export const one = 1;\n");
				writeFileSync(join(root, "src", "b", "two.ts"), "export const two = 2;\n");
				for (const path of ["src/a/one.ts", "src/b/two.ts", "src/a", "src/b", "src", ""])
					utimesSync(join(root, path), old, old);
				return root;
			});
			await new Promise((resolve) => setTimeout(resolve, 2_100));
			try {
				for (const [n, [command, changed]] of commands.entries()) {
					const root = roots[n] as string;
					const first = walkProject(root, { trusted });
					const second = walkProject(root, { trusted, previous: first });
					expect(second.folders.get("src/a")).toBe(first.folders.get("src/a"));
					execFileSync("/bin/bash", ["-c", command], { cwd: root });
					const third = walkProject(root, { trusted, previous: second });
					expect(diffWalks(second.files, third.files), command).toEqual([...changed].sort());
				}
			} finally {
				rmSync(parent, { recursive: true, force: true });
			}
		}, 30_000);
});
