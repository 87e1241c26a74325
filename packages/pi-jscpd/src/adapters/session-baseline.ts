/**
 * The jscpd capability and the session baseline of one runtime: the background `--version` probe,
 * the baseline restored from the `pi-jscpd/state` entry or captured at session start (one
 * full-project scan through the serialised runner), and the content of files the session changed
 * before the capture finished (the agent never waits for the baseline).
 */
import { basename, join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	EMPTY_INDEX,
	type LineIndex,
	rebaseFromContents,
	rebaseFromReport,
	serialiseIndex,
} from "../core/identity.js";
import type { Detection } from "../core/kinds.js";
import type { ReplayEntry } from "../core/mutations.js";
import type { CloneGroup } from "../core/report.js";
import {
	type BaselineState,
	baselineDirectory,
	baselinePath,
	captureBaseline,
	isStateEntry,
	loadBaseline,
	STATE_ENTRY,
	type StateEntry,
	stateFromFile,
	writeBaseline,
} from "./baseline.js";
import { pruneBaselines } from "./baseline-retention.js";
import { type Capability, candidates, probeCapability } from "./locate.js";
import { readRegularFile } from "./regular-file.js";
import type { ProcessRunner } from "./runner.js";

/** Largest file whose content is kept for the baseline (jscpd's default `--max-size`). */
const MAX_ORIGINAL_BYTES = 1024 * 1024;

/** What the keeper needs from its owner. */
export interface BaselineDeps {
	readonly pi: Pick<ExtensionAPI, "appendEntry">;
	readonly runner: ProcessRunner;
	/** Runs work through the scheduler's explicit (priority) path. */
	readonly explicit: (work: (signal: AbortSignal) => Promise<void>) => Promise<void>;
	/** Takes the outside-change reference walk (at start, before any tool can change a file). */
	readonly snapshot: () => Promise<void>;
	/**
	 * The capture's scan has finished: returns the files created outside write/edit while it ran
	 * (`hasOriginal`: the content before the session is known for that file).
	 */
	readonly captured?: (hasOriginal: (path: string) => boolean) => readonly string[];
	/** The current jscpd timeout. */
	readonly timeoutMs: () => number;
	/** The clone kinds a new baseline detects (exact only when omitted). */
	readonly detection?: () => Detection;
	/** Whether the runtime is shutting down. */
	readonly closed: () => boolean;
	/** Called when the capability or baseline changed (footer). */
	readonly changed: () => void;
}

/** How one runtime starts. */
export interface BaselineStart {
	/** Canonical project root. */
	readonly root: string;
	readonly sessionId: string;
	/** Pi's agent directory (baseline files). */
	readonly agentDir: string;
	/** The branch at session start (for the state entry). */
	readonly entries: readonly ReplayEntry[];
	/** Write/edit changes already on the branch (a restored session without a baseline). */
	readonly priorMutations: number;
	/** The session_start reason. */
	readonly reason: string;
	/** Whether Pi trusts the project (a project-local jscpd is used only then). */
	readonly trusted: boolean;
	/** Use exactly this executable (tests and embedders). */
	readonly executable: string | undefined;
	/** The session's folder (baselines of sessions gone from it are removed). */
	readonly sessionDir?: string;
}

/** See the module comment. */
export class BaselineKeeper {
	readonly #deps: BaselineDeps;
	#capability: Capability | undefined;
	#capabilityPromise: Promise<Capability> = Promise.resolve({ status: "unavailable", reason: "not started" });
	#state: BaselineState = { status: "none" };
	#pending: Promise<void> = Promise.resolve();
	#root = "";
	/** Project path → content before the session's first write/edit of it while the capture ran. */
	readonly #originals = new Map<string, string>();
	/** Paths a move of the work tree brought in, to rebase at the next scan (see {@link noteMoves}). */
	readonly #moves = new Map<string, string | undefined>();
	#sessionId = "";
	/** The retention pass of this start (baseline-retention.ts): the names it removed. */
	pruned: Promise<string[]> = Promise.resolve([]);

	constructor(deps: BaselineDeps) {
		this.#deps = deps;
	}

	/** The probed capability, undefined while probing. */
	get capability(): Capability | undefined {
		return this.#capability;
	}

	/** Resolves to the probed capability. */
	readonly probed = (): Promise<Capability> => this.#capabilityPromise;

	/** The baseline state. */
	get state(): BaselineState {
		return this.#state;
	}

	/**
	 * Starts the probe and restores or captures the baseline, in the background. Returns why saved
	 * `pi-jscpd/state` was ignored (malformed entries, an unusable baseline file), for the caller to
	 * report; a new baseline is captured then.
	 */
	start(start: BaselineStart): string[] {
		this.#capabilityPromise = probeCapability(
			this.#deps.runner,
			candidates({
				root: start.root,
				projectTrusted: start.trusted,
				pathEnv: process.env.PATH,
				override: start.executable,
			}),
			{ cwd: start.root },
		).then((capability) => {
			this.#capability = capability;
			this.#deps.changed();
			return capability;
		});
		this.#root = start.root;
		this.#sessionId = start.sessionId;
		this.#moves.clear();
		const directory = baselineDirectory(start.agentDir);
		const restored = this.#restore(start.entries, start.root, directory);
		const keep = new Set([basename(baselinePath(start.agentDir, start.sessionId))]);
		const state = this.#state;
		if (restored.ok && "file" in state && state.file) keep.add(basename(state.file));
		this.pruned = pruneBaselines({ directory, agentDir: start.agentDir, sessionDir: start.sessionDir, keep });
		// The reference walk is taken at once, before the capture's scan (tools wait for it).
		const reference = this.#deps.snapshot();
		this.#pending = restored.ok ? reference : this.#capture(start, reference);
		return restored.ignored;
	}

	/**
	 * The latest well-formed state entry decides: its file is read (only from the baseline
	 * directory). Malformed entries after it are skipped and reported, as is an unusable file.
	 */
	#restore(
		entries: readonly ReplayEntry[],
		root: string,
		directory: string,
	): { readonly ok: boolean; readonly ignored: string[] } {
		const ignored: string[] = [];
		for (let i = entries.length - 1; i >= 0; i--) {
			const entry = entries[i];
			if (entry?.type !== "custom" || entry.customType !== STATE_ENTRY) continue;
			if (!isStateEntry(entry.data)) {
				ignored.push(`a malformed ${STATE_ENTRY} entry`);
				continue;
			}
			const read = loadBaseline(entry.data.baselineFile, root, directory);
			if (!read.ok) {
				ignored.push(`the saved baseline: ${read.reason}`);
				return { ok: false, ignored };
			}
			this.#state = stateFromFile(entry.data.baselineFile, read.file);
			return { ok: true, ignored };
		}
		return { ok: false, ignored };
	}

	async #capture(start: BaselineStart, reference: Promise<void>): Promise<void> {
		this.#state = { status: "pending" };
		const { root, sessionId } = start;
		try {
			await this.#deps.explicit(async (signal) => {
				await reference;
				const state = await captureBaseline({
					runner: this.#deps.runner,
					capability: await this.#capabilityPromise,
					root,
					sessionId,
					file: baselinePath(start.agentDir, sessionId),
					timeoutMs: this.#deps.timeoutMs(),
					detection: this.#deps.detection?.(),
					priorMutations: start.priorMutations,
					reason: start.reason,
					originals: () => this.#originals,
					afterScan: () => this.#forgetCreated(),
					signal,
				});
				if (signal.aborted || this.#deps.closed()) return;
				this.#state = state;
				if ("file" in state && state.file) {
					this.#deps.pi.appendEntry<StateEntry>(STATE_ENTRY, { version: 1, baselineFile: state.file, root });
				}
			});
		} catch {
			// Closed while starting: the baseline stays pending until the runtime is replaced.
		}
		if (this.#state.status === "pending")
			this.#state = { status: "failed", reason: "baseline capture was cancelled" };
		this.#deps.changed();
	}

	/** Files created outside write/edit while the capture ran held no code before the session. */
	#forgetCreated(): void {
		const created = this.#deps.captured?.((path) => this.#originals.has(path)) ?? [];
		for (const path of created) if (!this.#originals.has(path)) this.#originals.set(path, "");
	}

	/**
	 * A write/edit is about to change `path` while the capture runs: its current content is kept
	 * (one bounded synchronous read, in `tool_call`, before the tool runs), so the baseline describes
	 * the file as it was before the session changed it, whenever jscpd reads it. Nothing waits.
	 */
	noteEarlyWrite(path: string | undefined): void {
		if (this.#state.status !== "pending" || path === undefined || this.#originals.has(path)) return;
		const absolute = join(this.#root, path);
		// jscpd skips files over 1 MB by default: a larger file holds no baseline clone either. A new
		// file, or one that is not a regular file (a repository's FIFO would block Pi), holds none.
		const original = readRegularFile(absolute, MAX_ORIGINAL_BYTES);
		this.#originals.set(path, original.status === "read" ? original.text : "");
	}

	/**
	 * A checkout, pull, reset, rebase, merge or stash pop changed these paths (worktree.ts): they are
	 * baseline, rebased at the next scan. A path with content is the session's own file: its baseline
	 * becomes that content; the others are taken from the scan (identity.ts `rebaseFromReport`).
	 */
	noteMoves(moves: ReadonlyMap<string, string | undefined>): void {
		for (const [path, content] of moves) this.#moves.set(path, content);
	}

	/**
	 * The baseline index a report is compared with: pending moves applied (and persisted, so a
	 * reload keeps them). `own` are the paths the session changed.
	 */
	indexFor(groups: readonly CloneGroup[], own: ReadonlySet<string>): LineIndex {
		const state = this.#state;
		if (state.status !== "accepted" && state.status !== "partial") return EMPTY_INDEX;
		if (this.#moves.size === 0) return state.index;
		const contents = new Map<string, string>();
		for (const [path, content] of this.#moves) if (content !== undefined) contents.set(path, content);
		// The session's own moved files are not taken from the report, but their partners are.
		const mine = (path: string) => own.has(path) || contents.has(path);
		const fromReport = rebaseFromReport(state.index, groups, new Set(this.#moves.keys()), mine);
		const index = rebaseFromContents(fromReport, groups, contents);
		this.#moves.clear();
		this.#state = { ...state, index };
		if (state.file) {
			writeBaseline(state.file, {
				version: 2,
				sessionId: this.#sessionId,
				root: this.#root,
				capturedAt: state.capturedAt,
				complete: state.status === "accepted",
				reason: state.reason,
				groups: state.groups,
				lines: serialiseIndex(index),
				// A reload keeps comparing with the kinds this baseline was captured with.
				detection: state.detection,
				...(state.fallback ? { fallback: state.fallback } : {}),
			});
		}
		return index;
	}

	/** Whether a move of the work tree waits to be re-baselined (the next check scans the whole project). */
	get movesPending(): boolean {
		return this.#moves.size > 0;
	}

	/** Resolves when the restore or capture has finished. */
	settled(): Promise<void> {
		return this.#pending;
	}
}
