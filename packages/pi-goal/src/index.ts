/**
 * pi-goal: autonomous single-objective /goal work. This file only composes the modules.
 */

import { randomUUID } from "node:crypto";
import { type ExtensionAPI, getAgentDir, VERSION } from "@earendil-works/pi-coding-agent";
import {
	createDialogScope,
	createWorkflowMutex,
	guardHost,
	IdleDispatcher,
	trackLifecycle,
} from "@pi-lifecycle/lifecycle-kit";
import { BatchTracker } from "./adapters/batch.js";
import { createGoalBoundaries, TurnEndNeeds } from "./adapters/boundary.js";
import { followStartedWork, registerGoalCommand } from "./adapters/command-register.js";
import { CompactionAborts } from "./adapters/compaction-abort.js";
import { GoalController } from "./adapters/controller.js";
import { FooterClock } from "./adapters/footer-clock.js";
import { HeadlessRuns, type HeadlessSink, processSink } from "./adapters/headless.js";
import { registerHooks } from "./adapters/hooks.js";
import { registerManagedRuns } from "./adapters/managed-run.js";
import { Dormancy, FOREIGN_SESSION_NOTICE } from "./adapters/peer.js";
import { StopNotices } from "./adapters/stop-notice.js";
import { dormantToolText, registerTools } from "./adapters/tools.js";
import { UsageRecovery } from "./adapters/usage-recovery.js";
import { GoalWaker, type Timers } from "./adapters/wake.js";
import { createContractRestorer } from "./adapters/window.js";
import { RunOwnership } from "./core/run.js";

/** How many times a headless run re-follows a goal prompt still queued after the work settled. */
const FOLLOW_ROUNDS = 100;

/** Options for tests and embedders. */
export interface PiGoalOptions {
	/** Settings location (default: Pi's agent dir). */
	readonly agentDir?: string;
	/** Clock (default Date.now). */
	readonly now?: () => number;
	/** Timers for wait deadlines (default global setTimeout/clearTimeout). */
	readonly timers?: Timers;
	/** Where a print-mode CLI run's exit code and stdout go (default: the process, in Pi's CLI only). */
	readonly headless?: HeadlessSink;
}

/** Builds the extension factory. */
export function createPiGoal(options: PiGoalOptions = {}) {
	return function piGoal(pi: ExtensionAPI): void {
		if (!guardHost(pi, "pi-goal", VERSION).supported) return;
		const identity = trackLifecycle(pi);
		const mutex = createWorkflowMutex(pi);
		const now = options.now ?? Date.now;
		const nonce = () => randomUUID();
		const run = new RunOwnership();
		const needs = new TurnEndNeeds();
		const controller = new GoalController({
			pi,
			mutex,
			guard: () => identity.guard("generation"),
			now,
			runOrigin: () => ({
				automatic: run.running && run.automatic,
				goalWork: run.running && run.goalOwned,
				held: needs.heldResponse(),
			}),
		});
		const restorer = createContractRestorer(pi, controller);
		// Unref'd: a waiting goal's deadline never keeps an embedding process (or a test) alive.
		const timers: Timers = options.timers ?? {
			setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
			clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
		};
		const usage = new UsageRecovery({ pi, controller, identity, timers, now });
		const waker = new GoalWaker({
			pi,
			controller,
			dispatcher: new IdleDispatcher(),
			identity,
			nonce,
			timers,
		});
		const footerClock = new FooterClock({ controller, timers, now });
		const notices = new StopNotices(controller);
		const boundaries = createGoalBoundaries(pi, {
			controller,
			waker,
			run,
			nonce,
			needs,
		});
		controller.attach({
			waker,
			usage,
			run,
			onChange: () => {
				boundaries.sync();
				restorer.sync();
				waker.syncTimer();
				usage.sync();
				footerClock.sync();
				notices.sync();
			},
			onWindowChange: () => {
				restorer.sync();
				boundaries.sync();
			},
		});
		const agentDir = () => options.agentDir ?? getAgentDir();
		const disarm = () => {
			needs.clear();
			boundaries.disarm();
			restorer.hook.disarm();
			footerClock.stop();
		};
		const dormancy = new Dormancy();
		const batch = new BatchTracker();
		// Before the hooks' own session_tree handler restores the branch (handlers run in order).
		pi.on("session_tree", () => notices.rebase());
		// Tools and /goal are registered at the first session_start, once no peer holds them (peer.ts).
		const dialogs = createDialogScope(pi, identity);
		const headless = new HeadlessRuns({
			pi,
			controller,
			sink: options.headless ?? processSink,
			follow: async (ctx) => {
				// A goal prompt queued once the work settled (the continuation after a compaction that
				// stopped the run) is work the command started too: follow it (bounded).
				for (let round = 0; round < FOLLOW_ROUNDS; round++) {
					await followStartedWork(ctx, pi);
					if (waker.queued === undefined) return;
					await new Promise<void>((resolve) => setImmediate(resolve));
				}
			},
		});
		/** Another goal extension that took over after ours registered (peer.ts). */
		const otherOwner = () => dormancy.takeover(pi) ?? dormancy.reason;
		const registerOurs = () => {
			registerTools(pi, controller, batch, () => {
				const reason = otherOwner();
				return reason === undefined ? undefined : dormantToolText(reason === FOREIGN_SESSION_NOTICE);
			});
			registerGoalCommand({
				pi,
				controller,
				agentDir,
				dialogs,
				dormancy,
				headless,
				otherOwner,
			});
		};
		registerHooks(pi, {
			batch,
			controller,
			waker,
			run,
			needs,
			syncBoundaries: () => boundaries.sync(),
			agentDir,
			disarm,
			usage,
			dormancy,
			registerOurs,
			aborts: new CompactionAborts({ controller, run }),
		});
		registerManagedRuns(pi, { pi, controller, dormancy, otherOwner });
	};
}

/** The default extension factory. */
export default createPiGoal();
