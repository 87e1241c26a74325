/**
 * Which changed files jscpd's own `.ignore` files hide. jscpd 5 walks a scanned folder with the
 * ripgrep walker, which honours a `.ignore` file in every folder it enters and in every folder above
 * the scanned one, in or outside git, and no option turns that off. A copy written where one of them
 * hides it is never scanned, so a check must not call its changes "clean" (`.gitignore` is handled
 * separately: `--no-gitignore` in an untrusted project, `git check-ignore` in a trusted one; but
 * jscpd 5.3.2 keeps honouring `.git/info/exclude` with `--no-gitignore`, so that one is read here).
 *
 * Only reads bounded regular files (a FIFO named `.ignore` is never opened); gitignore semantics by
 * the `ignore` package: a deeper file overrides a shallower one, and a folder that is ignored is
 * never entered, so nothing below it can be re-included.
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import ignore, { type Ignore } from "ignore";
import { posixPath } from "../core/project-paths.js";
import { readRegularFile } from "./regular-file.js";

/** Largest `.ignore` file read (a larger one counts as hiding everything below it). */
const MAX_IGNORE_BYTES = 256 * 1024;
/** Most changed paths examined per call (the rest are not claimed hidden). */
const MAX_EXAMINED = 5_000;

type Matcher = Ignore | "all" | undefined;

/** One ignore file: the folder its patterns are relative to, and its patterns. */
interface Layer {
	readonly dir: string;
	readonly matcher: Matcher;
}

function matcherOf(file: string): Matcher {
	const read = readRegularFile(file, MAX_IGNORE_BYTES);
	return read.status === "read" ? ignore().add(read.text) : read.status === "too-large" ? "all" : undefined;
}

/**
 * The repository's `info/exclude` (jscpd honours it even with `--no-gitignore`): the layer of the
 * work tree that holds `root`, found without running git (`.git` as a folder, or a `gitdir:` file of
 * a linked work tree whose `commondir` holds `info/`).
 */
function excludeLayer(root: string): Layer | undefined {
	for (let dir = root, depth = 0; depth < 256; depth++) {
		const dotGit = join(dir, ".git");
		const pointer = readRegularFile(dotGit, 4096);
		let gitDir: string | undefined;
		if (pointer.status === "read") {
			const target = /^gitdir:\s*(.+?)\s*$/m.exec(pointer.text)?.[1];
			if (target) {
				const linked = resolve(dir, target);
				const common = readRegularFile(join(linked, "commondir"), 4096);
				gitDir = common.status === "read" ? resolve(linked, common.text.trim()) : linked;
			}
		} else if (existsSync(dotGit)) gitDir = dotGit;
		if (gitDir) return { dir, matcher: matcherOf(join(gitDir, "info", "exclude")) };
		const parent = dirname(dir);
		if (parent === dir) return undefined;
		dir = parent;
	}
	return undefined;
}

/**
 * The project paths of `changed` (`/`-separated, relative to `root`) that a `.ignore` file in their
 * folders, or above `root`, keeps jscpd from scanning; with `gitExclude`, the repository's
 * `info/exclude` too (for an untrusted project, where git is not run to ask). Never throws.
 */
export function hiddenByIgnoreFiles(root: string, changed: Iterable<string>, gitExclude = false): string[] {
	const matchers = new Map<string, Matcher>();
	const layerIn = (dir: string): Layer => {
		if (!matchers.has(dir)) matchers.set(dir, matcherOf(join(dir, ".ignore")));
		return { dir, matcher: matchers.get(dir) };
	};
	// Lowest precedence first: info/exclude, then the `.ignore` files above the root, outermost first
	// (the walker reads those too).
	const outer: Layer[] = [];
	for (let dir = dirname(root); outer.length < 64; dir = dirname(dir)) {
		outer.unshift(layerIn(dir));
		if (dirname(dir) === dir) break;
	}
	const exclude = gitExclude ? excludeLayer(root) : undefined;
	if (exclude) outer.unshift(exclude);
	outer.push(layerIn(root));
	const hidden: string[] = [];
	let examined = 0;
	for (const path of changed) {
		if (++examined > MAX_EXAMINED) break;
		if (isHidden(root, outer, path, layerIn)) hidden.push(path);
	}
	return hidden;
}

/** Whether `path` or one of its folders below `root` is ignored by the layers above it. */
function isHidden(root: string, outer: readonly Layer[], path: string, layerIn: (dir: string) => Layer) {
	const segments = path.split("/");
	const layers = [...outer];
	for (let depth = 1; depth <= segments.length; depth++) {
		const entry = join(root, ...segments.slice(0, depth));
		const isFolder = depth < segments.length;
		let verdict = false;
		for (const { dir, matcher } of layers) {
			if (!matcher) continue;
			if (matcher === "all") {
				verdict = true;
				continue;
			}
			const rel = relative(dir, entry);
			if (!rel || rel.startsWith("..") || isAbsolute(rel)) continue;
			const result = matcher.test(posixPath(rel) + (isFolder ? "/" : ""));
			if (result.ignored) verdict = true;
			else if (result.unignored) verdict = false;
		}
		if (verdict) return true;
		if (isFolder) layers.push(layerIn(entry));
	}
	return false;
}
