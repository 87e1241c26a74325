/**
 * The per-runtime controller: owns the settings, capability, baseline, mutation state, scheduler,
 * process runner and status of one extension runtime, and exposes the lifecycle operations the Pi
 * adapter calls. Nothing else mutates this state.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type LifecycleIdentity, loadSettings } from "@pi-lifecycle/lifecycle-kit";
import {
	type BaselineState,
	baselinePath,
	captureBaseline,
	isStateEntry,
	readBaseline,
	STATE_ENTRY,
	type StateEntry,
	stateFromFile,
} from "./baseline.js";
import { type CheckOutcome, runCheckpoint } from "./checkpoint.js";
import { DEFAULT_SETTINGS, type JscpdSettings, SETTINGS_SPEC } from "./config.js";
import { type Capability, candidates, probeCapability } from "./locate.js";
import { MutationState, type ReplayEntry, replayBranch } from "./mutations.js";
import { canonicalPath, projectPathOf } from "./paths.js";
import { FINDINGS_MESSAGE, footerText, STATUS_KEY } from "./presentation.js";
import { ProcessRunner, type RunnerLimits } from "./runner.js";
import { type CheckRecord, CheckScheduler } from "./scheduler.js";
import { OutsideChangeDetector } from "./worktree.js";

/** Options of the extension factory (tests and embedders). */
export interface JscpdOptions {
	/** Pi's agent directory (settings and baselines); `getAgentDir()` by default. */
	readonly agentDir?: () => string;
	/** Use exactly this jscpd executable (skips discovery). */
	readonly executable?: string;
	/** Runner limits (output/report bounds, temp root). */
	readonly limits?: Partial<RunnerLimits>;
	/** Test hook: receives each runtime's controller. */
	readonly onController?: (controller: JscpdController) => void;
}

/** A snapshot for `/jscpd status`. */
export interface StatusView {
	readonly root: string | undefined;
	readonly settings: JscpdSettings;
	readonly settingsSources: readonly string[];
	readonly capability: Capability | { readonly status: "probing" };
	readonly baseline: {
		readonly status: BaselineState["status"];
		readonly groups?: number;
		readonly reason?: string;
		readonly file?: string;
	};
	readonly changedFiles: number;
	readonly acknowledged: number;
	readonly scheduler: ReturnType<CheckScheduler["snapshot"]>;
	readonly lastOutcome: CheckOutcome | undefined;
	readonly lastRecord: CheckRecord | undefined;
	/** The most recent automatic check records, oldest first (at most 10). */
	readonly recentChecks: readonly CheckRecord[];
	readonly externalDetection: "git" | "stat" | "none";
}

/** See the module comment. */
export class JscpdController {
	readonly #pi: Pick<ExtensionAPI, "sendMessage" | "appendEntry">;
	readonly #identity: LifecycleIdentity;
	readonly #options: JscpdOptions;
	readonly #runner: ProcessRunner;
	readonly #mutations = new MutationState();
	readonly #scheduler: CheckScheduler;
	#ctx: ExtensionContext | undefined;
	#root: string | undefined;
	#settings: JscpdSettings = DEFAULT_SETTINGS;
	#sources: string[] = [];
	#warned = false;
	#capability: Capability | undefined;
	#capabilityPromise: Promise<Capability> = Promise.resolve({ status: "unavailable", reason: "not started" });
	#baseline: BaselineState = { status: "none" };
	#baselinePromise: Promise<void> = Promise.resolve();
	#outside: OutsideChangeDetector | undefined;
	#probe: AbortController | undefined;
	#lastOutcome: CheckOutcome | undefined;
	readonly #records: CheckRecord[] = [];
	#shutdown = false;

	constructor(
		pi: Pick<ExtensionAPI, "sendMessage" | "appendEntry">,
		identity: LifecycleIdentity,
		options: JscpdOptions,
	) {
		this.#pi = pi;
		this.#identity = identity;
		this.#options = options;
		this.#runner = new ProcessRunner(options.limits);
		this.#scheduler = new CheckScheduler({
			runAutomatic: (signal, generation) => this.#runAutomatic(signal, generation),
			scope: () => `${this.#identity.guard().id}|${this.#root ?? ""}`,
			blocker: () => this.#blocker(),
			onSettled: (record) => {
				this.#records.push(record);
				if (this.#records.length > 10) this.#records.shift();
				this.#updateFooter();
			},
		});
	}

	/** session_start: settings, project identity, restored state, background probe and baseline. */
	start(ctx: ExtensionContext, reason: string): void {
		this.#ctx = ctx;
		this.#root = canonicalPath(ctx.cwd) ?? ctx.cwd;
		this.#outside = new OutsideChangeDetector(this.#root);
		this.reloadSettings(ctx);
		const entries = ctx.sessionManager.getBranch() as unknown as ReplayEntry[];
		const { mutations } = this.#replay(entries);
		const root = this.#root;
		const trusted = safeTrusted(ctx);
		this.#capabilityPromise = probeCapability(
			this.#runner,
			candidates({
				root,
				projectTrusted: trusted,
				pathEnv: process.env.PATH,
				override: this.#options.executable,
			}),
			{ cwd: root },
		).then((capability) => {
			this.#capability = capability;
			this.#updateFooter();
			return capability;
		});
		const restored = this.#restoreBaseline(entries, root);
		this.#baselinePromise = restored
			? this.#takeSnapshot()
			: this.#captureBaseline(ctx.sessionManager.getSessionId(), mutations, reason);
		this.#updateFooter();
	}

	/** Reloads settings (session start, on/off); warns once per runtime about rejected files. */
	reloadSettings(ctx: ExtensionContext): void {
		const loaded = loadSettings(SETTINGS_SPEC, {
			agentDir: this.agentDir(),
			cwd: ctx.cwd,
			projectTrusted: safeTrusted(ctx),
		});
		this.#settings = loaded.value;
		this.#sources = loaded.sources.map((s) => `${s.scope}: ${s.status} (${s.path})`);
		if (loaded.warnings.length > 0 && !this.#warned) {
			this.#warned = true;
			notify(ctx, loaded.warnings.join("\n"), "warning");
		}
	}

	/** Pi's agent directory. */
	agentDir(): string {
		return this.#options.agentDir?.() ?? "";
	}

	#replay(entries: readonly ReplayEntry[]): { mutations: number } {
		const root = this.#root ?? "";
		const cwd = this.#ctx?.cwd ?? root;
		return replayBranch(this.#mutations, entries, {
			findingsType: FINDINGS_MESSAGE,
			canonical: (path) => projectPathOf(root, cwd, path),
		});
	}

	#restoreBaseline(entries: readonly ReplayEntry[], root: string): boolean {
		for (let i = entries.length - 1; i >= 0; i--) {
			const entry = entries[i];
			if (entry?.type !== "custom" || entry.customType !== STATE_ENTRY || !isStateEntry(entry.data)) continue;
			const file = readBaseline(entry.data.baselineFile, root);
			if (!file) return false;
			this.#baseline = stateFromFile(entry.data.baselineFile, file);
			return true;
		}
		return false;
	}

	async #takeSnapshot(signal?: AbortSignal): Promise<void> {
		await this.#outside?.reset(this.#mutations.changed, signal);
	}

	async #captureBaseline(sessionId: string, priorMutations: number, reason: string): Promise<void> {
		this.#baseline = { status: "pending" };
		const root = this.#root ?? "";
		try {
			await this.#scheduler.runExplicit(async (signal) => {
				await this.#takeSnapshot(signal);
				const state = await captureBaseline({
					runner: this.#runner,
					capability: await this.#capabilityPromise,
					root,
					sessionId,
					file: baselinePath(this.agentDir(), sessionId),
					timeoutMs: this.#settings.timeoutMs,
					priorMutations,
					reason,
					signal,
				});
				if (signal.aborted || this.#shutdown) return;
				this.#baseline = state;
				if ("file" in state && state.file) {
					this.#pi.appendEntry<StateEntry>(STATE_ENTRY, { version: 1, baselineFile: state.file, root });
				}
			});
		} catch {
			// Closed while starting: the baseline stays pending until the runtime is replaced.
		}
		if (this.#baseline.status === "pending")
			this.#baseline = { status: "failed", reason: "baseline capture was cancelled" };
		this.#updateFooter();
	}

	/** tool_call for write/edit: the first mutation waits for the baseline, bounded by the timeout. */
	async awaitBaseline(): Promise<void> {
		if (this.#baseline.status !== "pending") return;
		let timer: NodeJS.Timeout | undefined;
		await Promise.race([
			this.#baselinePromise,
			new Promise<void>((resolve) => {
				timer = setTimeout(resolve, this.#settings.timeoutMs);
			}),
		]);
		clearTimeout(timer);
	}

	/** tool_result of a successful built-in write/edit: records the canonical path and bumps the generation. */
	recordMutation(ctx: ExtensionContext, path: unknown): void {
		if (this.#shutdown || !this.#root || typeof path !== "string") return;
		const projectPath = projectPathOf(this.#root, ctx.cwd, path);
		if (!projectPath) return;
		this.#mutations.record(projectPath);
		this.#outside?.noteRecorded(projectPath);
		this.#scheduler.markMutation();
	}

	/** A new prompt or run: cancel automatic work; its generation stays unattempted. */
	cancelAutomatic(): void {
		this.#probe?.abort();
		this.#probe = undefined;
		if (this.#scheduler.cancelAutomatic()) this.#updateFooter();
	}

	/**
	 * Starts a background check (agent_settled today; reusable for other idle triggers). Returns at
	 * once: it compares the work tree for outside changes, then asks the scheduler for one check.
	 */
	startBackgroundCheck(ctx: ExtensionContext): void {
		this.#ctx = ctx;
		if (this.#shutdown || !this.#settings.enabled) return;
		this.#probe?.abort();
		const probe = new AbortController();
		this.#probe = probe;
		const guard = this.#identity.guard();
		void (async () => {
			await this.#detectOutsideChanges(probe.signal).catch(() => undefined);
			if (probe.signal.aborted || !guard.isCurrent() || this.#probe !== probe) return;
			this.#probe = undefined;
			this.#scheduler.requestAutomatic();
			this.#updateFooter();
		})();
	}

	async #detectOutsideChanges(signal: AbortSignal): Promise<void> {
		if (!this.#outside || this.#baseline.status !== "accepted") return;
		const outside = await this.#outside.detect(this.#mutations.changed, signal);
		if (outside.length === 0 || signal.aborted) return;
		for (const path of outside) this.#mutations.record(path);
		this.#scheduler.markMutation();
	}

	#blocker(): string | undefined {
		if (this.#shutdown) return "shut down";
		if (!this.#settings.enabled) return "disabled";
		if (this.#baseline.status !== "accepted") return `baseline ${this.#baseline.status}`;
		if (this.#capability?.status !== "available") return "jscpd unavailable";
		const ctx = this.#ctx;
		if (!ctx || !this.#identity.snapshot.active) return "inactive";
		try {
			if (!ctx.isIdle()) return "busy";
		} catch {
			return "inactive";
		}
		return undefined;
	}

	#runAutomatic(signal: AbortSignal, generation: number) {
		this.#updateFooter("checking");
		const guard = this.#identity.guard();
		return runCheckpoint(
			{
				pi: this.#pi,
				runner: this.#runner,
				root: this.#root ?? "",
				capability: () => this.#capabilityPromise,
				baseline: () => this.#baseline,
				mutations: this.#mutations,
				timeoutMs: () => this.#settings.timeoutMs,
				maxFindings: () => this.#settings.maxFindings,
				context: () => this.#ctx,
				stillCurrent: () => guard.isCurrent() && !this.#shutdown,
				record: (outcome) => {
					this.#lastOutcome = outcome;
				},
			},
			signal,
			generation,
		);
	}

	/** session_before_tree: invalidate automatic work before the target branch is restored. */
	invalidate(): void {
		this.#probe?.abort();
		this.#probe = undefined;
		this.#scheduler.invalidate();
	}

	/** session_tree: rebuild changed files and acknowledgements from the target branch. */
	restoreBranch(ctx: ExtensionContext): void {
		this.#ctx = ctx;
		this.invalidate();
		this.#replay(ctx.sessionManager.getBranch() as unknown as ReplayEntry[]);
		this.#updateFooter();
	}

	/** session_shutdown: close the scheduler first, abort owned work, await cleanup. Never scans. */
	async shutdown(): Promise<void> {
		this.#shutdown = true;
		this.#probe?.abort();
		this.#probe = undefined;
		await this.#scheduler.close();
		await this.#runner.close();
	}

	/** Runs explicit work with priority over automatic checks. */
	explicit<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
		return this.#scheduler.runExplicit(work);
	}

	/** What explicit commands need. */
	get state() {
		return {
			root: this.#root,
			runner: this.#runner,
			capability: () => this.#capabilityPromise,
			baseline: this.#baseline,
			mutations: this.#mutations as Pick<MutationState, "changed" | "isAcknowledged">,
			settings: this.#settings,
		};
	}

	/** A status snapshot. */
	status(): StatusView {
		const b = this.#baseline;
		return {
			root: this.#root,
			settings: this.#settings,
			settingsSources: this.#sources,
			capability: this.#capability ?? { status: "probing" },
			baseline: {
				status: b.status,
				groups: "identities" in b ? b.identities.size : undefined,
				reason: "reason" in b ? b.reason : undefined,
				file: "file" in b ? b.file : undefined,
			},
			changedFiles: this.#mutations.changed.size,
			acknowledged: this.#mutations.acknowledgedCount,
			scheduler: this.#scheduler.snapshot(),
			lastOutcome: this.#lastOutcome,
			lastRecord: this.#records.at(-1),
			recentChecks: [...this.#records],
			externalDetection: this.#outside?.mode ?? "none",
		};
	}

	/** Resolves when background work (baseline, checks) has finished; for tests and shutdown. */
	async settled(): Promise<void> {
		await this.#baselinePromise;
		await this.#scheduler.idle();
	}

	#updateFooter(hint?: "checking"): void {
		const ctx = this.#ctx;
		if (!ctx || this.#shutdown) return;
		const text = footerText({
			enabled: this.#settings.enabled,
			capability: this.#capability?.status,
			baseline: this.#baseline.status,
			checking: hint === "checking" || this.#scheduler.snapshot().automaticActive,
			outcome: this.#lastOutcome,
		});
		try {
			ctx.ui.setStatus(STATUS_KEY, text);
		} catch {
			// A stale ctx after replacement: nothing to update.
		}
	}
}

function safeTrusted(ctx: ExtensionContext): boolean {
	try {
		return ctx.isProjectTrusted();
	} catch {
		return false;
	}
}

/** Tells the user something: a notification with a UI, stderr without one. */
export function notify(ctx: ExtensionContext, text: string, level: "info" | "warning" | "error"): void {
	if (ctx.hasUI) ctx.ui.notify(text, level);
	else process.stderr.write(`${text}\n`);
}
