import { lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { headLogSize, indexEntries, movedBetween, ownGitDir } from "../src/adapters/git-files.js";
import { git, gitInit, remove, tempDir, writeFiles } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => remove(...dirs.splice(0)));
function repo(): string {
	const root = tempDir("pi-jscpd-git-files-");
	dirs.push(root);
	writeFiles(root, { "a.ts": "a\n", "deep/path/with a space/ü.ts": "b\n", "deep/path/other.ts": "c\n" });
	gitInit(root);
	return root;
}

describe("git's own files, read without running git", () => {
	for (const version of ["2", "3", "4"])
		it(`index version ${version}: every wanted path's size, time and inode are git's record of the file`, () => {
			const root = repo();
			git(root, "update-index", "--index-version", version);
			// Version 3: an entry with extended flags (intent to add) before the others.
			if (version === "3") {
				writeFiles(root, { "0.ts": "new\n" });
				git(root, "add", "--intent-to-add", "0.ts");
			}
			const wanted = new Set(["a.ts", "deep/path/with a space/ü.ts", "deep/path/other.ts", "missing.ts"]);
			const entries = indexEntries(join(root, ".git"), wanted);
			expect([...entries.keys()].sort()).toEqual([
				"a.ts",
				"deep/path/other.ts",
				"deep/path/with a space/ü.ts",
			]);
			for (const [path, entry] of entries) {
				const stat = lstatSync(join(root, path));
				expect(entry.size).toBe(stat.size);
				expect(entry.ino).toBe(stat.ino % 2 ** 32);
				expect(Math.abs(entry.mtimeMs - stat.mtimeMs)).toBeLessThan(0.01);
			}
		});

	it("a version 4 index whose prefix compression grows a path past git's longest is not read (it would take minutes)", () => {
		const root = tempDir("pi-jscpd-git-files-");
		dirs.push(root);
		mkdirSync(join(root, ".git"));
		// Each entry keeps all but one character of the previous path and adds 200: read as is, 20,000
		// such entries (5 MB) held Pi's event loop for about 40 s, a 32 MB index for far longer.
		const entry = (strip: number, suffix: string) =>
			Buffer.concat([
				Buffer.alloc(62),
				Buffer.from([strip]),
				Buffer.from(suffix, "latin1"),
				Buffer.from([0]),
			]);
		const header = Buffer.alloc(12);
		header.write("DIRC", 0, "latin1");
		header.writeUInt32BE(4, 4);
		header.writeUInt32BE(30, 8);
		const entries = Array.from({ length: 30 }, (_, i) => entry(i === 0 ? 0 : 1, "a".repeat(200)));
		writeFileSync(join(root, ".git", "index"), Buffer.concat([header, ...entries]));
		const long = "a".repeat(200) + "a".repeat(199 * 29);
		expect(indexEntries(join(root, ".git"), new Set([long, "a".repeat(200)])).size).toBe(0);
	});

	it("the HEAD log tells a checkout, pull or reset from a commit", () => {
		const root = repo();
		const gitDir = join(root, ".git");
		const start = headLogSize(gitDir) ?? 0;
		writeFiles(root, { "b.ts": "b\n" });
		git(root, "add", ".");
		git(root, "commit", "-qm", "b");
		const committed = headLogSize(gitDir) ?? 0;
		expect(movedBetween(gitDir, start, committed)).toBe(false);
		git(root, "checkout", "-qb", "other");
		writeFiles(root, { "c.ts": "c\n" });
		git(root, "add", ".");
		git(root, "commit", "-qm", "c");
		git(root, "checkout", "-q", "main");
		expect(movedBetween(gitDir, committed, headLogSize(gitDir) ?? 0)).toBe(true);
		git(root, "reset", "-q", "--hard", "HEAD~1");
		expect(movedBetween(gitDir, committed, headLogSize(gitDir) ?? 0)).toBe(true);
	});

	it("a merge concluded by a commit after its conflicts are resolved is a move (it wrote the other branch's files)", () => {
		const root = repo();
		const gitDir = join(root, ".git");
		git(root, "checkout", "-qb", "other");
		writeFiles(root, { "a.ts": "other\n", "legacy.ts": "old\n" });
		git(root, "add", ".");
		git(root, "commit", "-qm", "other");
		git(root, "checkout", "-q", "main");
		writeFiles(root, { "a.ts": "main\n" });
		git(root, "commit", "-qam", "main");
		const start = headLogSize(gitDir) ?? 0;
		expect(() => git(root, "merge", "-q", "other")).toThrow();
		writeFiles(root, { "a.ts": "both\n" });
		git(root, "add", "a.ts");
		git(root, "commit", "-qm", "merged");
		expect(movedBetween(gitDir, start, headLogSize(gitDir) ?? 0)).toBe(true);
	});

	it("a new branch made where HEAD is (checkout -b) wrote no file: not a move that hides what is staged with it", () => {
		const root = repo();
		const gitDir = join(root, ".git");
		const start = headLogSize(gitDir) ?? 0;
		// `git checkout -b fix && cp a.ts b.ts && git add -A && git commit`: b.ts matches its index
		// entry, and read as a checkout's file the copy would be silent.
		git(root, "checkout", "-qb", "fix");
		writeFiles(root, { "b.ts": "a\n" });
		git(root, "add", "-A");
		git(root, "commit", "-qm", "copy");
		expect(movedBetween(gitDir, start, headLogSize(gitDir) ?? 0)).toBe(false);
		// Resetting to where HEAD is still writes files (`reset --hard`, `stash`): a move.
		const committed = headLogSize(gitDir) ?? 0;
		git(root, "reset", "-q", "--hard", "HEAD");
		expect(movedBetween(gitDir, committed, headLogSize(gitDir) ?? 0)).toBe(true);
	});

	it("only a real .git folder in the project root is read: not a pointer file, not a symlink", () => {
		const root = tempDir("pi-jscpd-git-files-");
		const elsewhere = tempDir("pi-jscpd-git-elsewhere-");
		dirs.push(root, elsewhere);
		expect(ownGitDir(root)).toBeUndefined();
		writeFileSync(join(root, ".git"), `gitdir: ${elsewhere}\n`);
		expect(ownGitDir(root)).toBeUndefined();
		remove(join(root, ".git"));
		mkdirSync(join(elsewhere, "logs"), { recursive: true });
		writeFileSync(join(elsewhere, "logs", "HEAD"), "x\n");
		symlinkSync(elsewhere, join(root, ".git"));
		expect(ownGitDir(root)).toBeUndefined();
		// A real .git folder whose logs folder leads outside: its HEAD log is not read.
		remove(join(root, ".git"));
		mkdirSync(join(root, ".git"));
		symlinkSync(join(elsewhere, "logs"), join(root, ".git", "logs"));
		expect(headLogSize(join(root, ".git"))).toBeUndefined();
		expect(movedBetween(join(root, ".git"), 0, 2)).toBe(true);
	});
});
