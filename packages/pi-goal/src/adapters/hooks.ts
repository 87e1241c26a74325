/**
 * Event adapters: restore, accounting, budget checks, run ownership, the settled fallback,
 * compaction and reset handling (which contract revision the new window holds). Every handler here
 * is O(1) or O(new entries) except the one branch scan on restore and the walk over the kept
 * window after a compaction or reset. The `context` fallback is armed only while needed (window.ts).
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
	createOnceReporter,
	isExplicitlyTrusted,
	loadSettings,
	offerNewWindowDrafts,
	onResetAnnouncement,
} from "@pi-lifecycle/lifecycle-kit";
import { messageCost, messageTokens, type UsageLike } from "../core/accounting.js";
import { readContinuationDetails, readContractDetails } from "../core/contract.js";
import { type AssistantLike, effectiveStopReason, errorFacts } from "../core/errors.js";
import { EMPTY_STATE } from "../core/goal-transitions.js";
import { isOwnContinuationDetails } from "../core/ownership.js";
import { type RestoreLookup, restoreBranch } from "../core/persistence.js";
import type { RunOwnership } from "../core/run.js";
import { CONTINUATION_MESSAGE, CONTRACT_MESSAGE, TOOL_NAMES } from "../core/types.js";
import type { BatchTracker } from "./batch.js";
import {
	countResponse,
	flushHeldTurn,
	newWindowDrafts,
	noteToolResult,
	type TurnEndNeeds,
} from "./boundary.js";
import type { CompactionAborts } from "./compaction-abort.js";
import { registerCompactionHooks } from "./compaction-abort.js";
import type { GoalController } from "./controller.js";
import { withLocalFault } from "./host-facts.js";
import { say } from "./output.js";
import type { Dormancy } from "./peer.js";
import { GOAL_SETTINGS_SPEC } from "./settings.js";
import type { UsageRecovery } from "./usage-recovery.js";
import type { GoalWaker } from "./wake.js";
import { contractRevisionSince, RESET_TOOL, resetAhead } from "./window.js";

/** Dependencies of the hooks. */
export interface HookDeps {
	readonly controller: GoalController;
	readonly waker: GoalWaker;
	readonly run: RunOwnership;
	/** What makes the next turn_end worth a subscription. */
	readonly needs: TurnEndNeeds;
	/** Arms or disarms the boundary participants after `needs` changed. */
	readonly syncBoundaries: () => void;
	/** Pi's agent directory (settings location). */
	readonly agentDir: () => string;
	/** Disarms the boundary participant and the context fallback at shutdown. */
	readonly disarm: () => void;
	/** Usage-limit recovery queries. */
	readonly usage: UsageRecovery;
	/** Whether another goal extension owns the goal tools (then nothing here acts). */
	readonly dormancy: Dormancy;
	/** Registers the goal tools and /goal (at the first session_start, when no peer holds them). */
	readonly registerOurs: () => void;
	/** The current tool batch (goal_complete's completion guard reads it). */
	readonly batch: BatchTracker;
	/** Holds an aborted goal run until it is known whether Pi aborted it to compact. */
	readonly aborts: CompactionAborts;
}

const GOAL_TOOLS: ReadonlySet<string> = new Set(TOOL_NAMES);
/** What a session pi-goal does not own restores: no goal. */
const NO_GOAL = { state: EMPTY_STATE, branchTotal: 0, windowRevision: -1, ignored: 0 } as const;

/** Whether the goal has a token budget or a money limit to check. */
function hasBudget(controller: GoalController): boolean {
	const goal = controller.goal;
	return goal?.tokenBudget != null || goal?.costLimit !== undefined;
}

/**
 * One response's cost (O(1)): added to an active goal's spending; a model that reports no cost
 * while a money limit is set is said once (status and a notice), so the limit is not pretended.
 */
function noteCost(controller: GoalController, ctx: ExtensionContext, cost: number, tokens: number): void {
	const goal = controller.goal;
	if (goal?.status !== "active") return;
	if (cost <= 0 && (goal.costLimit === undefined || goal.costUnreported || tokens <= 0)) return;
	controller.apply({ type: "cost", cost, tokens }, ctx);
	if (!goal.costUnreported && controller.goal?.costUnreported)
		say(
			ctx,
			"The model reports no cost for its responses, so the goal's money limit cannot apply. Use a token budget (/goal edit --tokens N <objective>) instead.",
			"warning",
		);
}

/** Whether a finished tool call is an accepted `new_context` (window.ts decides). */
function isResetCall(event: { toolName: string; isError: boolean; result?: unknown }): boolean {
	if (event.toolName !== RESET_TOOL) return false;
	const details = (event.result as { details?: unknown } | undefined)?.details;
	return resetAhead({
		entries: [],
		toolResults: [{ toolName: event.toolName, isError: event.isError, details }],
	});
}

/** The warning shown (once per runtime) when malformed saved goal state was skipped. */
function ignoredText(ignored: number): string {
	const entries =
		ignored === 1 ? "1 malformed saved goal state entry" : `${ignored} malformed saved goal state entries`;
	return `ignored ${entries} on this branch; restored the last valid goal state (or no goal).`;
}

function restore(deps: HookDeps, ctx: ExtensionContext, onIgnored: (ignored: number) => void): void {
	deps.needs.clear();
	const restored = restoreBranch(ctx.sessionManager as unknown as RestoreLookup);
	if (restored.ignored > 0) onIgnored(restored.ignored);
	deps.controller.bind(ctx, restored);
	// The reducer rechecks budget, helpers and limits, checkpoints a working goal and wakes it.
	deps.controller.apply({ type: "restored" }, ctx);
}

/** Subscribes the goal's event handlers. Call in the factory after identity and mutex. */
export function registerHooks(pi: ExtensionAPI, deps: HookDeps): void {
	const { controller, waker, run, usage, needs, aborts } = deps;
	/** Between agent_end and the next agent_start: a compaction now is Pi's post-run check. */
	let afterRun = false;
	/** Malformed saved state is reported once per runtime, not on every restore. */
	const reportIgnored = createOnceReporter("pi-goal");
	const onIgnored = (ctx: ExtensionContext) => (ignored: number) =>
		void reportIgnored(ctx, ignoredText(ignored));

	pi.on("session_start", (_event, ctx) => {
		aborts.flush();
		// Before anything of ours registers: is another goal extension the owner (peer.ts)?
		const owner = deps.dormancy.check(pi, deps.registerOurs, () => ctx.sessionManager.getBranch());
		if (owner.reason) {
			if (owner.fresh) say(ctx, owner.reason, "warning"); // one notice
			// No goal of an earlier session of this runtime lives on in a session that is not ours.
			if (controller.goal) controller.bind(ctx, NO_GOAL);
			return;
		}
		const loaded = loadSettings(GOAL_SETTINGS_SPEC, {
			agentDir: deps.agentDir(),
			cwd: ctx.cwd,
			projectTrusted: isExplicitlyTrusted(ctx),
		});
		for (const warning of loaded.warnings) say(ctx, warning, "warning");
		controller.apply({ type: "settings", settings: loaded.value }, ctx);
		restore(deps, ctx, onIgnored(ctx));
	});
	pi.on("session_tree", (_event, ctx) => {
		if (deps.dormancy.dormant) return;
		aborts.flush();
		waker.dispose();
		usage.cancel();
		restore(deps, ctx, onIgnored(ctx));
	});
	pi.on("session_shutdown", () => {
		aborts.flush();
		controller.apply({ type: "checkpoint" });
		waker.dispose();
		usage.cancel();
		controller.unbind();
		deps.disarm();
	});

	/**
	 * A user's message (not an extension's) ends a wait when it enters the session (message_end),
	 * not at `input`: input another extension consumes never arrives, and the wait and its timer stay.
	 */
	let userInput = false;
	pi.on("input", (event) => {
		userInput = event.source !== "extension";
	});
	pi.on("message_end", (event, ctx) => {
		const message = event.message as {
			role?: string;
			usage?: UsageLike;
			customType?: string;
			details?: unknown;
		};
		if (message.role === "user") run.userMessage();
		if (message.role === "user" && userInput) {
			userInput = false;
			if (controller.goal?.status === "active" && controller.goal.wait)
				controller.apply({ type: "wake" }, ctx);
		}
		if (message.role === "assistant") {
			const tokens = messageTokens(message.usage);
			if (tokens > 0)
				controller.apply({ type: "tokens", tokens, leafBefore: ctx.sessionManager.getLeafId() }, ctx);
			noteCost(controller, ctx, messageCost(message.usage), tokens);
			const stopReason = effectiveStopReason(event.message as AssistantLike) as AssistantLike["stopReason"];
			const assistant = { ...(event.message as AssistantLike), stopReason };
			if (controller.goal?.status === "active")
				deps.batch.response((assistant as { content?: unknown }).content);
			// ctx.model is a getter into Pi's model runtime: read it only for an error response.
			const facts =
				assistant.stopReason === "error"
					? withLocalFault(errorFacts(assistant, ctx.model?.contextWindow), assistant, ctx, deps.agentDir)
					: undefined;
			run.noteResponse(assistant.stopReason, facts && { ...facts, goalId: controller.goal?.id });
			if (countResponse({ controller, run, needs }, assistant as { content?: unknown }, ctx))
				deps.syncBoundaries();
		} else if (message.role === "toolResult") {
			if (noteToolResult({ controller, needs }, event.message as never)) deps.syncBoundaries();
		} else if (message.role === "custom" && message.customType === CONTRACT_MESSAGE) {
			const details = readContractDetails(message.details);
			if (details) controller.apply({ type: "window", revision: details.revision }, ctx);
		}
	});
	pi.on("tool_execution_start", (event) => {
		if (controller.goal?.status === "active") deps.batch.started(event.toolCallId);
	});
	pi.on("tool_execution_end", (event, ctx) => {
		const goal = controller.goal;
		if (goal?.status === "active") {
			deps.batch.ended(event.toolCallId, event.isError);
			// The first tool that is not a goal tool and did not fail: the goal has work to show
			// (completion guard; calls that all failed, a missing file, show nothing).
			if (!goal.toolWork && !event.isError && !GOAL_TOOLS.has(event.toolName))
				controller.apply({ type: "tool_work" }, ctx);
		}
		// Pi persisted the assistant message before this hook: the earliest reliable budget boundary.
		if (hasBudget(controller)) controller.apply({ type: "budget_check" }, ctx);
		// An accepted goal_wait invalidates an older length-recovery candidate.
		if (event.toolName === "goal_wait" && !event.isError) run.dropLengthCandidate();
		// An accepted new_context: this turn's boundary opens a new window, which gets the contract.
		// pi-reset proposes it with its reset when it takes our offer; only an older reset owner needs
		// our own turn_end (Pi rebuilds a whole-branch preview after every boundary handler).
		if (controller.goal?.status === "active" && isResetCall(event)) {
			if (offerNewWindowDrafts(pi.events, ctx.sessionManager, "pi-goal", () => newWindowDrafts(controller)))
				return;
			needs.resetAccepted();
			deps.syncBoundaries();
		}
	});
	pi.on("agent_end", (_event, ctx) => {
		afterRun = true;
		flushHeldTurn({ controller, needs }, ctx);
		if (hasBudget(controller)) controller.apply({ type: "budget_check" }, ctx);
	});

	pi.on("before_agent_start", (event, ctx) => {
		aborts.flush(); // a new run first: a held aborted run was interrupted
		// Another goal extension's `pi-goal/continuation` is its own run: neither ours nor stale.
		if (
			event.messageType === "custom" &&
			event.message.customType === CONTINUATION_MESSAGE &&
			isOwnContinuationDetails(event.message.details)
		) {
			const details = readContinuationDetails(event.message.details);
			if (!details || !waker.accept(details)) {
				// A delayed prompt of a replaced, stopped or cleared goal never reactivates work. It is
				// dropped without stopping the current goal: its aborted run does not pause anything.
				run.startStale();
				ctx.abort();
				return undefined;
			}
			const recovery = details.kind === "recovery";
			run.startRun(details.kind === "continuation" || details.kind === "wake" || recovery, recovery, true);
		} else {
			run.startRun(false);
			controller.apply({ type: "foreign_run" }, ctx);
		}
		const contract = controller.pendingContract();
		return contract ? { message: contract } : undefined;
	});
	pi.on("agent_start", () => {
		afterRun = false;
		needs.clear();
		run.startAttempt();
	});
	pi.on("agent_settled", (event, ctx) => {
		// The run of a dropped stale goal prompt was aborted by us, not by the user.
		const staleAbort = event.aborted === true && run.stale;
		const facts = run.settle(event.aborted === true && !run.stale);
		const settled = { type: "settled", run: facts, staleAbort, owned: controller.owned } as const;
		// An aborted goal run waits: Pi may have aborted it to compact (compaction-abort.ts).
		if (!aborts.hold(settled)) controller.apply(settled, ctx);
	});

	pi.on("model_select", (event, ctx) => {
		// An observed model change ends usage-limit recovery for the old model as usage_limited.
		controller.apply({ type: "model_check", model: event.model }, ctx);
	});
	registerCompactionHooks(pi, { controller, run, aborts, afterRun: () => afterRun });
	onResetAnnouncement(
		pi.events,
		"pi-goal",
		() => controller.ctx?.sessionManager,
		(announcement) => {
			const ctx = controller.ctx;
			if (!ctx) return;
			// The contract may already sit in the new window (proposed at the reset boundary, boundary.ts).
			const revision = contractRevisionSince(ctx.sessionManager, announcement.entryId);
			controller.apply({ type: "window", revision }, ctx);
			controller.sync();
		},
	);
}
