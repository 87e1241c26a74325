/**
 * Runs the outside-change comparison ({@link OutsideChangeDetector}) in the background for one
 * runtime: one probe at a time (a newer one or a new run aborts it), results dropped when the
 * lifecycle moved on meanwhile. A probe starts on a later macrotask: the caller (a Pi handler) has
 * returned before git is spawned or a folder is read. The caller decides how found paths count.
 * Comparisons start as soon as the reference walk exists, also while the baseline is captured.
 */
import type { StaleGuard } from "@pi-lifecycle/lifecycle-kit";
import { ABORT_REASON } from "../core/abort-reason.js";
import { nextMacrotask } from "./defer.js";
import type { SkippedIgnoreFile } from "./ignore-files.js";
import { handOver, handOverKey, takeHandedOver } from "./walk-handover.js";
import { type Detection, type DetectionMode, OutsideChangeDetector, type Snapshot } from "./worktree.js";

/** What a probe needs from its owner. */
export interface OutsideProbeDeps {
	/** The session's changed files (own work when git finds a checkout or pull; `.gitignore` checks). */
	readonly known: () => Iterable<string>;
	/** Captures the lifecycle guard a probe must still match when it completes. */
	readonly guard: () => StaleGuard;
}

/** See the module comment. */
export class OutsideProbe {
	readonly #deps: OutsideProbeDeps;
	#detector: OutsideChangeDetector | undefined;
	#probe: AbortController | undefined;
	/** Who may take this runtime's last walk after a reload (walk-handover.ts). */
	#key: string | undefined;
	/** The reference walk being taken (undefined once taken, failed or before any). */
	#reference: Promise<void> | undefined;

	constructor(deps: OutsideProbeDeps) {
		this.#deps = deps;
	}

	/** How outside changes are detected (`none` before the first walk). */
	get mode(): DetectionMode {
		return this.#detector?.mode ?? "none";
	}

	/** Ignore files the last walk refused to read (and kept from jscpd). */
	get skipped(): readonly SkippedIgnoreFile[] {
		return this.#detector?.skipped ?? [];
	}

	/** Whether the reference walk is being taken (a command must not change files before it). */
	get referencePending(): boolean {
		return this.#reference !== undefined;
	}

	/** Resolves once the reference walk is taken (at once when none is being taken). */
	referenceTaken(): Promise<void> {
		return this.#reference ?? Promise.resolve();
	}

	/**
	 * Binds to a project root (session start); git runs only when the project is trusted. After a
	 * reload of the same session, the first comparison starts from the last walk before it.
	 */
	bind(root: string, trusted: boolean, sessionId: string, reason: string): void {
		this.abort();
		this.#reference = undefined;
		this.#detector = new OutsideChangeDetector(root, trusted);
		this.#key = handOverKey(sessionId, root, trusted);
		const last = takeHandedOver<Snapshot>(this.#key);
		if (last && reason === "reload") this.#detector.adopt(last);
	}

	/** Aborts the running probe; at a reload, hands the last walk to the next runtime. */
	close(reason: string | undefined): void {
		this.abort();
		const last = this.#detector?.last;
		if (reason === "reload" && last && this.#key) handOver(this.#key, last);
	}

	/** Why the last comparison may have missed changes (undefined when it saw everything). */
	get incomplete(): string | undefined {
		return this.#detector?.incomplete;
	}

	/** Notes a path recorded through a built-in tool since the last snapshot. */
	noteRecorded(path: string): void {
		this.#detector?.noteRecorded(path);
	}

	/**
	 * The baseline scan has finished: returns the files created outside write/edit while it ran (the
	 * baseline forgets them) and notes the ones changed (checks say so). `hasOriginal`: a file whose
	 * content before the session is known (a write/edit while the capture ran).
	 */
	captureEnd(hasOriginal: (path: string) => boolean): string[] {
		return this.#detector?.captureEnd(hasOriginal) ?? [];
	}

	/** Takes the reference walk (with the baseline); {@link referenceTaken} resolves after it. */
	snapshot(signal?: AbortSignal): Promise<void> {
		const detector = this.#detector;
		if (!detector) return Promise.resolve();
		const reference = (async () => {
			await nextMacrotask();
			await detector.reset(signal).catch(() => undefined);
		})();
		const tracked = reference.finally(() => {
			if (this.#reference === tracked) this.#reference = undefined;
		});
		this.#reference = tracked;
		return tracked;
	}

	/**
	 * Schedules a comparison (it starts on a later macrotask) and aborts the previous one. Resolves to
	 * the project paths changed outside the built-in tools since the last comparison and the paths a
	 * move of the work tree brought in (both empty before the baseline is accepted), or undefined
	 * when the probe was aborted or the lifecycle moved on. Never rejects.
	 */
	start(): Promise<Detection | undefined> {
		this.abort();
		const probe = new AbortController();
		this.#probe = probe;
		const guard = this.#deps.guard();
		return (async () => {
			await nextMacrotask();
			const outside = await this.#compare(probe.signal).catch(() => undefined);
			if (probe.signal.aborted || !guard.isCurrent() || this.#probe !== probe) return undefined;
			this.#probe = undefined;
			return outside;
		})();
	}

	async #compare(signal: AbortSignal): Promise<Detection | undefined> {
		if (signal.aborted) return undefined;
		if (!this.#detector) return { outside: [], rebase: new Map() };
		const outside = await this.#detector.detect(this.#deps.known(), signal);
		return signal.aborted ? undefined : outside;
	}

	/** Aborts the running probe (new run, tree navigation, shutdown). */
	abort(): void {
		this.#probe?.abort(ABORT_REASON);
		this.#probe = undefined;
	}
}
