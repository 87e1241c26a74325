/** Which changed files jscpd's `.ignore` files (and, untrusted, `.git/info/exclude`) hide (audit a6j). */
import { spawnSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { excludeFile } from "../src/adapters/git-locations.js";
import { hiddenByIgnoreFiles, inspectIgnoreFile } from "../src/adapters/ignore-files.js";
import { remove, tempDir, writeFiles } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => remove(...dirs.splice(0)));

function project(files: Record<string, string>): string {
	const root = tempDir("pi-jscpd-ignore-files-");
	dirs.push(root);
	writeFiles(root, files);
	return root;
}

describe("hiddenByIgnoreFiles", () => {
	it("a .ignore that matches nothing changed hides nothing (no false incomplete)", () => {
		const root = project({ ".ignore": "*.lock\nlogs/\n" });
		expect(hiddenByIgnoreFiles(root, ["src/a.ts", "src/logs.ts"])).toEqual([]);
	});

	it("a pattern in a nested .ignore is relative to its folder", () => {
		const root = project({ "pkg/.ignore": "gen/\n" });
		expect(hiddenByIgnoreFiles(root, ["pkg/gen/a.ts", "gen/a.ts", "pkg/src/a.ts"])).toEqual(["pkg/gen/a.ts"]);
	});

	it("a deeper .ignore re-includes a file a shallower one ignored", () => {
		const root = project({ ".ignore": "*.ts\n", "src/.ignore": "!keep.ts\n" });
		expect(hiddenByIgnoreFiles(root, ["src/keep.ts", "src/drop.ts"])).toEqual(["src/drop.ts"]);
	});

	it("nothing below an ignored folder can be re-included (the walker never enters it)", () => {
		const root = project({ ".ignore": "gen/\n", "gen/.ignore": "!a.ts\n" });
		expect(hiddenByIgnoreFiles(root, ["gen/a.ts"])).toEqual(["gen/a.ts"]);
	});

	it("a FIFO named .ignore is never opened", () => {
		const root = project({ "src/a.ts": "" });
		expect(spawnSync("mkfifo", [`${root}/.ignore`]).status).toBe(0);
		expect(hiddenByIgnoreFiles(root, ["src/a.ts"])).toEqual([]);
	});

	it("info/exclude counts only when asked (untrusted: git is not run to ask)", () => {
		const root = project({ ".git/info/exclude": "gen/\n" });
		expect(hiddenByIgnoreFiles(root, ["gen/a.ts"])).toEqual([]);
		expect(hiddenByIgnoreFiles(root, ["gen/a.ts"], true)).toEqual(["gen/a.ts"]);
	});

	it("an untrusted project's .git file pointing outside is never followed: its commondir and info/exclude decide nothing", () => {
		const main = project({ ".git/info/exclude": "gen/\n", ".git/worktrees/w/commondir": "../..\n" });
		const root = project({ ".git": `gitdir: ${main}/.git/worktrees/w\n` });
		expect(hiddenByIgnoreFiles(root, ["gen/a.ts", "src/a.ts"], true)).toEqual([]);
		expect(excludeFile(root)).toBeUndefined();
	});

	it("a trusted linked work tree's exclude is its common git dir's", () => {
		const main = project({ ".git/info/exclude": "gen/\n", ".git/worktrees/w/commondir": "../..\n" });
		const root = project({ ".git": `gitdir: ${main}/.git/worktrees/w\n` });
		expect(excludeFile(root, true)).toBe(`${main}/.git/info/exclude`);
	});

	it("an ignore file that is a FIFO or over the size bound is skipped, with why; a regular one is read", () => {
		const root = project({ "big/.ignore": "x\n".repeat(200_000), "ok/.ignore": "gen/\n" });
		expect(spawnSync("mkfifo", [`${root}/.ignore`]).status).toBe(0);
		expect(inspectIgnoreFile(`${root}/.ignore`)).toMatchObject({
			status: "skipped",
			why: expect.stringContaining("not a regular file"),
		});
		expect(inspectIgnoreFile(`${root}/big/.ignore`)).toMatchObject({
			status: "skipped",
			why: expect.stringContaining("larger than"),
		});
		expect(inspectIgnoreFile(`${root}/ok/.ignore`).status).toBe("read");
		expect(inspectIgnoreFile(`${root}/none/.ignore`).status).toBe("missing");
	});
});
