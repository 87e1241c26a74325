/**
 * Settlement adapter (agent_settled): turns the run's facts into one goal transition. An abort
 * (even during native backoff) pauses; failed compaction recovery blocks; a recognised usage limit
 * stops as usage_limited or, with retryUsageLimits, schedules a recovery wait; any other final
 * error waits quietly (deadline-free, same goal id, mutex kept, no timer, no request). Before a
 * wait is published the budget, safety limits and helper tools are rechecked.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { classifySettlement, type RunFacts } from "../core/outcome.js";
import { limitReached } from "../core/safety.js";
import { TOOL_NAMES, USAGE_FALLBACK_MS } from "../core/types.js";
import type { GoalController } from "./controller.js";
import type { UsageRecovery } from "./usage-recovery.js";

/** The helpers a goal cannot work without (goal_wait is optional). */
const REQUIRED_HELPERS = TOOL_NAMES.filter((name) => name !== "goal_wait");

/** Whether goal_complete and goal_blocked are active tools (a restrictive allowlist can hide them). */
export function helpersAvailable(pi: Pick<ExtensionAPI, "getActiveTools">): boolean {
	try {
		const active = pi.getActiveTools();
		return REQUIRED_HELPERS.every((name) => active.includes(name));
	} catch {
		return true; // a stale runtime cannot tell: do not stop on that
	}
}

/** Dependencies of {@link settleRun}. */
export interface SettleDeps {
	readonly pi: Pick<ExtensionAPI, "getActiveTools">;
	readonly controller: GoalController;
	readonly usage: UsageRecovery;
	readonly now: () => number;
}

/** Rechecks budget, safety limits and helpers; false when the goal stopped. */
function recheck(deps: SettleDeps, ctx: ExtensionContext): boolean {
	const { controller } = deps;
	controller.apply({ type: "budget_check" }, ctx);
	const goal = controller.goal;
	if (goal?.status !== "active") return false;
	const limit = limitReached(goal.safety, controller.settings);
	if (limit) {
		controller.apply({ type: "pause", reason: limit }, ctx);
		return false;
	}
	if (!helpersAvailable(deps.pi)) {
		controller.apply({ type: "pause", reason: "helpers-unavailable" }, ctx);
		return false;
	}
	return true;
}

/** Applies the settlement of one run to the current goal. */
export function settleRun(deps: SettleDeps, run: RunFacts, ctx: ExtensionContext): void {
	const { controller } = deps;
	const goal = controller.goal;
	if (goal?.status !== "active" || !controller.owned) return;
	// An error that arrived for an earlier goal never moves a replacement goal.
	const facts =
		run.error?.goalId !== undefined && run.error.goalId !== goal.id ? { ...run, error: undefined } : run;
	const settlement = classifySettlement(facts, {
		waiting: goal.wait ? (goal.wait.kind ?? "explicit") : undefined,
		retryUsageLimits: controller.settings.retryUsageLimits,
	});
	switch (settlement.kind) {
		case "pause":
			// Also when the aborted batch accepted goal_wait: its wait and timer must not wake the goal
			// by itself later. (A wait from before the run was already woken when the run started.)
			controller.apply({ type: "pause", reason: "interrupted" }, ctx);
			return;
		case "blocked":
			controller.apply({ type: "blocked", reason: settlement.reason }, ctx);
			return;
		case "usage_limited":
			controller.apply({ type: "usage_limited", detail: settlement.detail }, ctx);
			return;
		case "provider_wait":
			if (!recheck(deps, ctx)) return;
			controller.apply(
				{
					type: "wait",
					kind: settlement.wait,
					reason: `provider error: ${settlement.detail}`,
					resumeAt: null,
				},
				ctx,
			);
			return;
		case "usage_wait": {
			if (!recheck(deps, ctx)) return;
			const model = ctx.model;
			const scope =
				facts.error?.scope ??
				(model ? { provider: model.provider, model: model.id, api: String(model.api) } : undefined);
			if (!scope) {
				controller.apply({ type: "usage_limited", detail: settlement.detail }, ctx);
				return;
			}
			controller.apply(
				{
					type: "wait",
					kind: "usage_limit",
					reason: `usage limit: ${settlement.detail}`,
					resumeAt: deps.now() + USAGE_FALLBACK_MS,
					usageLimit: scope,
				},
				ctx,
			);
			// A rejection by a model that is no longer selected cannot recover by waiting.
			if (!deps.usage.stopOnModelMismatch(ctx.model, ctx)) deps.usage.query(ctx);
			return;
		}
		case "keep":
		case "none":
			return;
	}
}
