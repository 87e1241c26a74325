/**
 * The goal use cases: start, edit, pause, resume, clear and a settings change. The `/goal`
 * command, the TUI menu and managed runs go through these: each checks what only the host can
 * tell (another workflow, hidden helper tools, the settings file), dispatches one event and says
 * what happened. What follows an event (cancel the wake, publish the contract, kick off) is the
 * reducer's (goal-machine.ts). Each returns an {@link Outcome}: the error, or the success text.
 */
import { randomUUID } from "node:crypto";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { isExplicitlyTrusted, OVERRIDDEN_NOTE, saveAndReload } from "@pi-lifecycle/lifecycle-kit";
import { describeGoalState } from "../core/goal-words.js";
import type { GoalSettings } from "../core/types.js";
import { type GoalController, WORKFLOW_BUSY } from "./controller.js";
import { helpersAvailable } from "./host-facts.js";
import { say, sayProgress } from "./output.js";
import { GOAL_SETTINGS_SPEC } from "./settings.js";

/** What the use cases need. */
export interface UseCaseDeps {
	readonly pi: Pick<ExtensionAPI, "getActiveTools">;
	readonly controller: GoalController;
	/** Pi's agent directory (settings location); settings cannot change without it. */
	readonly agentDir?: () => string;
	/** Why another goal extension owns goals now (one that took over after ours registered), if one does. */
	readonly otherOwner?: () => string | undefined;
}

/** The result of a use case: `error` when it was refused, else `text` says what happened. */
export interface Outcome {
	readonly error?: string;
	readonly text: string;
}

/** Tells the user an outcome (an error, or its success text). */
export function sayOutcomeOf(ctx: ExtensionContext, outcome: Outcome): void {
	if (outcome.error) say(ctx, outcome.error, "error");
	else sayProgress(ctx, outcome.text);
}

function refused(error: string): Outcome {
	return { error, text: error };
}

/** A fresh goal id. */
export function newGoalId(): string {
	return `g-${randomUUID().slice(0, 8)}`;
}

/** Why a goal cannot start or resume while a tool allowlist hides its completion tools. */
export const HELPERS_MISSING =
	"goal_complete and goal_blocked are not active tools (a tool allowlist hides them), so a goal could never finish. Enable both tools, then start or resume the goal.";

/**
 * Why a goal cannot start or resume now, or undefined. Another goal extension is consulted first
 * (its tool policy hides the goal tools: that is the cause, not an allowlist), then another
 * workflow (workflow:mutex:v1: a workflow like plan mode narrows the tools too).
 */
export function startBlocker(
	deps: Pick<UseCaseDeps, "pi" | "controller" | "otherOwner">,
): string | undefined {
	const other = deps.otherOwner?.();
	if (other) return other;
	if (deps.controller.otherWorkflowActive()) return WORKFLOW_BUSY;
	return helpersAvailable(deps.pi) ? undefined : HELPERS_MISSING;
}

/** Starts a goal (after any confirmation); a managed run hears its state before the kickoff. */
export function startGoal(
	deps: UseCaseDeps,
	ctx: ExtensionContext,
	request: { objective: string; tokenBudget: number | null; runId?: string; costLimit?: number },
): Outcome {
	const blocked = startBlocker(deps);
	if (blocked) return refused(blocked);
	const id = newGoalId();
	const { objective, tokenBudget, runId, costLimit } = request;
	const cost = costLimit === undefined ? {} : { costLimit };
	const applied = deps.controller.apply({ type: "start", id, objective, tokenBudget, runId, ...cost }, ctx);
	if (applied.error) return refused(applied.error);
	return { text: `Goal ${deps.controller.goal?.id} started.` };
}

/**
 * Edits the objective and/or the budget: new goal id; the reducer re-checks the budget (a lowered
 * budget already used up stops the goal now), kicks off a working goal and publishes the contract.
 */
export function editGoal(
	deps: UseCaseDeps,
	ctx: ExtensionContext,
	edit: {
		readonly objective: string;
		readonly tokenBudget?: number | null;
		/** A new money limit; null removes it; absent keeps it. */
		readonly costLimit?: number | null;
	},
): Outcome {
	const { controller } = deps;
	const cost = edit.costLimit === undefined ? {} : { costLimit: edit.costLimit };
	const applied = controller.apply(
		{ type: "edit", newId: newGoalId(), objective: edit.objective, tokenBudget: edit.tokenBudget, ...cost },
		ctx,
	);
	if (applied.error) return refused(applied.error);
	const goal = controller.goal;
	const state = goal ? describeGoalState(goal, controller.settings.automaticTurns) : "cleared";
	return { text: `Goal edited; new goal id ${goal?.id} (${state}).` };
}

/** Pauses the active goal (the user's pause also aborts a run under way). */
export function pauseGoal(deps: UseCaseDeps, ctx: ExtensionContext): Outcome {
	const applied = deps.controller.apply({ type: "pause", reason: "user" }, ctx);
	if (applied.error) return refused(applied.error);
	return { text: `Goal ${deps.controller.goal?.id} paused. /goal resume continues it.` };
}

/** A managed run's `pi-goal:cancel`: pauses its goal (kept for /goal resume), as the peer's protocol does. */
export function cancelManagedGoal(deps: UseCaseDeps, ctx: ExtensionContext, detail?: string): Outcome {
	const applied = deps.controller.apply(
		{ type: "pause", reason: "cancelled", ...(detail ? { detail } : {}) },
		ctx,
	);
	if (applied.error) return refused(applied.error);
	return { text: `Goal ${deps.controller.goal?.id} paused. /goal resume continues it.` };
}

/** Resumes a stopped goal (new id) or ends its wait. */
export function resumeGoal(deps: UseCaseDeps, ctx: ExtensionContext): Outcome {
	const blocked = startBlocker(deps);
	if (blocked) return refused(blocked);
	const applied = deps.controller.apply({ type: "resume", newId: newGoalId() }, ctx);
	if (applied.error) return refused(applied.error);
	return { text: `Goal ${deps.controller.goal?.id} resumed.` };
}

/**
 * Clears the goal. A managed run's cancel passes `cancelled` (its terminal status and reason); the
 * user's clear also publishes the cleared contract while idle (the reducer's rule).
 */
export function clearGoal(
	deps: UseCaseDeps,
	ctx: ExtensionContext,
	cancelled?: { readonly detail?: string },
): Outcome {
	const event = cancelled
		? {
				type: "clear" as const,
				reason: "cancelled" as const,
				...(cancelled.detail ? { detail: cancelled.detail } : {}),
			}
		: { type: "clear" as const };
	const applied = deps.controller.apply(event, ctx);
	if (applied.error) return refused(applied.error);
	return { text: "Goal cleared." };
}

/**
 * Saves one setting (global file), reloads the effective settings (a trusted project file still
 * wins) and applies them only after the save committed: a failed save keeps the previous values.
 * Turning `retryUsageLimits` off stops a pending usage-limit wait as usage_limited; turning it on
 * never restarts a stopped goal.
 */
export function changeSetting<K extends keyof GoalSettings>(
	deps: UseCaseDeps,
	ctx: ExtensionContext,
	key: K,
	value: GoalSettings[K],
): Outcome {
	const { controller } = deps;
	if (!deps.agentDir) return refused("Settings cannot be changed here.");
	const location = { agentDir: deps.agentDir(), cwd: ctx.cwd, projectTrusted: isExplicitlyTrusted(ctx) };
	const saved = saveAndReload(GOAL_SETTINGS_SPEC, location, { [key]: value } as Partial<GoalSettings>);
	if (!saved.ok) {
		if (key !== "retryUsageLimits") return refused(`Could not save ${key}: ${saved.error}.`);
		const previous = controller.settings.retryUsageLimits ? "on" : "off";
		return refused(
			`Could not save retryUsageLimits: ${saved.error}. The previous policy (${previous}) stays in effect.`,
		);
	}
	// The reducer's rule: turning retryUsageLimits off stops a pending usage-limit wait.
	controller.apply({ type: "settings", settings: saved.loaded.value, changed: key }, ctx);
	const effective = saved.loaded.value[key];
	const override = saved.overridden.length > 0 ? ` (${OVERRIDDEN_NOTE})` : "";
	const shown = typeof effective === "boolean" ? (effective ? "on" : "off") : (effective ?? "off");
	return { text: `${key} is now ${shown}${override}; saved to ${saved.path}.` };
}
