/**
 * The project's fingerprint index of one runtime (core/fingerprints.ts) and the focus of each
 * check: which files jscpd must read so that a check costs what changed, not the repository.
 *
 * Built once per baseline, in the background, from the files a scan reads (the default ignores
 * and jscpd's 1 MB limit; binary files skipped), a few files per macrotask so Pi's handlers are
 * never held up. A check then reads the changed files and asks the index for their partners: the
 * files sharing pairs of code lines (or their shapes, for renamed and near-copies) with them.
 * Partners a trusted repository's `.gitignore`, or a `.ignore` file, hides are dropped (a whole
 * scan never reads them either).
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import {
	type FingerprintIndex,
	FingerprintIndexBuilder,
	fingerprintsOf,
	MAX_INDEXED_FILES,
	partnersOf,
} from "../core/fingerprints.js";
import { focusTooWide, type ScanFocus } from "../core/focus.js";
import { type Detection, shapeOf } from "../core/kinds.js";
import { run as runGit } from "./git-probe.js";
import { hiddenByIgnoreFiles, IgnoreFiles } from "./ignore-files.js";
import { defaultIgnores, hiddenByDefault } from "./ignores.js";
import { readRegularFile } from "./regular-file.js";

/** jscpd's default `--max-size`: larger files are never scanned, so never partners. */
const MAX_FILE_BYTES = 1024 * 1024;
/** Files read per macrotask while building. */
const FILES_PER_STEP = 48;
/** Folders never entered (besides the default ignores): version control. */
const SKIPPED = new Set([".git", ".hg", ".svn"]);

/** The state of the index. */
export type IndexState =
	| { readonly status: "none" | "building" }
	| { readonly status: "ready"; readonly index: FingerprintIndex; readonly ms: number }
	| { readonly status: "failed"; readonly reason: string };

const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Project paths of the files a scan of `root` reads, sorted; stops at `limit`. The default ignores
 * hide folders only when the scan adds them (a trusted git repository may commit `dist/`, and a
 * whole scan then reads it); a trusted project's ignore files hide what they list, as for jscpd.
 */
export async function projectFiles(
	root: string,
	limit: number,
	signal: AbortSignal,
	trusted = false,
): Promise<string[]> {
	const defaults = defaultIgnores(root, trusted).length > 0;
	const ignores = trusted ? new IgnoreFiles(root, true) : undefined;
	const hidden = (path: string, folder: boolean) =>
		(defaults && hiddenByDefault(folder ? `${path}/x` : path)) || ignores?.hides(path, folder) === true;
	const files: string[] = [];
	const folders = [""];
	while (folders.length > 0 && files.length < limit && !signal.aborted) {
		const folder = folders.pop() ?? "";
		let entries: Dirent[];
		try {
			entries = await readdir(join(root, folder), { withFileTypes: true });
		} catch {
			continue;
		}
		for (const entry of entries) {
			const path = folder ? `${folder}/${entry.name}` : entry.name;
			if (entry.isDirectory()) {
				if (!SKIPPED.has(entry.name) && !hidden(path, true)) folders.push(path);
			} else if (entry.isFile() && !hidden(path, false)) files.push(path);
		}
	}
	return files.sort();
}

/** What the index needs from its owner. */
export interface ProjectIndexDeps {
	/** Whether the project is trusted (git may run, `.gitignore` applies). */
	readonly trusted: () => boolean;
}

/** See the module comment. */
export class ProjectIndex {
	readonly #deps: ProjectIndexDeps;
	#state: IndexState = { status: "none" };
	#build: Promise<void> = Promise.resolve();
	#abort = new AbortController();
	#root = "";

	constructor(deps: ProjectIndexDeps) {
		this.#deps = deps;
	}

	/** The index state (status). */
	get state(): IndexState {
		return this.#state;
	}

	/** Starts building the index of `root` for `detection` (replacing an earlier one). */
	prepare(root: string, detection: Detection): void {
		this.#abort.abort();
		const abort = new AbortController();
		this.#abort = abort;
		this.#root = root;
		this.#state = { status: "building" };
		this.#build = this.#run(root, detection, abort.signal).then(
			(state) => {
				if (!abort.signal.aborted) this.#state = state;
			},
			(error: unknown) => {
				if (!abort.signal.aborted) this.#state = { status: "failed", reason: String(error) };
			},
		);
	}

	/** Stops a build (runtime shutdown). */
	close(): void {
		this.#abort.abort();
		this.#state = { status: "none" };
	}

	async #run(root: string, detection: Detection, signal: AbortSignal): Promise<IndexState> {
		const started = Date.now();
		const families = {
			exact: detection.kinds.includes("exact"),
			shapes: detection.kinds.includes("renamed") || detection.kinds.includes("similar"),
		};
		const files = await projectFiles(root, MAX_INDEXED_FILES, signal, this.#deps.trusted());
		const builder = new FingerprintIndexBuilder(families);
		for (let i = 0; i < files.length; i++) {
			if (i % FILES_PER_STEP === 0) await nextMacrotask();
			if (signal.aborted) return { status: "none" };
			const path = files[i] ?? "";
			const text = readText(join(root, path));
			if (text !== undefined) builder.add(path, fingerprintsOf(text, families, shapeOf));
		}
		return { status: "ready", index: builder.build(), ms: Date.now() - started };
	}

	/**
	 * What a check of the session's `changed` files scans: the existing changed files and their
	 * partners, or the whole project and why. Waits for a build in progress.
	 */
	async focus(changed: ReadonlySet<string>, signal: AbortSignal): Promise<ScanFocus> {
		await this.#build;
		const state = this.#state;
		if (state.status !== "ready")
			return {
				scope: "full",
				reason:
					state.status === "failed" ? `the project index failed (${state.reason})` : "no project index yet",
			};
		const root = this.#root;
		const present: string[] = [];
		const partners = new Set<string>();
		const paths = [...changed].sort();
		for (let i = 0; i < paths.length; i++) {
			// Many changed files (a code generator's run) are read a few dozen per macrotask.
			if (i > 0 && i % FILES_PER_STEP === 0) await nextMacrotask();
			if (signal.aborted) return { scope: "full", reason: "cancelled" };
			const path = paths[i] ?? "";
			const text = readText(join(root, path));
			if (text === undefined) continue;
			present.push(path);
			for (const partner of partnersOf(
				state.index,
				fingerprintsOf(text, state.index.families, shapeOf),
				changed,
			))
				partners.add(partner);
		}
		const wide = focusTooWide(present.length + partners.size, state.index.paths.length);
		if (wide) return { scope: "full", reason: wide };
		const hidden = new Set(hiddenByIgnoreFiles(root, partners, !this.#deps.trusted()));
		if (this.#deps.trusted() && partners.size > 0) {
			const ignored = await runGit(["check-ignore", "--", ...partners], { root, trusted: true }, signal);
			for (const line of ignored?.split("\n") ?? []) if (partners.has(line)) hidden.add(line);
		}
		const kept = new Set([...partners].filter((path) => !hidden.has(path)));
		return { scope: "focused", paths: [...present, ...kept], partners: kept };
	}
}

/** A file's text when it is a regular, non-binary file of at most 1 MB. */
function readText(absolute: string): string | undefined {
	const read = readRegularFile(absolute, MAX_FILE_BYTES);
	if (read.status !== "read" || read.text.slice(0, 8000).includes("\0")) return undefined;
	return read.text;
}
