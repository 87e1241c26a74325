/**
 * Runs the outside-change comparison ({@link OutsideChangeDetector}) in the background for one
 * runtime: one probe at a time (a newer one or a new run aborts it), results dropped when the
 * lifecycle moved on meanwhile.
 */
import type { StaleGuard } from "@pi-lifecycle/lifecycle-kit";
import { OutsideChangeDetector } from "./worktree.js";

/** What a probe needs from its owner. */
export interface OutsideProbeDeps {
	/** Files already known to the session (re-signed even outside git). */
	readonly known: () => Iterable<string>;
	/** Whether comparisons are meaningful now (the baseline is accepted). */
	readonly ready: () => boolean;
	/** Records paths changed outside the built-in tools (a new mutation generation). */
	readonly record: (paths: readonly string[]) => void;
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

	/** Binds to a project root (session start). */
	bind(root: string): void {
		this.abort();
		this.#detector = new OutsideChangeDetector(root);
	}

	/** Notes a path recorded through a built-in tool since the last snapshot. */
	noteRecorded(path: string): void {
		this.#detector?.noteRecorded(path);
	}

	/** Takes the reference snapshot (with the baseline). */
	async snapshot(signal?: AbortSignal): Promise<void> {
		await this.#detector?.reset(this.#deps.known(), signal);
	}

	/** Compares in the background, records what changed, then runs `then` if still current. */
	start(then: () => void): void {
		this.abort();
		const probe = new AbortController();
		this.#probe = probe;
		const guard = this.#deps.guard();
		void (async () => {
			await this.#compare(probe.signal).catch(() => undefined);
			if (probe.signal.aborted || !guard.isCurrent() || this.#probe !== probe) return;
			this.#probe = undefined;
			then();
		})();
	}

	async #compare(signal: AbortSignal): Promise<void> {
		if (!this.#detector || !this.#deps.ready()) return;
		const outside = await this.#detector.detect(this.#deps.known(), signal);
		if (outside.length > 0 && !signal.aborted) this.#deps.record(outside);
	}

	/** Aborts the running probe (new run, tree navigation, shutdown). */
	abort(): void {
		this.#probe?.abort();
		this.#probe = undefined;
	}
}
