/**
 * The per-runtime controller: owns the settings, baseline keeper, mutation state, scheduler,
 * process runner and status of one extension runtime, and exposes the lifecycle operations the Pi
 * adapter calls. Nothing else mutates this state; the modules it owns get narrow callbacks.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type LifecycleIdentity, readResetAnnouncement } from "@pi-lifecycle/lifecycle-kit";
import { type CheckOutcome, runCheckpoint } from "./checkpoint.js";
import { nextMacrotask } from "./defer.js";
import { type AckRecord, lostAtReset } from "./deliveries.js";
import { incompleteReason } from "./ignores.js";
import { MutationState, type ReplayEntry, replayBranch } from "./mutations.js";
import { OutsideProbe } from "./outside.js";
import { canonicalPath, projectPathOf } from "./paths.js";
import { FINDINGS_MESSAGE, footerText, STATUS_KEY } from "./presentation.js";
import type { CloneGroup } from "./report.js";
import { ProcessRunner, type RunnerLimits } from "./runner.js";
import { type AutomaticResult, type CheckRecord, CheckScheduler } from "./scheduler.js";
import { BaselineKeeper } from "./session-baseline.js";
import { SettingsHolder } from "./settings-holder.js";
import { baselineView, type StatusView, withUnseenCommands } from "./status.js";
import { blockReason, isContinuationStart } from "./triggers.js";
import { reportIgnoredOnce, safeIdle, safeTrusted } from "./ui.js";
import type { Detection } from "./worktree.js";

export type { StatusView } from "./status.js";
export { notify } from "./ui.js";

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

/** See the module comment. */
export class JscpdController {
	readonly #pi: Pick<ExtensionAPI, "sendMessage" | "appendEntry">;
	readonly #identity: LifecycleIdentity;
	readonly #options: JscpdOptions;
	readonly #runner: ProcessRunner;
	readonly #mutations = new MutationState();
	readonly #scheduler: CheckScheduler;
	readonly #baseline: BaselineKeeper;
	#ctx: ExtensionContext | undefined;
	#root: string | undefined;
	readonly #settings = new SettingsHolder();
	readonly #outside: OutsideProbe;
	#lastOutcome: CheckOutcome | undefined;
	readonly #records: CheckRecord[] = [];
	#lastRun = 0;
	/** The last settle's request was blocked (probe or baseline not ready): retried when they are. */
	#settleBlocked = false;
	#redelivered = 0;
	#shutdown = false;
	/** The outside-change probe of the trigger being handled, handed to the check it starts. */
	#triggerProbe: Promise<Detection | undefined> | undefined;
	readonly #reportIgnored = reportIgnoredOnce();
	/** Told whether the first write/edit must wait for the baseline (the adapter arms `tool_call`). */
	#baselineWait: ((pending: boolean) => void) | undefined;

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
			blocker: (atRest) =>
				blockReason({
					shutdown: this.#shutdown,
					enabled: this.#settings.value.enabled,
					baseline: this.#baseline.state.status,
					capability: this.#baseline.capability?.status,
					active: this.#ctx !== undefined && this.#identity.snapshot.active,
					idle: () => safeIdle(this.#ctx),
					atRest,
				}),
			onSettled: (record) => {
				this.#records.push(record);
				if (this.#records.length > 10) this.#records.shift();
				this.#updateFooter();
			},
		});
		this.#outside = new OutsideProbe({
			known: () => this.#mutations.changed,
			ready: () => this.#baseline.state.status === "accepted",
			guard: () => this.#identity.guard(),
		});
		this.#baseline = new BaselineKeeper({
			pi,
			runner: this.#runner,
			explicit: (work) => this.#scheduler.runExplicit(work),
			snapshot: (signal) => this.#outside.snapshot(signal),
			captured: (signal) => this.#outside.captureEnd(signal),
			timeoutMs: () => this.#settings.value.timeoutMs,
			closed: () => this.#shutdown,
			changed: () => {
				if (this.#settleBlocked) this.#settleBlocked = this.#scheduler.requestAutomatic() === "blocked";
				this.#syncBaselineWait();
				this.#updateFooter();
			},
		});
	}

	/** session_start: settings, project identity, restored state, background probe and baseline. */
	start(ctx: ExtensionContext, reason: string): void {
		this.#ctx = ctx;
		const root = canonicalPath(ctx.cwd) ?? ctx.cwd;
		this.#root = root;
		const trusted = safeTrusted(ctx);
		this.#runner.bind({ root, trusted });
		this.#outside.bind(root, trusted);
		this.reloadSettings(ctx);
		const entries = ctx.sessionManager.getBranch() as unknown as ReplayEntry[];
		const { mutations, malformed } = this.#replay(entries);
		const ignored = this.#baseline.start({
			root,
			sessionId: ctx.sessionManager.getSessionId(),
			agentDir: this.agentDir(),
			entries,
			priorMutations: mutations,
			reason,
			trusted,
			executable: this.#options.executable,
		});
		if (malformed > 0) ignored.push(`${malformed} ${FINDINGS_MESSAGE} message(s) with unreadable details`);
		this.#reportIgnored(ctx, ignored);
		this.#syncBaselineWait();
		this.#updateFooter();
	}

	/** Registers who is told whether `tool_call` must wait for a pending baseline (one listener). */
	onBaselineWait(listener: (pending: boolean) => void): void {
		this.#baselineWait = listener;
		this.#syncBaselineWait();
	}

	#syncBaselineWait(): void {
		this.#baselineWait?.(!this.#shutdown && this.#baseline.state.status === "pending");
	}

	/** Reloads settings (session start, on/off; `session`: see SettingsHolder.reload); warns once per runtime. */
	reloadSettings(ctx: ExtensionContext, session?: boolean | null): void {
		this.#settings.reload(ctx, this.agentDir(), session);
	}

	/** Pi's agent directory. */
	agentDir(): string {
		return this.#options.agentDir?.() ?? "";
	}

	#replay(entries: readonly ReplayEntry[]): { mutations: number; malformed: number } {
		const root = this.#root ?? "";
		const cwd = this.#ctx?.cwd ?? root;
		return replayBranch(this.#mutations, entries, {
			findingsType: FINDINGS_MESSAGE,
			canonical: (path) => projectPathOf(root, cwd, path),
		});
	}

	/** tool_call for write/edit while the baseline is pending: never waits (see BaselineKeeper.noteEarlyWrite). */
	noteEarlyWrite(ctx: ExtensionContext, path: unknown): void {
		if (this.#root && typeof path === "string")
			this.#baseline.noteEarlyWrite(projectPathOf(this.#root, ctx.cwd, path));
	}

	/** tool_result of a successful built-in write/edit: records the canonical path and bumps the generation. */
	recordMutation(ctx: ExtensionContext, path: unknown): void {
		if (this.#shutdown || !this.#root || typeof path !== "string") return;
		const projectPath = projectPathOf(this.#root, ctx.cwd, path);
		if (!projectPath) return;
		this.#mutations.record(projectPath);
		this.#outside.noteRecorded(projectPath);
		this.#scheduler.markMutation();
	}

	/** A command outside the built-in tools ran (bash): outside git, its changes cannot be seen. */
	readonly noteCommand = (): void => this.#outside.noteOpaque();

	/** A `jscpd_run` result is delivered to the model: acknowledge the findings it listed. */
	acknowledgeDelivered(acks: readonly AckRecord[]): void {
		if (!this.#shutdown) this.#mutations.acknowledge(acks);
	}

	/** A new prompt or run: cancel automatic work; its generation stays unattempted. */
	cancelAutomatic(): void {
		this.#outside.abort();
		this.#settleBlocked = false;
		if (this.#scheduler.cancelAutomatic()) this.#updateFooter();
	}

	/** agent_settled: only schedules (O(1), nothing spawned or read here); see {@link #trigger}. */
	startBackgroundCheck(ctx: ExtensionContext): void {
		this.#ctx = ctx;
		if (this.#shutdown || !this.#settings.value.enabled) return;
		this.#trigger(false);
	}

	/**
	 * agent_start: at a boundary continuation (not the first of its run, not a retry or compaction
	 * retry: `recovery`) the tree is at rest; a check is claimed like at the settle, never awaited.
	 */
	onAttemptStart(ctx: ExtensionContext, recovery = false): void {
		const snapshot = this.#identity.snapshot;
		const continuation = isContinuationStart(this.#lastRun, snapshot) && !recovery;
		this.#lastRun = snapshot.run;
		if (!continuation || this.#shutdown || !this.#settings.value.enabled) return;
		this.#ctx = ctx;
		this.#trigger(true);
	}

	/**
	 * One trigger. The outside-change probe is scheduled first; a check that starts now scans the same
	 * tree and takes the probe's paths as its own changed files. Otherwise they are a new generation
	 * and, after a settle, a check is requested (a continuation leaves it to the next trigger).
	 */
	#trigger(atRest: boolean): void {
		const probe = this.#outside.start();
		this.#triggerProbe = probe;
		const answer = this.#scheduler.requestAutomatic({ atRest });
		this.#triggerProbe = undefined;
		if (answer === "started") {
			this.#settleBlocked = false;
			return;
		}
		void probe.then((found) => {
			if (found === undefined || this.#shutdown) return;
			this.#recordOutside(found, true);
			this.#lastOutcome = withUnseenCommands(this.#lastOutcome, this.#outside.unseenCommand);
			if (!atRest) this.#settleBlocked = this.#scheduler.requestAutomatic() === "blocked";
			this.#updateFooter();
		});
	}

	/**
	 * Records paths changed outside the built-in tools (`newGeneration` unless a running check covers
	 * them) and hands the paths a checkout, pull, reset or stash pop brought in to the baseline.
	 */
	#recordOutside(found: Detection, newGeneration: boolean): void {
		this.#baseline.noteMoves(found.rebase);
		if (found.outside.length === 0) return;
		for (const path of found.outside) this.#mutations.record(path);
		if (newGeneration) this.#scheduler.markMutation();
	}

	/**
	 * `pi-lifecycle:reset:v1` for this session: findings delivered since the last model answer and
	 * dropped by the reset were never seen. Withdraw their acknowledgements and check again now (a
	 * reset boundary is at rest), so they are delivered into the new window.
	 */
	onReset(payload: unknown): void {
		const ctx = this.#ctx;
		// Read once: another extension's payload may answer differently (or throw) on a second read.
		const announcement = readResetAnnouncement(payload);
		if (!ctx || this.#shutdown || !announcement) return;
		try {
			if (announcement.session !== ctx.sessionManager) return;
			const lost = lostAtReset(ctx.sessionManager, announcement.entryId, FINDINGS_MESSAGE);
			const withdrawn = this.#mutations.unacknowledge(lost);
			if (withdrawn === 0) return;
			this.#redelivered += withdrawn;
		} catch {
			return; // A stale ctx after replacement: the new runtime replays its own branch.
		}
		this.#scheduler.markMutation();
		if (this.#settings.value.enabled) this.#scheduler.requestAutomatic({ atRest: true });
		this.#updateFooter();
	}

	/**
	 * One automatic check. Claimed synchronously by the scheduler (possibly inside a Pi handler), it
	 * starts on a later macrotask. A probe started by the same trigger is recorded before the
	 * check's selection and before its completion counts: as the check's own changes while it still
	 * owns its generation, as a new generation once it was cancelled or superseded.
	 */
	async #runAutomatic(signal: AbortSignal, generation: number): Promise<AutomaticResult> {
		const probe = this.#triggerProbe;
		const outside = probe?.then((found) => {
			if (found && !this.#shutdown) this.#recordOutside(found, signal.aborted);
		});
		try {
			await nextMacrotask();
			if (signal.aborted) return { kind: "retryable", reason: "cancelled" };
			return await this.#check(signal, generation, outside);
		} finally {
			await outside;
		}
	}

	#check(signal: AbortSignal, generation: number, outside: Promise<void> | undefined) {
		this.#updateFooter("checking");
		const guard = this.#identity.guard();
		return runCheckpoint(
			{
				outside,
				pi: this.#pi,
				runner: this.#runner,
				root: this.#root ?? "",
				capability: this.#baseline.probed,
				baseline: () => this.#baseline.state,
				index: (groups) => this.#baseline.indexFor(groups, this.#mutations.changed),
				mutations: this.#mutations,
				timeoutMs: () => this.#settings.value.timeoutMs,
				maxFindings: () => this.#settings.value.maxFindings,
				context: () => this.#ctx,
				stillCurrent: () => guard.isCurrent() && !this.#shutdown,
				inRun: () => this.#identity.snapshot.running,
				incomplete: () => this.#incomplete(),
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
		this.#outside.abort();
		this.#scheduler.invalidate();
	}

	/** session_tree: rebuild changed files and acknowledgements from the target branch. */
	restoreBranch(ctx: ExtensionContext): void {
		this.#ctx = ctx;
		this.invalidate();
		const { malformed } = this.#replay(ctx.sessionManager.getBranch() as unknown as ReplayEntry[]);
		if (malformed > 0)
			this.#reportIgnored(ctx, [`${malformed} ${FINDINGS_MESSAGE} message(s) with unreadable details`]);
		this.#updateFooter();
	}

	/** session_shutdown: kill the live process, close the scheduler, await cleanup. Never waits for a scan. */
	async shutdown(): Promise<void> {
		this.#shutdown = true;
		this.#syncBaselineWait();
		this.#outside.abort();
		// The runner SIGKILLs its live process first, so closing the scheduler never waits for a scan.
		const runner = this.#runner.close();
		await this.#scheduler.close();
		await runner;
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
			capability: this.#baseline.probed,
			baseline: this.#baseline.state,
			index: (groups: readonly CloneGroup[]) => this.#baseline.indexFor(groups, this.#mutations.changed),
			mutations: this.#mutations as Pick<MutationState, "changed" | "isAcknowledged">,
			settings: this.#settings.value,
			incomplete: this.#incomplete(),
		};
	}

	/** A status snapshot. */
	status(): StatusView {
		return {
			root: this.#root,
			settings: this.#settings.value,
			settingsSources: this.#settings.sources,
			capability: this.#baseline.capability ?? { status: "probing" },
			baseline: baselineView(this.#baseline.state),
			changedFiles: this.#mutations.changed.size,
			acknowledged: this.#mutations.acknowledgedCount,
			redelivered: this.#redelivered,
			scheduler: this.#scheduler.snapshot(),
			lastOutcome: this.#lastOutcome,
			lastRecord: this.#records.at(-1),
			recentChecks: [...this.#records],
			externalDetection: this.#outside.mode,
		};
	}

	/** Resolves when background work (baseline, checks) has finished; for tests and shutdown. */
	async settled(): Promise<void> {
		await this.#baseline.settled();
		await this.#scheduler.idle();
	}

	/** Why a check may miss changed files (the outside probe's gaps, files the default ignores hide). */
	#incomplete = () =>
		incompleteReason(this.#root, this.#mutations.changed, this.#outside.incomplete, this.#runner.trusted);

	#updateFooter(hint?: "checking"): void {
		const ctx = this.#ctx;
		if (!ctx || this.#shutdown) return;
		const text = footerText({
			enabled: this.#settings.value.enabled,
			capability: this.#baseline.capability?.status,
			baseline: this.#baseline.state.status,
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
