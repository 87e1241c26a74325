/**
 * The ignore files jscpd and our walk read. jscpd 5 walks a scanned folder with the ripgrep walker,
 * which honours a `.ignore` file in every folder it enters and in every folder above the scanned
 * one, in or outside git, and no option turns that off; it also keeps honouring `.git/info/exclude`
 * with `--no-gitignore`. So a copy written where one of them hides it is never scanned, and a check
 * must not call its changes "clean" ({@link hiddenByIgnoreFiles}; `.gitignore` is handled
 * separately: `--no-gitignore` in an untrusted project, `git check-ignore` in a trusted one).
 *
 * Every ignore file is inspected before it is read ({@link inspectIgnoreFile}): only bounded regular
 * files, so a FIFO or a huge file is skipped, named, and kept from jscpd (scan-targets.ts).
 * Gitignore semantics by the `ignore` package: a deeper file overrides a shallower one, and a folder
 * that is ignored is never entered, so nothing below it can be re-included.
 */
import { lstatSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { isInside, posixPath, toProjectPath } from "../core/project-paths.js";
import { excludeFile, gitPointerFile, inGitWorkTree } from "./git-locations.js";
import { readRegularFile } from "./regular-file.js";

/** Largest ignore file read; a larger one is skipped (its patterns do not apply, and jscpd is kept from it). */
export const MAX_IGNORE_BYTES = 256 * 1024;
/** Most changed paths examined per call (the rest are not claimed hidden). */
const MAX_EXAMINED = 5_000;

type Matcher = Ignore | undefined;
type Present = (folder: string, name: string) => boolean | undefined;

/** One ignore file: the folder its patterns are relative to, and its patterns. */
interface Layer {
	readonly dir: string;
	readonly matcher: Matcher;
}

/** An ignore file that was not read, and why (jscpd must not read it either: see scan-targets.ts). */
export interface SkippedIgnoreFile {
	/** Project path, or the absolute path of a file outside the project. */
	readonly path: string;
	readonly why: string;
}

/** What {@link inspectIgnoreFile} found. */
export type IgnoreFileRead =
	| { readonly status: "missing" }
	| { readonly status: "read"; readonly matcher: Ignore }
	| { readonly status: "skipped"; readonly why: string };

/**
 * Reads one ignore file only when it is a regular file (not a FIFO, device or folder: opening one
 * would block, jscpd included) of at most {@link MAX_IGNORE_BYTES}. Never throws.
 */
export function inspectIgnoreFile(file: string, container?: string): IgnoreFileRead {
	let stat: ReturnType<typeof lstatSync>;
	try {
		stat = lstatSync(file, { throwIfNoEntry: false });
		if (!stat) return { status: "missing" }; // most folders have none: decided before resolving paths
		if (container !== undefined && pointsOutside(file, container))
			return { status: "skipped", why: "it points outside the project (not followed)" };
		// A symlink is judged by its target, as jscpd's walker opens it.
		if (stat.isSymbolicLink()) stat = statSync(file, { throwIfNoEntry: false });
	} catch {
		return { status: "skipped", why: "it cannot be read" };
	}
	if (!stat) return { status: "missing" };
	if (!stat.isFile()) return { status: "skipped", why: "it is not a regular file (reading it would block)" };
	if (stat.size > MAX_IGNORE_BYTES)
		return { status: "skipped", why: `it is larger than ${MAX_IGNORE_BYTES / 1024} KB` };
	const read = readRegularFile(file, MAX_IGNORE_BYTES);
	if (read.status !== "read") return { status: "skipped", why: "it cannot be read" };
	return { status: "read", matcher: ignore().add(read.text) };
}

/** Whether `file` resolves (a symlink of its own or on its way) outside `container` (docs/security.md). */
function pointsOutside(file: string, container: string): boolean {
	try {
		return !isInside(realpathSync(container), realpathSync(file));
	} catch {
		return false;
	}
}

/** Where an untrusted project's ignore file must resolve: its git folder, or the project; none above it. */
function containerOf(root: string, file: string): string | undefined {
	if (file.endsWith(`${sep}info${sep}exclude`)) return dirname(dirname(file));
	return isInside(root, file) ? root : undefined;
}

function matcherOf(file: string, container?: string): Matcher {
	const read = inspectIgnoreFile(file, container);
	return read.status === "read" ? read.matcher : undefined;
}

function excludeLayer(root: string, followGitFile: boolean): Layer | undefined {
	const file = excludeFile(root, followGitFile);
	const container = file && !followGitFile ? containerOf(root, file) : undefined;
	return file ? { dir: dirname(dirname(dirname(file))), matcher: matcherOf(file, container) } : undefined;
}

/** Ignore files a walk of `root` meets, once per folder: `.ignore` (jscpd reads it trusted or not), trusted also
 * `info/exclude` and, inside a git work tree (where jscpd honours it; outside git it scans what a
 * `.gitignore` lists), `.gitignore`. Only trusted patterns hide anything; refused files are collected either way. */
export class IgnoreFiles {
	readonly #root: string;
	readonly #trusted: boolean;
	/** Whether `.gitignore` files count (trusted, inside a git work tree). */
	readonly #gitignore: boolean;
	/** Project path of a folder ("" for the root) → its layers (`.gitignore` first, then `.ignore`). */
	readonly #folders = new Map<string, Layer[]>();
	readonly #outer: Layer[] = [];
	readonly #skipped: SkippedIgnoreFile[] = [];
	/** Whether a folder ("" for the root) has an entry `name`, when a walk listed it (no `lstat` then). */
	readonly #present: Present | undefined;
	constructor(root: string, trusted: boolean, present?: Present) {
		this.#root = root;
		this.#trusted = trusted;
		this.#gitignore = trusted && inGitWorkTree(root);
		this.#present = present;
		const names = this.#names();
		for (let dir = dirname(root), n = 0; n < 64; dir = dirname(dir), n++) {
			this.#outer.unshift(...names.map((name) => this.#layer(dir, name)));
			if (dirname(dir) === dir) break;
		}
		const exclude = excludeFile(root, trusted);
		if (exclude)
			this.#outer.unshift({ dir: dirname(dirname(dirname(exclude))), matcher: this.#read(exclude) });
		// jscpd's walker follows a `.git` file (and its `commondir`) to read `info/exclude`, wherever it
		// points: in an untrusted project it must not, so jscpd is kept from walking folders at all.
		const pointer = trusted ? undefined : gitPointerFile(root);
		if (pointer)
			this.#skipped.push({
				path: isInside(root, pointer) ? toProjectPath(root, pointer) : pointer,
				why: "it points to a git folder that may be outside the project (not followed)",
			});
		this.#layersOf("");
	}

	#names(): string[] {
		return this.#gitignore ? [".gitignore", ".ignore"] : [".ignore"];
	}

	#read(file: string): Matcher {
		const read = inspectIgnoreFile(file, this.#trusted ? undefined : containerOf(this.#root, file));
		if (read.status === "skipped") {
			const path = isInside(this.#root, file) ? toProjectPath(this.#root, file) : file;
			this.#skipped.push({ path, why: read.why });
		}
		return read.status === "read" ? read.matcher : undefined;
	}

	#layer(dir: string, name: string): Layer {
		return { dir, matcher: this.#read(join(dir, name)) };
	}

	#layersOf(folder: string): Layer[] {
		let layers = this.#folders.get(folder);
		if (!layers) {
			const dir = folder === "" ? this.#root : join(this.#root, folder);
			layers = this.#names().map((name) =>
				this.#present?.(folder, name) === false ? { dir, matcher: undefined } : this.#layer(dir, name),
			);
			this.#folders.set(folder, layers);
		}
		return layers;
	}

	/**
	 * Whether a trusted project's ignore files hide `path` (a project path; its folders were asked
	 * first). Asking about a folder also inspects the ignore files in it.
	 */
	hides(path: string, isFolder: boolean): boolean {
		const slash = path.lastIndexOf("/");
		const parent = slash < 0 ? "" : path.slice(0, slash);
		const hidden = this.#trusted && verdict(this.#root, this.#ancestorLayers(parent), path, isFolder);
		if (isFolder && !hidden) this.#layersOf(path);
		return hidden;
	}

	#ancestorLayers(parent: string): Layer[] {
		const layers = [...this.#outer, ...this.#layersOf("")];
		if (parent === "") return layers;
		let at = parent.indexOf("/");
		while (at >= 0) {
			layers.push(...this.#layersOf(parent.slice(0, at)));
			at = parent.indexOf("/", at + 1);
		}
		layers.push(...this.#layersOf(parent));
		return layers;
	}

	/** The ignore files refused so far. */
	skipped(): SkippedIgnoreFile[] {
		return [...this.#skipped];
	}
}

/** Whether the last layer that decides about `path` ignores it. */
function verdict(root: string, layers: readonly Layer[], path: string, isFolder: boolean): boolean {
	const entry = join(root, path);
	let hidden = false;
	for (const { dir, matcher } of layers) {
		if (!matcher) continue;
		const rel = relative(dir, entry);
		if (!rel || rel.startsWith("..") || isAbsolute(rel)) continue;
		const result = matcher.test(rel.split(sep).join("/") + (isFolder ? "/" : ""));
		if (result.ignored) hidden = true;
		else if (result.unignored) hidden = false;
	}
	return hidden;
}

/**
 * The project paths of `changed` (`/`-separated, relative to `root`) that a `.ignore` file in their
 * folders, or above `root`, keeps jscpd from scanning; with `gitExclude`, the repository's
 * `info/exclude` too (for an untrusted project, where git is not run to ask). Never throws.
 */
export function hiddenByIgnoreFiles(root: string, changed: Iterable<string>, gitExclude = false): string[] {
	const matchers = new Map<string, Matcher>();
	const layerIn = (dir: string): Layer => {
		const file = join(dir, ".ignore");
		if (!matchers.has(dir))
			matchers.set(dir, matcherOf(file, gitExclude ? containerOf(root, file) : undefined));
		return { dir, matcher: matchers.get(dir) };
	};
	// Lowest precedence first: info/exclude, then the `.ignore` files above the root, outermost first
	// (the walker reads those too).
	const outer: Layer[] = [];
	for (let dir = dirname(root); outer.length < 64; dir = dirname(dir)) {
		outer.unshift(layerIn(dir));
		if (dirname(dir) === dir) break;
	}
	const exclude = gitExclude ? excludeLayer(root, false) : undefined;
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
