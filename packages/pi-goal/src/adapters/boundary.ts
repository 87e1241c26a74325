/**
 * Boundary adapter: the goal takes part in Pi's actionable boundaries through the kit's
 * participants, each subscribed only while needed (DESIGN.md §4: a `turn_end` handler alone makes
 * Pi build a context preview of the whole session on every turn).
 *
 * - message_end (not a boundary): counts each response for the safety breakers, O(1) (a response
 *   with tool calls once its tools ran);
 * - turn_end, armed only for a turn that needs it: a pending contract revision (published after the
 *   turn's tool results, so an inactive revision follows the terminal tool result), an accepted
 *   `new_context` call (the contract goes into the new window), or a breaker that trips on a
 *   response with tool calls (counted here, after its tools ran, then the loop is aborted);
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
import { mayContinue } from "../core/outcome.js";
import { assistantTurn, type HeldResponse } from "../core/replay.js";
import type { RunOwnership } from "../core/run.js";
import { automaticAllowed, countTurn, type TurnFacts } from "../core/safety.js";
import type { GoalController } from "./controller.js";
import type { GoalWaker } from "./wake.js";
import { resetAhead } from "./window.js";

export { RunOwnership } from "../core/run.js";

/** A response with tool calls whose count waits until its tools ran. */
interface HeldTurn {
	readonly goalId: string;
	readonly turn: TurnFacts;
	readonly trips: boolean;
}

/** What makes the next `turn_end` worth a subscription, besides a pending contract revision. */
export class TurnEndNeeds {
	/**
	 * A response with tool calls, counted once its tools ran (a tool that stopped the goal, such as
	 * `goal_complete`, means it is not counted), at the next response, agent_end or turn_end.
	 */
	#held: HeldTurn | undefined;
	/** An accepted `new_context` call: this turn's boundary opens a new window. */
	#reset = false;

	/** A response with tool calls is held until its tools ran. */
	hold(held: HeldTurn): void {
		this.#held = held;
	}
	/** Takes the held response out (it is counted now, or dropped). */
	takeHeld(): HeldTurn | undefined {
		const held = this.#held;
		this.#held = undefined;
		return held;
	}
	/** An accepted `new_context` call: this turn's boundary opens a new window. */
	resetAccepted(): void {
		this.#reset = true;
	}
	/** The turn's boundary ran: the new window got its contract. */
	turnEnded(): void {
		this.#reset = false;
	}

	/** The held response as a state entry's anchor records it (replay.ts). */
	heldResponse(): HeldResponse | undefined {
		const held = this.#held;
		if (!held) return undefined;
		return {
			goalId: held.goalId,
			automatic: held.turn.automatic,
			goalWork: held.turn.goalWork ?? held.turn.automatic,
		};
	}

	/** Whether turn_end is needed (with the controller's pending contract). */
	wanted(controller: GoalController): boolean {
		return (
			this.#held?.trips === true ||
			(this.#reset && controller.goal?.status === "active") ||
			controller.pendingContract() !== undefined
		);
	}

	/** A new attempt starts or the session changed: nothing from an earlier turn carries over. */
	clear(): void {
		this.#held = undefined;
		this.#reset = false;
	}
}

/** Dependencies of the boundary proposer. */
export interface BoundaryDeps {
	readonly controller: GoalController;
	readonly waker: GoalWaker;
	readonly run: RunOwnership;
	readonly nonce: () => string;
	/** Whether goal_complete and goal_blocked are active tools (rechecked before every continuation). */
	readonly helpersAvailable: () => boolean;
	readonly needs: TurnEndNeeds;
}

function draft(message: GoalMessage<unknown>): CustomMessageEntryDraft {
	return { type: "custom_message", ...message };
}

/**
 * The pending contract as a draft; the window counts it as published once proposed. When this
 * boundary opens a new window (a reset), the current revision of an active goal goes into the new
 * window here, so it is persisted before the window's first request and keeps its position after.
 */
function contractDrafts(controller: GoalController, event: BoundaryEvent): CustomMessageEntryDraft[] {
	if (resetAhead(event)) controller.apply({ type: "window", revision: -1 });
	const contract = controller.pendingContract();
	if (!contract) return [];
	controller.apply({ type: "window", revision: contract.details.revision });
	return [draft(contract)];
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
	controller.apply({ type: "turn", turn: held.turn }, ctx);
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
		controller.apply({ type: "turn", turn }, ctx);
		return false;
	}
	const trips = countTurn(goal.safety, turn, controller.settings).trip !== undefined;
	needs.hold({ goalId: goal.id, turn, trips });
	return trips;
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

function onBeforeSettle(
	deps: BoundaryDeps,
	event: BoundaryEvent,
	ctx: ExtensionContext,
): BoundaryProposal | undefined {
	const { controller, waker, run } = deps;
	const goal = controller.goal;
	if (goal?.status === "active" && !goal.wait && controller.owned) {
		if (mayContinue(event.outcome, run.facts())) {
			controller.apply({ type: "budget_check" }, ctx);
			// Hidden after the goal started (an allowlist, another extension): it could never finish.
			if (controller.working && !deps.helpersAvailable())
				controller.apply({ type: "pause", reason: "helpers-unavailable" }, ctx);
			const current = controller.goal;
			if (
				current &&
				controller.working &&
				!queuedWork(event, ctx) &&
				!ctx.signal?.aborted &&
				automaticAllowed(current.safety, controller.settings)
			) {
				// A usage-limit deadline that fired during this run keeps its recovery kind (exemption).
				const recovery = waker.queued === "recovery";
				controller.apply({ type: "continued" }, ctx);
				const next = controller.goal ?? current;
				const drafts = contractDrafts(controller, event);
				drafts.push(
					draft(
						continuationMessage({
							goalId: next.id,
							iteration: next.iteration,
							nonce: deps.nonce(),
							kind: recovery ? "recovery" : "continuation",
						}),
					),
				);
				waker.cancel();
				run.continuationProposed(recovery);
				return { drafts, continue: true };
			}
		}
	}
	const drafts = contractDrafts(controller, event);
	return drafts.length > 0 ? { drafts } : undefined;
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
