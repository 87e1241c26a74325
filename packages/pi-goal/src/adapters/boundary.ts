/**
 * Boundary adapter: the goal takes part in Pi's actionable boundaries through the kit's
 * participants, each subscribed only while needed (DESIGN.md §4: a `turn_end` handler alone makes
 * Pi build a context preview of the whole session on every turn).
 *
 * - message_end (not a boundary): counts each response for the safety breakers, O(1) (a response
 *   with tool calls once its tools ran);
 * - turn_end, armed only for a turn that needs it: a pending contract revision (published after the
 *   turn's tool results, so an inactive revision follows the terminal tool result), an accepted
 *   `new_context` call whose reset owner did not take the contract for the new window (an older
 *   pi-reset; see hooks.ts), or a breaker that trips on a response with tool calls (counted here,
 *   after its tools ran, then the loop is aborted);
 * - agent_before_settle, armed while a goal is active: proposes exactly one hidden continuation with
 *   `continue: true` when the outcome is completed (no final error, no failed or cancelled
 *   compaction recovery), the goal is active and owned, not waiting, within its limits, and no user
 *   work is queued. Pi runs it inside the same run: no idle-send race. Errors, waits and stops are
 *   published at agent_settled.
 */
import type {
	CustomMessageEntryDraft,
	ExtensionAPI,
	ExtensionContext,
	TurnEndEvent,
} from "@earendil-works/pi-coding-agent";
import {
	type BoundaryEvent,
	type BoundaryProposal,
	createBoundaryParticipant,
} from "@pi-lifecycle/lifecycle-kit";
import { continuationMessage, type GoalMessage } from "../core/contract.js";
import { assistantTurn } from "../core/replay.js";
import type { RunOwnership } from "../core/run.js";
import { countTurn, type TurnFacts } from "../core/safety.js";
import { callsOf, replyStep, resultText } from "../core/stuck-facts.js";
import type { GoalController } from "./controller.js";
import { type TurnEndNeeds, withStep } from "./turn-end-needs.js";
import type { GoalWaker } from "./wake.js";
import { resetAhead } from "./window.js";

export { RunOwnership } from "../core/run.js";

export { TurnEndNeeds } from "./turn-end-needs.js";

/** Dependencies of the boundary proposer. */
export interface BoundaryDeps {
	readonly controller: GoalController;
	readonly waker: GoalWaker;
	readonly run: RunOwnership;
	readonly nonce: () => string;
	readonly needs: TurnEndNeeds;
}

function draft(message: GoalMessage<unknown>): CustomMessageEntryDraft {
	return { type: "custom_message", ...message };
}

/** The pending contract as a draft; the window counts it as published once proposed. */
function pendingContractDrafts(controller: GoalController): CustomMessageEntryDraft[] {
	const contract = controller.pendingContract();
	if (!contract) return [];
	controller.apply({ type: "window", revision: contract.details.revision });
	return [draft(contract)];
}

/**
 * The drafts for a new window (a reset): the current revision of an active goal, so it is persisted
 * before the window's first request and keeps its position after. Proposed by our own turn_end, or
 * by pi-reset with its reset when it accepted our offer (`pi-lifecycle:new-window:v1`, hooks.ts).
 */
export function newWindowDrafts(controller: GoalController): CustomMessageEntryDraft[] {
	controller.apply({ type: "window", revision: -1 });
	return pendingContractDrafts(controller);
}

function contractDrafts(controller: GoalController, event: BoundaryEvent): CustomMessageEntryDraft[] {
	return resetAhead(event) ? newWindowDrafts(controller) : pendingContractDrafts(controller);
}

/**
 * Applies a held response count, if its goal is still active. Returns true when a breaker tripped.
 */
export function flushHeldTurn(
	deps: Pick<BoundaryDeps, "controller" | "needs">,
	ctx: ExtensionContext | undefined,
): boolean {
	const { controller, needs } = deps;
	const held = needs.takeHeld();
	const goal = controller.goal;
	if (!held || goal?.status !== "active" || goal.id !== held.goalId) return false;
	controller.apply({ type: "turn", turn: withStep(held) }, ctx);
	return controller.goal?.status !== "active";
}

/**
 * Counts one assistant response of an active goal (message_end) for the safety breakers: O(1), no
 * session entry (the restore replays the counters). A response with tool calls is held until its
 * tools ran, as the turn_end count used to be; one whose count would trip a breaker needs turn_end,
 * where the loop is stopped before its next request. Returns true when turn_end is now needed.
 */
export function countResponse(
	deps: Pick<BoundaryDeps, "controller" | "run" | "needs">,
	message: { stopReason?: string; content?: unknown },
	ctx: ExtensionContext,
): boolean {
	const { controller, run, needs } = deps;
	flushHeldTurn(deps, ctx);
	const goal = controller.goal;
	if (goal?.status !== "active" || message.stopReason === "aborted") return false;
	const facts = assistantTurn(message.content);
	const error = message.stopReason === "error";
	// The one exemption: a scheduled recovery request rejected directly by the usage limit, work-free.
	if (error && run.recovery && run.responses === 1 && facts.toolCalls === 0 && run.error?.usageLimit === true)
		return false;
	const turn: TurnFacts = { automatic: run.automatic, goalWork: run.goalOwned, error, ...facts };
	if (facts.toolCalls === 0) {
		// A provider error is no reply: the stuck detector's recent steps stay as they were.
		const step = error ? undefined : replyStep(facts.text);
		controller.apply({ type: "turn", turn: step ? { ...turn, step } : turn }, ctx);
		return false;
	}
	const trips = countTurn(goal.safety, turn, controller.settings).trip !== undefined;
	needs.hold({ goalId: goal.id, turn, trips, calls: callsOf(message.content), results: [] });
	return trips;
}

/**
 * A tool result of the held response arrived (message_end, O(its text)). Once all arrived, the
 * stuck detector decides whether counting the response trips; then turn_end is needed, where the
 * loop is stopped before its next request. Returns true when turn_end is now needed.
 */
export function noteToolResult(
	deps: Pick<BoundaryDeps, "controller" | "needs">,
	message: { toolCallId?: unknown; isError?: unknown; content?: unknown },
): boolean {
	const { controller, needs } = deps;
	const held = needs.addResult({
		id: String(message.toolCallId ?? ""),
		isError: message.isError === true,
		text: resultText(message.content),
	});
	const goal = controller.goal;
	if (!held || goal?.status !== "active" || goal.id !== held.goalId) return false;
	held.trips = countTurn(goal.safety, withStep(held), controller.settings).trip !== undefined;
	return held.trips;
}

function onTurnEnd(
	deps: BoundaryDeps,
	event: TurnEndEvent,
	ctx: ExtensionContext,
): BoundaryProposal | undefined {
	const { controller, needs } = deps;
	// A breaker tripped in a tool loop: stop the loop before its next request.
	if (flushHeldTurn(deps, ctx) && !ctx.isIdle()) ctx.abort();
	const drafts = contractDrafts(controller, event);
	needs.turnEnded();
	return drafts.length > 0 ? { drafts } : undefined;
}

function queuedWork(event: BoundaryEvent, ctx: ExtensionContext): boolean {
	return event.context.pendingMessages.length > 0 || ctx.hasPendingMessages();
}

/**
 * The reducer decides (goal-host-rules.ts: budget, helpers, limits, queued work); this adapter
 * gathers the host facts, and returns the decision as Pi's proposal: the pending contract, and with
 * a `continueInRun` effect the goal prompt with `continue: true`.
 */
function onBeforeSettle(
	deps: BoundaryDeps,
	event: BoundaryEvent,
	ctx: ExtensionContext,
): BoundaryProposal | undefined {
	const { controller, waker, run } = deps;
	const decided =
		controller.goal?.status === "active"
			? controller.apply(
					{
						type: "before_settle",
						outcome: event.outcome,
						run: run.facts(),
						owned: controller.owned,
						queuedWork: queuedWork(event, ctx),
						aborted: ctx.signal?.aborted === true,
						recoveryQueued: waker.queued === "recovery",
					},
					ctx,
				).effects
			: [];
	const drafts = contractDrafts(controller, event);
	const proposal = decided.find((effect) => effect.type === "continueInRun");
	const goal = controller.goal;
	if (!proposal || !goal) return drafts.length > 0 ? { drafts } : undefined;
	const nonce = deps.nonce();
	drafts.push(
		draft(continuationMessage({ goalId: goal.id, iteration: goal.iteration, nonce, kind: proposal.kind })),
	);
	return { drafts, continue: true };
}

/** The participant's propose function. */
export function proposeAtBoundary(
	deps: BoundaryDeps,
	event: BoundaryEvent,
	ctx: ExtensionContext,
): BoundaryProposal | undefined {
	return event.type === "turn_end" ? onTurnEnd(deps, event, ctx) : onBeforeSettle(deps, event, ctx);
}

/** The two boundary participants and their arming rule. */
export interface GoalBoundaries {
	/**
	 * Arms agent_before_settle while a goal is active or a revision is pending, and turn_end only for
	 * a turn that needs it. Pi checks for handlers per dispatch, so unsubscribed costs nothing.
	 */
	sync(): void;
	/** Unsubscribes both (session_shutdown). */
	disarm(): void;
}

/** Creates the goal's boundary participants for one runtime. Call in the factory. */
export function createGoalBoundaries(pi: ExtensionAPI, deps: BoundaryDeps): GoalBoundaries {
	const { controller, needs } = deps;
	const settle = createBoundaryParticipant(pi, {
		events: ["agent_before_settle"],
		propose: (event, ctx) => proposeAtBoundary(deps, event, ctx),
	});
	const turn = createBoundaryParticipant(pi, {
		events: ["turn_end"],
		propose: (event, ctx) => {
			const proposal = proposeAtBoundary(deps, event, ctx);
			sync(); // usually unsubscribes again: turn_end is needed for one turn at a time
			return proposal;
		},
	});
	const sync = () => {
		if (controller.goal?.status === "active" || controller.pendingContract()) settle.arm();
		else settle.disarm();
		if (controller.ctx && needs.wanted(controller)) turn.arm();
		else turn.disarm();
	};
	return {
		sync,
		disarm() {
			settle.disarm();
			turn.disarm();
		},
	};
}
