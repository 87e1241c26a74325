/**
 * The per-runtime controller: owns the settings, baseline keeper, mutation state (its only writer),
 * scheduler, process runner and outside-change probe of one extension runtime, and exposes the
 * lifecycle operations the Pi adapters call. The automatic-check flow (automatic.ts) and the
 * status/footer (status-keeper.ts) are its parts; they reach the mutation state through it.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
	createOnceReporter,
	type LifecycleIdentity,
	type ResetAnnouncement,
} from "@pi-lifecycle/lifecycle-kit";
import type { AckRecord } from "../core/deliveries.js";
import type { ReplayEntry } from "../core/mutations.js";
import { FINDINGS_MESSAGE } from "../core/presentation.js";
import { printablePath } from "../core/project-paths.js";
import type { StatusView } from "../core/status.js";
import type { Triage } from "../core/triage.js";
import { buildParts, type RuntimeParts, type RuntimeSession } from "./parts.js";
import { canonicalPath, projectPathOf } from "./paths.js";
import type { RunnerLimits } from "./runner.js";
import { skippedText } from "./scan-targets.js";
import { safeTrusted } from "./ui.js";
import type { ChangeSet } from "./worktree.js";

export type { StatusView } from "../core/status.js";
/** Options of the extension factory (tests and embedders). */
export interface JscpdOptions {
	/** Pi's agent directory (settings and baselines); `getAgentDir()` by default. */
	readonly agentDir?: () => string;
	/** Use exactly this jscpd executable (skips discovery). */
	readonly executable?: string;
	/** Runner limits (output/report/memory bounds, temp root). */
	readonly limits?: Partial<RunnerLimits>;
	/** Test hook: receives each runtime's controller. */
	readonly onController?: (controller: JscpdController) => void;
}

/** The session's folder when it is saved to a file (baseline retention looks there too). */
function sessionDirOf({ sessionManager }: ExtensionContext): string | undefined {
	try {
		return sessionManager.getSessionFile() ? sessionManager.getSessionDir() : undefined;
	} catch {}
}

/** See the module comment. */
export class JscpdController {
	readonly #options: JscpdOptions;
	readonly #session: RuntimeSession = { ctx: undefined, root: undefined, shutdown: false };
	readonly #parts: RuntimeParts;
	readonly #reportIgnored = createOnceReporter("pi-jscpd");
	readonly #reportSkippedOnce = createOnceReporter("pi-jscpd");
	/** Told whether the first write/edit must wait for the baseline (the adapter arms `tool_call`). */
	#baselineWait: ((pending: boolean) => void) | undefined;

	constructor(
		pi: Pick<ExtensionAPI, "sendMessage" | "appendEntry">,
		identity: LifecycleIdentity,
		options: JscpdOptions,
	) {
		this.#options = options;
		this.#parts = buildParts(pi, identity, options.limits, this.#session, () => this.#syncBaselineWait());
	}

	/** session_start: settings, project identity, restored state, background probe and baseline. */
	start(ctx: ExtensionContext, reason: string): void {
		this.#session.ctx = ctx;
		const root = canonicalPath(ctx.cwd) ?? ctx.cwd;
		this.#session.root = root;
		const trusted = safeTrusted(ctx);
		this.#parts.runner.bind({ root, trusted });
		this.#parts.outside.bind(root, trusted, ctx.sessionManager.getSessionId(), reason);
		this.reloadSettings(ctx);
		const entries = ctx.sessionManager.getBranch() as unknown as ReplayEntry[];
		const { mutations, malformed } = this.#replay(entries);
		// Whether replayed changes were checked is not saved (a reload may have killed it): check once.
		if (this.#parts.changes.view.changed.size > 0) this.#parts.scheduler.markMutation();
		const ignored = this.#parts.baseline.start({
			root,
			sessionId: ctx.sessionManager.getSessionId(),
			agentDir: this.agentDir(),
			entries,
			priorMutations: mutations,
			reason,
			trusted,
			executable: this.#options.executable,
			sessionDir: sessionDirOf(ctx),
		});
		if (malformed > 0) ignored.push(`${malformed} ${FINDINGS_MESSAGE} message(s) with unreadable details`);
		const dismissals = this.triage.replay(entries, true);
		if (dismissals > 0) ignored.push(`${dismissals} unreadable dismissal(s)`);
		this.#reportIgnoredState(ctx, ignored);
		this.#syncBaselineWait();
		void this.#parts.outside.referenceTaken().then(() => {
			this.#syncBaselineWait();
			this.#reportSkipped(ctx);
		});
		this.#parts.status.update();
	}

	/** Once per runtime: ignore files kept from jscpd (a FIFO, a huge file), so nobody wonders why. */
	#reportSkipped(ctx: ExtensionContext): void {
		const skipped = this.#parts.outside.skipped;
		if (skipped.length === 0 || this.#session.shutdown) return;
		this.#reportSkippedOnce(
			ctx,
			`pi-jscpd: ${printablePath(skippedText(skipped))}; jscpd is given the project's files one by one instead.`,
		);
	}

	#reportIgnoredState(ctx: ExtensionContext, ignored: readonly string[]): void {
		if (ignored.length > 0)
			this.#reportIgnored(
				ctx,
				`pi-jscpd: ignored saved state in this session — ${ignored.map(printablePath).join("; ")}.`,
			);
	}

	/** Registers who is told whether `tool_call` is needed: a baseline or reference walk is pending (one listener). */
	onBaselineWait(listener: (pending: boolean) => void): void {
		this.#baselineWait = listener;
		this.#syncBaselineWait();
	}

	#syncBaselineWait(): void {
		const pending = this.#parts.baseline.state.status === "pending" || this.#parts.outside.referencePending;
		this.#baselineWait?.(!this.#session.shutdown && pending);
	}

	/** Reloads settings (session start, on/off; `session`: see SettingsHolder.reload); warns once per runtime. */
	reloadSettings(ctx: ExtensionContext, session?: boolean | null): void {
		this.#parts.settings.reload(ctx, this.agentDir(), session);
		this.#parts.status.update(); // `enabled` may have changed: the footer follows at once
	}

	/** Pi's agent directory. */
	agentDir(): string {
		return this.#options.agentDir?.() ?? "";
	}

	#replay(entries: readonly ReplayEntry[]): { mutations: number; malformed: number } {
		const root = this.#session.root ?? "";
		return this.#parts.changes.replay(entries, root, this.#session.ctx?.cwd ?? root);
	}

	/**
	 * tool_call of a tool that may change files, while the baseline or the reference walk is pending:
	 * waits for the reference walk (one walk of the project, so a command's changes are never in it),
	 * then for write/edit keeps the file's content for the baseline (BaselineKeeper.noteEarlyWrite).
	 */
	async beforeChange(ctx: ExtensionContext, write: boolean, path: unknown): Promise<void> {
		await this.#parts.outside.referenceTaken();
		if (write && this.#session.root && typeof path === "string")
			this.#parts.baseline.noteEarlyWrite(projectPathOf(this.#session.root, ctx.cwd, path));
	}

	/** tool_result of a successful built-in write/edit: records the canonical path and bumps the generation. */
	recordMutation(ctx: ExtensionContext, path: unknown): void {
		if (!this.#session.shutdown && this.#session.root && typeof path === "string")
			this.#parts.changes.recordTool(this.#session.root, ctx.cwd, path);
	}

	/** Findings were delivered to the model (a `jscpd_run changed` result, a checkpoint message). */
	acknowledgeDelivered(acks: readonly AckRecord[]): void {
		if (!this.#session.shutdown) this.#parts.changes.acknowledge(acks);
	}

	/** A new prompt or run: cancel automatic work; its generation stays unattempted. */
	cancelAutomatic(): void {
		if (this.#parts.automatic.cancel()) this.#parts.status.update();
	}

	/** agent_settled: only schedules (O(1), nothing spawned or read here). */
	startBackgroundCheck(ctx: ExtensionContext): void {
		this.#session.ctx = ctx;
		this.#parts.automatic.settle();
	}

	/** agent_start: a boundary continuation (not a retry or compaction retry) claims a check. */
	onAttemptStart(ctx: ExtensionContext, recovery = false): void {
		this.#parts.automatic.attemptStart(recovery, () => {
			this.#session.ctx = ctx;
		});
	}

	/**
	 * `pi-lifecycle:reset:v1` for this session: findings delivered since the last model answer and
	 * dropped by the reset were never seen. Withdraw their acknowledgements and check again now (a
	 * reset boundary is at rest), so they are delivered into the new window.
	 */
	onReset(announcement: ResetAnnouncement): void {
		const ctx = this.#session.ctx;
		if (!ctx || this.#session.shutdown) return;
		try {
			// A finding the user dismissed since is not delivered again.
			const withdrawn = this.#parts.changes.withdrawLost(
				ctx.sessionManager,
				announcement.entryId,
				(identity) => this.triage.isDismissed(identity),
			);
			if (withdrawn === 0) return;
			this.#parts.status.redelivered(withdrawn);
		} catch {
			return; // A stale ctx after replacement: the new runtime replays its own branch.
		}
		this.#parts.scheduler.markMutation();
		if (this.#parts.settings.value.enabled) this.#parts.scheduler.requestAutomatic({ atRest: true });
		this.#parts.status.update();
	}

	/** The session manager of the live session (reset announcements are matched against it; throws when stale). */
	currentSession(): object | undefined {
		return this.#session.shutdown ? undefined : this.#session.ctx?.sessionManager;
	}

	/** session_before_tree: invalidate automatic work before the target branch is restored. */
	invalidate(): void {
		this.#parts.outside.abort();
		this.#parts.scheduler.invalidate();
	}

	/** session_tree: rebuild changed files and acknowledgements from the target branch. */
	restoreBranch(ctx: ExtensionContext): void {
		this.#session.ctx = ctx;
		this.invalidate();
		const branch = ctx.sessionManager.getBranch() as unknown as ReplayEntry[];
		const { malformed } = this.#replay(branch);
		if (malformed > 0)
			this.#reportIgnoredState(ctx, [`${malformed} ${FINDINGS_MESSAGE} message(s) with unreadable details`]);
		this.triage.replay(branch, true);
		this.#parts.status.branchRestored(); // the findings list was cleared: no check ran on this branch yet
	}

	/** session_shutdown: kill the live process, close the scheduler, await cleanup. Never waits for a scan. */
	async shutdown(reason?: string): Promise<void> {
		this.#session.shutdown = true;
		this.#syncBaselineWait();
		this.#parts.outside.close(reason);
		this.#parts.projectIndex.close();
		// The runner SIGKILLs its live process first, so closing the scheduler never waits for a scan.
		const runner = this.#parts.runner.close();
		await this.#parts.scheduler.close();
		await runner;
	}

	/**
	 * Records what changed outside the built-in tools so far (the probe otherwise runs at settle), so
	 * an explicit `changed` right after a command sees its changes.
	 */
	async probeOutside(): Promise<void> {
		const found = await this.#parts.outside.start();
		if (found && !this.#session.shutdown) this.#parts.changes.recordOutside(found, true);
	}

	/** Runs explicit work with priority over automatic checks. */
	explicit<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
		return this.#parts.scheduler.runExplicit(work);
	}

	/** What explicit commands need (read-only views; acknowledgements go through {@link acknowledgeDelivered}). */
	get state() {
		const parts = this.#parts;
		return {
			root: this.#session.root,
			runner: this.#parts.runner,
			capability: this.#parts.baseline.probed,
			baseline: this.#parts.baseline.state,
			index: this.#parts.indexFor,
			focus: this.#parts.focus,
			mutations: this.#parts.changes.view,
			settings: this.#parts.settings.value,
			/** Read on demand: it reads `.ignore` files of the changed paths (ignore-files.ts). */
			get incomplete(): string | undefined {
				return parts.incomplete();
			},
		};
	}

	/** The session's changed files, how they were found and what they may miss (worktree.ts `ChangeSet`). */
	changeSet(): ChangeSet {
		return this.#parts.changeSet();
	}

	/** A status snapshot. */
	status(): StatusView {
		return this.#parts.status.view();
	}

	/** Every current finding, the user's dismissals and what the model was told (Browse, the footer). */
	get triage(): Triage {
		return this.#parts.triage;
	}

	/** Resolves when background work (baseline, checks) has finished; for tests and shutdown. */
	async settled(): Promise<void> {
		await this.#parts.baseline.settled();
		await this.#parts.scheduler.idle();
	}
}
