/**
 * Boundary adapter: while a goal is active (or a contract revision waits to be published) the
 * goal takes part in Pi's actionable boundaries through the kit's participant.
 *
 * - turn_end: counts the turn for the safety breakers and publishes a pending contract revision
 *   after the turn's tool results (so an inactive revision follows the terminal tool result);
 * - agent_before_settle: proposes exactly one hidden continuation with `continue: true` when the
 *   outcome is completed (no final error, no failed or cancelled compaction recovery), the goal is
 *   active and owned, not waiting, within its limits, and no user work is queued. Pi runs it inside
 *   the same run: no idle-send race. Errors, waits and stops are published at agent_settled.
 */
import type {
	CustomMessageEntryDraft,
	ExtensionContext,
	TurnEndEvent,
} from "@earendil-works/pi-coding-agent";
import type { BoundaryEvent, BoundaryProposal } from "@pi-lifecycle/lifecycle-kit";
import { continuationMessage, type GoalMessage } from "./contract.js";
import type { GoalController } from "./controller.js";
import { mayContinue } from "./outcome.js";
import type { RunOwnership } from "./run.js";
import { automaticAllowed } from "./safety.js";
import type { GoalWaker } from "./wake.js";
import { resetAhead } from "./window.js";

export { RunOwnership } from "./run.js";

/** Dependencies of the boundary proposer. */
export interface BoundaryDeps {
	readonly controller: GoalController;
	readonly waker: GoalWaker;
	readonly run: RunOwnership;
	readonly nonce: () => string;
	/** Whether goal_complete and goal_blocked are active tools (rechecked before every continuation). */
	readonly helpersAvailable: () => boolean;
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
	if (resetAhead(event)) controller.forgetWindow();
	const contract = controller.pendingContract();
	if (!contract) return [];
	controller.markWindow(contract.details.revision);
	return [draft(contract)];
}

function turnFacts(event: TurnEndEvent): { toolCalls: number; text: string } {
	const message = event.message as { role?: string; content?: unknown };
	const blocks = Array.isArray(message.content)
		? (message.content as { type?: string; text?: string }[])
		: [];
	const calls = blocks.filter((block) => block.type === "toolCall").length;
	const text = blocks
		.filter((block) => block.type === "text")
		.map((block) => block.text ?? "")
		.join("\n");
	return { toolCalls: Math.max(calls, event.toolResults.length), text };
}

function onTurnEnd(
	deps: BoundaryDeps,
	event: TurnEndEvent,
	ctx: ExtensionContext,
): BoundaryProposal | undefined {
	const { controller, run } = deps;
	const message = event.message as { role?: string };
	const counted = event.outcome === "completed" || event.outcome === "error";
	if (controller.goal?.status === "active" && message.role === "assistant" && counted) {
		const facts = turnFacts(event);
		const error = event.outcome === "error";
		// The one exemption: a scheduled recovery request rejected directly by the usage limit, work-free.
		const exempt =
			error && run.recovery && run.responses === 1 && facts.toolCalls === 0 && run.error?.usageLimit === true;
		if (!exempt)
			controller.apply(
				{ type: "turn", turn: { automatic: run.automatic, goalWork: run.goalOwned, error, ...facts } },
				ctx,
			);
		// A breaker tripped in a tool loop: stop the loop before its next request.
		if (controller.goal?.status !== "active" && facts.toolCalls > 0 && !ctx.isIdle()) ctx.abort();
	}
	const drafts = contractDrafts(controller, event);
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
				run.nextAutomatic = true;
				run.nextRecovery = recovery;
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
