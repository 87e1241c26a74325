/**
 * The three goal tools, registered once with stable schemas and no prompt snippets. Each checks
 * the exact current goal id, the active status and run ownership; a stale call is rejected with
 * an error result and no side effects. Success ends the turn (`terminate: true`).
 */
import type { AgentToolResult, ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { admitsUnfinished } from "./contract.js";
import type { GoalController } from "./controller.js";
import { bound, oneLine, quoteInline } from "./quote.js";
import { MIN_WAIT_MS } from "./types.js";

/** Longest stored goal_complete summary, in characters. */
const MAX_SUMMARY = 4000;

/** Longest goal_wait (7 days). */
export const MAX_WAIT_MS = 7 * 24 * 60 * 60 * 1000;

const GoalId = Type.String({ description: "The exact goal id from the current pi-goal contract." });

const COMPLETE = Type.Object({
	goal_id: GoalId,
	summary: Type.String({ description: "Evidence that every requirement of the objective is met." }),
});
const BLOCKED = Type.Object({
	goal_id: GoalId,
	reason: Type.String({ description: "What blocks the goal." }),
	evidence: Type.String({ description: "What you tried and observed." }),
});
const WAIT = Type.Object({
	goal_id: GoalId,
	reason: Type.String({ description: "What the goal waits for." }),
	resume_after_ms: Type.Optional(
		Type.Number({
			description: "Resume after this many milliseconds (at least 10000). Omit to wait for the user.",
		}),
	),
});

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
	if (typeof goalId !== "string" || goalId !== goal.id)
		return `Rejected: goal_id "${quoteInline(String(goalId), 80)}" is not the current goal. Stop working on it.`;
	if (goal.status !== "active")
		return `Rejected: goal ${goal.id} is ${goal.status}, not active. Stop working on it.`;
	if (!controller.owned) return "Rejected: the goal belongs to another session runtime.";
	return undefined;
}

/** Registers goal_complete, goal_blocked and goal_wait. */
export function registerTools(pi: Pick<ExtensionAPI, "registerTool">, controller: GoalController): void {
	pi.registerTool({
		name: "goal_complete",
		label: "Goal complete",
		description:
			"Mark the active pi-goal goal complete. Only call it after verifying every requirement of the objective; the summary must give the evidence.",
		parameters: COMPLETE,
		async execute(_id, params, _signal, _onUpdate, ctx: ExtensionContext) {
			const stale = staleReason(controller, params.goal_id);
			if (stale) return result(stale, true);
			const summary = String(params.summary ?? "").trim();
			if (!summary) return result("Rejected: the summary is empty. Give the evidence of completion.", true);
			const admitted = admitsUnfinished(summary);
			if (admitted)
				return result(
					`Rejected: the summary says "${admitted}", so the work is not finished. Keep working, or call goal_blocked if you cannot finish.`,
					true,
				);
			const applied = controller.apply({ type: "complete", summary: bound(summary, MAX_SUMMARY) }, ctx);
			return applied.error
				? result(`Rejected: ${applied.error}`, true)
				: result("Goal marked complete.", false);
		},
	});
	pi.registerTool({
		name: "goal_blocked",
		label: "Goal blocked",
		description:
			"Report that the active pi-goal goal cannot continue because of a real blocker, with the reason and the evidence.",
		parameters: BLOCKED,
		async execute(_id, params, _signal, _onUpdate, ctx: ExtensionContext) {
			const stale = staleReason(controller, params.goal_id);
			if (stale) return result(stale, true);
			const reason = String(params.reason ?? "").trim();
			if (!reason) return result("Rejected: the reason is empty.", true);
			const text = `${reason}${params.evidence ? ` (evidence: ${String(params.evidence).trim()})` : ""}`;
			const applied = controller.apply({ type: "blocked", reason: text.slice(0, 2000) }, ctx);
			return applied.error
				? result(`Rejected: ${applied.error}`, true)
				: result("Goal marked blocked.", false);
		},
	});
	pi.registerTool({
		name: "goal_wait",
		label: "Goal wait",
		description:
			"Pause automatic work on the active pi-goal goal while waiting for something external. Waits shorter than 10 s are raised to 10 s.",
		parameters: WAIT,
		async execute(_id, params, _signal, _onUpdate, ctx: ExtensionContext) {
			const stale = staleReason(controller, params.goal_id);
			if (stale) return result(stale, true);
			const reason = oneLine(String(params.reason ?? ""), 200);
			if (!reason) return result("Rejected: the reason is empty.", true);
			const requested = params.resume_after_ms;
			let resumeAt: number | null = null;
			if (requested !== undefined) {
				if (typeof requested !== "number" || !Number.isFinite(requested))
					return result("Rejected: resume_after_ms must be a number of milliseconds.", true);
				resumeAt = controller.facts().now + Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, requested));
			}
			const applied = controller.apply({ type: "wait", reason, resumeAt }, ctx);
			if (applied.error) return result(`Rejected: ${applied.error}`, true);
			const when =
				resumeAt === null ? "until the user resumes it" : `until ${new Date(resumeAt).toISOString()}`;
			return result(`Goal waiting ${when}.`, false);
		},
	});
}
