/**
 * Where a project's git folder is, found without running git (an untrusted repository's config
 * could name programs git runs): whether the project is in a git work tree, the `info/exclude`
 * that applies to it, and a linked work tree's `.git` pointer file.
 */
import { existsSync, lstatSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readRegularFile } from "./regular-file.js";

/**
 * The git dir whose `info/exclude` applies to the work tree holding `root` (jscpd honours it even
 * with `--no-gitignore`), found without running git: a `.git` folder in `root` or above it; with
 * `followGitFile` (a trusted project) also a linked work tree's `gitdir:` file and its `commondir`.
 * An untrusted repository's `.git` file can point anywhere: it is never followed.
 */
export function excludeFile(root: string, followGitFile = false): string | undefined {
	for (let dir = root, depth = 0; depth < 256; depth++) {
		const dotGit = join(dir, ".git");
		const stat = lstatSync(dotGit, { throwIfNoEntry: false });
		if (stat?.isDirectory()) return join(dotGit, "info", "exclude");
		if (stat && followGitFile) {
			const pointer = readRegularFile(dotGit, 4096);
			const target = pointer.status === "read" ? /^gitdir:\s*(.+?)\s*$/m.exec(pointer.text)?.[1] : undefined;
			if (!target) return undefined;
			const linked = resolve(dir, target);
			const common = readRegularFile(join(linked, "commondir"), 4096);
			return join(common.status === "read" ? resolve(linked, common.text.trim()) : linked, "info", "exclude");
		}
		if (stat) return undefined;
		const parent = dirname(dir);
		if (parent === dir) return undefined;
		dir = parent;
	}
	return undefined;
}

/**
 * Whether `root` is in a git work tree as jscpd's walker decides it (a `.git` folder or file in
 * `root` or above it): only there does jscpd honour `.gitignore` files.
 */
export function inGitWorkTree(root: string): boolean {
	for (let dir = root, depth = 0; depth < 256; depth++) {
		if (existsSync(join(dir, ".git"))) return true;
		const parent = dirname(dir);
		if (parent === dir) return false;
		dir = parent;
	}
	return false;
}

/** The `.git` file (a linked work tree's pointer) that holds `root`, if any (not followed). */
export function gitPointerFile(root: string): string | undefined {
	for (let dir = root, depth = 0; depth < 256; depth++) {
		const dotGit = join(dir, ".git");
		const stat = lstatSync(dotGit, { throwIfNoEntry: false });
		if (stat) return stat.isDirectory() ? undefined : dotGit;
		const parent = dirname(dir);
		if (parent === dir) return undefined;
		dir = parent;
	}
	return undefined;
}
