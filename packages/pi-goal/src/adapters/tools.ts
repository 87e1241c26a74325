/**
 * The three goal tools, registered once with stable schemas and no prompt snippets. Each checks
 * the exact current goal id, the active status and run ownership; a stale call is rejected with
 * an error result and no side effects. Success ends the turn (`terminate: true`).
 */

import type { AgentToolResult, ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { cutText } from "@pi-lifecycle/lifecycle-kit";
import { Type } from "typebox";
import { decideCompletion } from "../core/completion.js";
import type { GoalEvent } from "../core/goal-machine.js";
import { bound, oneLine, quoteInline } from "../core/quote.js";
import { MIN_WAIT_MS } from "../core/types.js";
import type { BatchTracker } from "./batch.js";
import type { GoalController } from "./controller.js";

/** Longest stored goal_complete summary, in characters. */
const MAX_SUMMARY = 4000;

/** Longest goal_wait (7 days). */
export const MAX_WAIT_MS = 7 * 24 * 60 * 60 * 1000;

/*
 * The declarations travel with every request of every session, goal or no goal, so they say only
 * what a model needs to choose the tool (issue 20). The rules are where they are needed: the
 * contract (only while a goal exists) gives the exact goal id and when and how to call each tool,
 * including resume_after_ms; results and rejections say what happened and what to do instead.
 */
/*
 * goal_complete also takes `open_items` (a list of strings), undeclared so every request stays
 * small: the model learns of it when a completion is asked about (completion.ts) and answers there.
 */
const COMPLETE = Type.Object({ goal_id: Type.String(), summary: Type.String() });
type CompleteParams = { goal_id: string; summary: string; open_items?: unknown };

/** The model's open_items: strings only, bounded; anything else reads as not given. */
function readOpenItems(value: unknown): string[] | undefined {
	if (!Array.isArray(value)) return undefined;
	return value.filter((item): item is string => typeof item === "string").slice(0, 50);
}
const BLOCKED = Type.Object({ goal_id: Type.String(), reason: Type.String(), evidence: Type.String() });
const WAIT = Type.Object({
	goal_id: Type.String(),
	reason: Type.String(),
	resume_after_ms: Type.Optional(Type.Number()),
});

/** The parameter schemas of our three tools (Pi hands them back by reference: see peer.ts). */
export const GOAL_TOOL_SCHEMAS: Readonly<Record<string, object>> = {
	goal_complete: COMPLETE,
	goal_blocked: BLOCKED,
	goal_wait: WAIT,
};

function result(text: string, isError: boolean): AgentToolResult<{ ok: boolean }> {
	return {
		content: [{ type: "text", text }],
		details: { ok: !isError },
		...(isError ? { isError: true } : { terminate: true }),
	};
}

/** Rejection text for a call that does not match the current active, owned goal (or undefined). */
export function staleReason(controller: GoalController, goalId: unknown): string | undefined {
	const goal = controller.goal;
	if (!goal) return "Rejected: there is no goal. Do not call goal tools unless a pi-goal contract is active.";
	if (typeof goalId !== "string" || goalId !== goal.id) {
		const wrong = `Rejected: goal_id "${quoteInline(String(goalId), 80)}" is not the current goal.`;
		// A mistyped id of the goal being worked on must not read as "stop working"; the contract holds the id.
		return goal.status === "active" && controller.owned
			? `${wrong} The current goal is ${goal.id}; use that id, for the objective in the latest pi-goal contract.`
			: `${wrong} Stop working on it.`;
	}
	if (goal.status !== "active")
		return `Rejected: goal ${goal.id} is ${goal.status}, not active. Stop working on it.`;
	if (!controller.owned) return "Rejected: the goal belongs to another session runtime.";
	return undefined;
}

/** What a goal tool decided about a call that passed the stale check. */
type Decision = { readonly event: GoalEvent; readonly done: string } | { readonly rejected: string };

/**
 * The shared body of the goal tools: stale check (exact id, active, owned) → the tool's own
 * decision → the controller applies the event → a terminal success or an error result.
 */
function goalExecute<P extends { readonly goal_id: unknown }>(
	controller: GoalController,
	decide: (params: P, call: { id: string; signal: AbortSignal | undefined }) => Decision | Promise<Decision>,
	off: () => string | undefined = () => undefined,
) {
	return async (
		id: string,
		params: P,
		signal: AbortSignal | undefined,
		_onUpdate: unknown,
		ctx: ExtensionContext,
	): Promise<AgentToolResult<{ ok: boolean }>> => {
		const dormant = off();
		if (dormant) return result(dormant, true);
		const stale = staleReason(controller, params.goal_id);
		if (stale) return result(stale, true);
		const decision = await decide(params, { id, signal });
		// A decision may await the calls beside it: the goal can have changed meanwhile.
		const late = staleReason(controller, params.goal_id);
		if (late) return result(late, true);
		if ("rejected" in decision) return result(decision.rejected, true);
		const applied = controller.apply(decision.event, ctx);
		return applied.error ? result(`Rejected: ${applied.error}`, true) : result(decision.done, false);
	};
}

/**
 * What a goal tool answers while pi-goal is off (peer.ts): another goal extension that registered
 * its tools after ours (Pi routes a tool name to the extension loaded first, so ours shadow its
 * tools of the same names), or a session whose goal another extension saved.
 */
export function dormantToolText(sessionOnly: boolean): string {
	return sessionOnly
		? "Rejected: pi-goal is off in this session (another goal extension saved its goal here); there is no pi-goal goal. Do not call goal tools."
		: "Rejected: pi-goal is off here because another goal extension handles goals, but pi-goal was loaded first, so these goal tools are pi-goal's and the other extension's tools of the same names cannot be reached. Tell the user to keep only one goal extension.";
}

/** Registers goal_complete, goal_blocked and goal_wait; `off` is the answer while pi-goal is off. */
export function registerTools(
	pi: Pick<ExtensionAPI, "registerTool">,
	controller: GoalController,
	batch: BatchTracker,
	off?: () => string | undefined,
): void {
	/** Goal ids whose completion summary was already asked about (asked at most once per goal id). */
	const asked = new Set<string>();
	pi.registerTool({
		name: "goal_complete",
		// Changes no files: other extensions (pi-jscpd) need not treat it like bash.
		annotations: { readOnlyHint: true },
		label: "Goal complete",
		description: "Complete the goal, with evidence.",
		parameters: COMPLETE,
		execute: goalExecute(
			controller,
			async (params: CompleteParams, call) => {
				const summary = String(params.summary ?? "").trim();
				if (!summary) return { rejected: "Rejected: the summary is empty. Give the evidence of completion." };
				// Authoritative: never refused for good; a doubtful completion is asked about once (issue 30).
				// The calls beside it first: a tool of the same batch that ended well is tool work too.
				const batchProblem = await batch.problemBeside(call.id, call.signal);
				const goal = controller.goal;
				const facts = {
					// Only real tool work counts: a text-only plan before it shows nothing was done.
					toolWork: goal?.toolWork === true,
					batchProblem,
					openItems: readOpenItems(params.open_items),
				};
				const decision = decideCompletion(summary, String(params.goal_id), asked, facts);
				if (!decision.accept) return { rejected: quoteInline(decision.reason, 400) };
				return {
					event: { type: "complete", summary: bound(summary, MAX_SUMMARY), byResponse: true },
					done: "Goal marked complete.",
				};
			},
			off,
		),
	});
	pi.registerTool({
		name: "goal_blocked",
		// Changes no files: other extensions (pi-jscpd) need not treat it like bash.
		annotations: { readOnlyHint: true },
		label: "Goal blocked",
		description: "Report a real blocker of the goal.",
		parameters: BLOCKED,
		execute: goalExecute(
			controller,
			(params: { goal_id: string; reason: string; evidence: string }) => {
				const reason = String(params.reason ?? "").trim();
				if (!reason) return { rejected: "Rejected: the reason is empty." };
				const text = `${reason}${params.evidence ? ` (evidence: ${String(params.evidence).trim()})` : ""}`;
				return {
					event: { type: "blocked", reason: cutText(text, 2000), byResponse: true },
					done: "Goal marked blocked.",
				};
			},
			off,
		),
	});
	pi.registerTool({
		name: "goal_wait",
		// Changes no files: other extensions (pi-jscpd) need not treat it like bash.
		annotations: { readOnlyHint: true },
		label: "Goal wait",
		description: "Wait for something external.",
		parameters: WAIT,
		execute: goalExecute(
			controller,
			(params: { goal_id: string; reason: string; resume_after_ms?: number }) => {
				const reason = oneLine(String(params.reason ?? ""), 200);
				if (!reason) return { rejected: "Rejected: the reason is empty." };
				const requested = params.resume_after_ms;
				let resumeAt: number | null = null;
				if (requested !== undefined) {
					if (typeof requested !== "number" || !Number.isFinite(requested))
						return { rejected: "Rejected: resume_after_ms must be a number of milliseconds." };
					resumeAt = controller.facts().now + Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, requested));
				}
				const raised =
					requested !== undefined && requested < MIN_WAIT_MS ? " (the shortest wait is 10 s)" : "";
				const when =
					resumeAt === null
						? "until the user resumes it or writes (no deadline was given)"
						: `until ${new Date(resumeAt).toISOString()}${raised}`;
				return { event: { type: "wait", reason, resumeAt }, done: `Goal waiting ${when}.` };
			},
			off,
		),
	});
}
