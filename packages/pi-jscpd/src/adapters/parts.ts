/**
 * The parts of one runtime and how they are wired to each other (the controller's composition):
 * settings, process runner, session changes (the only writer of the mutation state), outside-change
 * probe, automatic-check flow, scheduler, baseline keeper, status and triage. Each part gets narrow
 * callbacks; the runtime's session facts (`RuntimeSession`) are owned by the controller.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { LifecycleIdentity } from "@pi-lifecycle/lifecycle-kit";
import type { ScanFocus } from "../core/focus.js";
import type { LineIndex } from "../core/identity.js";
import { EXACT_ONLY } from "../core/kinds.js";
import type { CloneGroup } from "../core/report.js";
import { CheckScheduler } from "../core/scheduler.js";
import { baselineView } from "../core/status.js";
import { Triage } from "../core/triage.js";
import { blockReason } from "../core/triggers.js";
import { AutomaticFlow } from "./automatic.js";
import type { CheckpointDeps } from "./checkpoint.js";
import { detectionOf } from "./config.js";
import { incompleteReason } from "./ignores.js";
import { OutsideProbe } from "./outside.js";
import { ProjectIndex } from "./project-index.js";
import { ProcessRunner, type RunnerLimits } from "./runner.js";
import { BaselineKeeper } from "./session-baseline.js";
import { SessionChanges, saveOutsideChanges } from "./session-changes.js";
import { SettingsHolder } from "./settings-holder.js";
import { StatusKeeper } from "./status-keeper.js";
import { safeIdle } from "./ui.js";
import type { ChangeSet } from "./worktree.js";

/** The session facts of one runtime (written by the controller only). */
export interface RuntimeSession {
	ctx: ExtensionContext | undefined;
	root: string | undefined;
	shutdown: boolean;
}

/** The wired parts. */
export interface RuntimeParts {
	readonly runner: ProcessRunner;
	readonly settings: SettingsHolder;
	readonly changes: SessionChanges;
	readonly outside: OutsideProbe;
	readonly automatic: AutomaticFlow;
	readonly scheduler: CheckScheduler;
	readonly baseline: BaselineKeeper;
	readonly status: StatusKeeper;
	/** Every current finding, the user's dismissals and what the model was told (Browse, the footer). */
	readonly triage: Triage;
	/** The baseline index a report is compared with (pending rebases applied). */
	readonly indexFor: (groups: readonly CloneGroup[]) => LineIndex;
	/** The project's fingerprint index (built once per baseline). */
	readonly projectIndex: ProjectIndex;
	/** What a check of the changed files scans (see find-new.ts). */
	readonly focus: (changed: ReadonlySet<string>, signal: AbortSignal) => Promise<ScanFocus>;
	/** Why a check may miss changed files (the outside probe's gaps, files the default ignores hide). */
	readonly incomplete: () => string | undefined;
	/** The session's changed files, how they were found and what they may miss (what a check consumes). */
	readonly changeSet: () => ChangeSet;
}

/** Builds and wires the parts; `baselineChanged` is told when the baseline or capability changed. */
export function buildParts(
	pi: Pick<ExtensionAPI, "sendMessage" | "appendEntry">,
	identity: LifecycleIdentity,
	limits: Partial<RunnerLimits> | undefined,
	session: RuntimeSession,
	baselineChanged: () => void,
): RuntimeParts {
	const runner = new ProcessRunner(limits);
	const settings = new SettingsHolder();
	// Parts built below; every callback reads them at call time, never during construction.
	const late = {} as { scheduler: CheckScheduler; baseline: BaselineKeeper; outside: OutsideProbe };
	const changes = new SessionChanges({
		markMutation: () => late.scheduler.markMutation(),
		noteRecorded: (path) => late.outside.noteRecorded(path),
		noteMoves: (moves) => late.baseline.noteMoves(moves),
		saveOutside: (paths) => saveOutsideChanges(pi, paths),
	});
	const triage = new Triage({
		acknowledged: (identity) => changes.view.isAcknowledged(identity),
		changed: () => status.update(),
	});
	const indexFor = (groups: readonly CloneGroup[]) => late.baseline.indexFor(groups, changes.view.changed);
	const projectIndex = new ProjectIndex({ trusted: () => runner.trusted });
	let indexedBaseline: string | undefined;
	/** A new accepted or partial baseline: the index is built for its detection, once. */
	const prepareIndex = () => {
		const state = late.baseline.state;
		if ((state.status !== "accepted" && state.status !== "partial") || !session.root) return;
		const key = `${session.root}|${state.capturedAt}`;
		if (key === indexedBaseline) return;
		indexedBaseline = key;
		projectIndex.prepare(session.root, state.detection ?? EXACT_ONLY);
	};
	const focus = async (changed: ReadonlySet<string>, signal: AbortSignal): Promise<ScanFocus> =>
		late.baseline.movesPending
			? { scope: "full", reason: "a checkout or pull brought in files whose duplicates are re-baselined" }
			: projectIndex.focus(changed, signal);
	const incomplete = () =>
		incompleteReason(session.root, changes.view.changed, late.outside.incomplete, runner.trusted);
	const status = new StatusKeeper({
		context: () => (session.shutdown ? undefined : session.ctx),
		view: () => ({
			root: session.root,
			settings: settings.value,
			settingsSources: settings.sources,
			capability: late.baseline.capability ?? { status: "probing" },
			baseline: baselineView(late.baseline.state),
			changedFiles: changes.view.changed.size,
			acknowledged: changes.view.acknowledgedCount,
			scheduler: late.scheduler.snapshot(),
			externalDetection: late.outside.mode,
			skippedIgnoreFiles: late.outside.skipped,
			trusted: runner.trusted,
			incomplete: incomplete(),
		}),
		footer: () => ({
			enabled: settings.value.enabled,
			capability: late.baseline.capability?.status,
			baseline: late.baseline.state.status,
			checking: late.scheduler.snapshot().automaticActive,
			findings: triage.counts(),
			dropped: "fallback" in late.baseline.state ? late.baseline.state.fallback : undefined,
		}),
	});
	const outside = new OutsideProbe({
		known: () => changes.view.changed,
		guard: () => identity.guard(),
	});
	late.outside = outside;
	const checkpoint = (probe: Promise<void> | undefined): CheckpointDeps => {
		const guard = identity.guard();
		return {
			outside: probe,
			pi,
			runner,
			root: session.root ?? "",
			capability: late.baseline.probed,
			baseline: () => late.baseline.state,
			index: indexFor,
			focus,
			changed: () => changes.view.changed,
			isAcknowledged: (id) => changes.view.isAcknowledged(id),
			acknowledge: (acks) => changes.acknowledge(acks),
			timeoutMs: () => settings.value.timeoutMs,
			maxFindings: () => settings.value.maxFindings,
			context: () => session.ctx,
			stillCurrent: () => guard.isCurrent() && !session.shutdown,
			inRun: () => identity.snapshot.running,
			incomplete,
			dismissed: (finding) => triage.isFindingDismissed(finding),
			current: (findings) => triage.recordNew("checkpoint", findings),
			record: status.outcome,
		};
	};
	const automatic = new AutomaticFlow({
		scheduler: () => late.scheduler,
		outside,
		closed: () => session.shutdown,
		enabled: () => settings.value.enabled,
		snapshot: () => identity.snapshot,
		recordOutside: (found, newGeneration) => changes.recordOutside(found, newGeneration),
		probed: () => status.update(),
		checkpoint,
		checking: () => status.update("checking"),
	});
	const scheduler = new CheckScheduler({
		runAutomatic: automatic.run,
		scope: () => `${identity.guard().id}|${session.root ?? ""}`,
		blocker: (atRest) =>
			blockReason({
				shutdown: session.shutdown,
				enabled: settings.value.enabled,
				baseline: late.baseline.state.status,
				capability: late.baseline.capability?.status,
				active: session.ctx !== undefined && identity.snapshot.active,
				idle: () => safeIdle(session.ctx),
				atRest,
			}),
		onSettled: (record) => status.record(record),
	});
	late.scheduler = scheduler;
	const baseline = new BaselineKeeper({
		pi,
		runner,
		explicit: (work) => scheduler.runExplicit(work),
		snapshot: () => outside.snapshot(),
		captured: (hasOriginal) => outside.captureEnd(hasOriginal),
		timeoutMs: () => settings.value.timeoutMs,
		detection: () => detectionOf(settings.value),
		closed: () => session.shutdown,
		changed: () => {
			prepareIndex();
			automatic.retryBlocked();
			baselineChanged();
			status.update();
		},
	});
	late.baseline = baseline;
	const changeSet = (): ChangeSet => {
		const gap = incomplete();
		return { paths: changes.view.changed, mode: outside.mode, ...(gap ? { incomplete: gap } : {}) };
	};
	return {
		changeSet,
		runner,
		settings,
		changes,
		outside,
		automatic,
		scheduler,
		baseline,
		status,
		triage,
		indexFor,
		projectIndex,
		focus,
		incomplete,
	};
}
