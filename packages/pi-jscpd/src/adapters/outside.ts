/**
 * Runs the outside-change comparison ({@link OutsideChangeDetector}) in the background for one
 * runtime: one probe at a time (a newer one or a new run aborts it), results dropped when the
 * lifecycle moved on meanwhile. A probe starts on a later macrotask: the caller (a Pi handler) has
 * returned before git is spawned or a file is stat-ed. The caller decides how found paths count.
 */
import type { StaleGuard } from "@pi-lifecycle/lifecycle-kit";
import { ABORT_REASON } from "../core/abort-reason.js";
import { nextMacrotask } from "./defer.js";
import { type Detection, OutsideChangeDetector } from "./worktree.js";

/** What a probe needs from its owner. */
export interface OutsideProbeDeps {
	/** Files already known to the session (re-signed even outside git). */
	readonly known: () => Iterable<string>;
	/** Whether comparisons are meaningful now (the baseline is accepted). */
	readonly ready: () => boolean;
	/** Captures the lifecycle guard a probe must still match when it completes. */
	readonly guard: () => StaleGuard;
}

/** See the module comment. */
export class OutsideProbe {
	readonly #deps: OutsideProbeDeps;
	#detector: OutsideChangeDetector | undefined;
	#probe: AbortController | undefined;

	constructor(deps: OutsideProbeDeps) {
		this.#deps = deps;
	}

	/** How outside changes are detected (`none` before the first snapshot). */
	get mode(): OutsideChangeDetector["mode"] {
		return this.#detector?.mode ?? "none";
	}

	/** Binds to a project root (session start); git runs only when the project is trusted. */
	bind(root: string, trusted: boolean): void {
		this.abort();
		this.#detector = new OutsideChangeDetector(root, trusted);
	}

	/** Why the last comparison may have missed changes (undefined when it saw everything). */
	get incomplete(): string | undefined {
		return this.#detector?.incomplete;
	}

	/** Notes a path recorded through a built-in tool since the last snapshot. */
	noteRecorded(path: string): void {
		this.#detector?.noteRecorded(path);
	}

	/** Notes that a command outside the built-in tools (bash) ran. */
	noteOpaque(): void {
		this.#detector?.noteOpaque();
	}

	/** Whether the last comparison could not see a command's changes (outside git). */
	get unseenCommand(): boolean {
		return this.#detector?.unseenCommand ?? false;
	}

	/** The baseline scan has finished: notes paths changed outside write/edit while it ran. */
	async captureEnd(signal?: AbortSignal): Promise<void> {
		await this.#detector?.noteCaptureEnd(this.#deps.known(), signal);
	}

	/** Takes the reference snapshot (with the baseline). */
	async snapshot(signal?: AbortSignal): Promise<void> {
		await this.#detector?.reset(this.#deps.known(), signal);
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
		if (!this.#detector || !this.#deps.ready()) return { outside: [], rebase: new Map() };
		const outside = await this.#detector.detect(this.#deps.known(), signal);
		return signal.aborted ? undefined : outside;
	}

	/** Aborts the running probe (new run, tree navigation, shutdown). */
	abort(): void {
		this.#probe?.abort(ABORT_REASON);
		this.#probe = undefined;
	}
}
