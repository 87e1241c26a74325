/**
 * The `/goal` command: parsing is pure (command-parse.ts); this adapter validates state, asks
 * before replacing an unfinished goal (dialog when the UI has one, otherwise a clear refusal),
 * and starts idle work through the waker.
 */
import { randomUUID } from "node:crypto";
import type {
	ExtensionAPI,
	ExtensionCommandContext,
	ExtensionContext,
} from "@earendil-works/pi-coding-agent";
import {
	type DialogScope,
	isExplicitlyTrusted,
	loadSettings,
	saveSettings,
} from "@pi-lifecycle/lifecycle-kit";
import { elapsedMs, formatDuration, formatTokens, goalTokens } from "./accounting.js";
import { askEditOrStart, noGoalToEditHint } from "./command-ask.js";
import { HELP_TEXT, parseGoalCommand } from "./command-parse.js";
import { type GoalController, WORKFLOW_BUSY } from "./controller.js";
import { nextStep } from "./footer.js";
import { publishWhileIdle } from "./hooks.js";
import { CHANGED_NOTICE } from "./menu-model.js";
import { say, sayOutcome } from "./output.js";
import type { Dormancy } from "./peer.js";
import { GOAL_SETTINGS_SPEC } from "./settings.js";
import { helpersAvailable } from "./settle.js";
import { isUnfinished } from "./types.js";
import type { GoalWaker } from "./wake.js";

/** Dependencies of the command and of managed runs. */
export interface CommandDeps {
	readonly pi: Pick<ExtensionAPI, "registerCommand" | "sendMessage" | "getActiveTools">;
	readonly controller: GoalController;
	readonly waker: GoalWaker;
	/** Pi's agent directory (settings location); needed by `/goal retry-usage-limits`. */
	readonly agentDir?: () => string;
	/** Dismisses the TUI menu's dialogs on session replacement (bare `/goal` in the TUI). */
	readonly dialogs?: DialogScope;
	/** Whether another goal extension owns the goal tools (then /goal only says so). */
	readonly dormancy?: Pick<Dormancy, "dormant" | "reason">;
}

/** A fresh goal id. */
export function newGoalId(): string {
	return `g-${randomUUID().slice(0, 8)}`;
}

/** Starts a goal (after any confirmation). Returns an error text on rejection. */
export function startGoal(
	deps: CommandDeps,
	ctx: ExtensionContext,
	request: { objective: string; tokenBudget: number | null; runId?: string },
	onStarted?: (goalId: string) => void,
): string | undefined {
	const blocked = startBlocker(deps);
	if (blocked) return blocked;
	const id = newGoalId();
	const applied = deps.controller.apply(
		{
			type: "start",
			id,
			objective: request.objective,
			tokenBudget: request.tokenBudget,
			runId: request.runId,
		},
		ctx,
	);
	if (applied.error) return applied.error;
	onStarted?.(id);
	wakeFromCommand(deps, ctx, "kickoff");
	return undefined;
}

/**
 * Why a goal cannot start or resume now, or undefined. Another workflow (workflow:mutex:v1) is
 * consulted first: a workflow like plan mode narrows the tools too, and is the real reason then.
 */
export function startBlocker(deps: Pick<CommandDeps, "pi" | "controller">): string | undefined {
	if (deps.controller.otherWorkflowActive()) return WORKFLOW_BUSY;
	return helpersAvailable(deps.pi) ? undefined : HELPERS_MISSING;
}

/** Why a goal cannot start or resume while a tool allowlist hides its completion tools. */
export const HELPERS_MISSING =
	"goal_complete and goal_blocked are not active tools (a tool allowlist hides them), so a goal could never finish. Enable both tools, then start or resume the goal.";

/** Queues an idle start and sends it now if Pi is idle; a busy run continues at its boundary. */
function wakeFromCommand(deps: CommandDeps, ctx: ExtensionContext, kind: "kickoff" | "resume"): void {
	if (!deps.controller.working) return;
	deps.waker.request(kind);
	if (ctx.isIdle()) deps.waker.flush(ctx);
}

/**
 * The effects of `/goal edit` (also the menu's edit, whose objective is taken literally): new goal
 * id, budget re-check, idle kickoff, contract. Returns the error, or undefined.
 */
export function editGoal(
	deps: CommandDeps,
	ctx: ExtensionCommandContext,
	edit: { readonly objective: string; readonly tokenBudget?: number | null },
): string | undefined {
	const { controller } = deps;
	const applied = controller.apply(
		{ type: "edit", newId: newGoalId(), objective: edit.objective, tokenBudget: edit.tokenBudget },
		ctx,
	);
	if (!applied.error) {
		// A lowered budget that is already used up stops the goal now (terminal limit, no request).
		controller.apply({ type: "budget_check" }, ctx);
		wakeFromCommand(deps, ctx, "kickoff");
	}
	publishWhileIdle(deps.pi, controller);
	return applied.error;
}

/** What `/goal edit` reports on success. */
export function editedText(controller: GoalController): string {
	return `Goal edited; new goal id ${controller.goal?.id} (${controller.goal?.status}).`;
}

/** Multi-line status for `/goal status`. */
export function statusText(controller: GoalController): string {
	const goal = controller.goal;
	if (!goal) return "No goal. Start one with /goal <objective> (see /goal help).";
	const { now, branchTotal, settings } = controller.facts();
	const used = goalTokens(goal.usage, branchTotal);
	const lines = [
		`Goal ${goal.id}: ${goal.wait ? "waiting" : goal.status}${goal.pauseReason ? ` (${goal.pauseReason})` : ""}`,
		`Objective: ${goal.objective.length > 300 ? `${goal.objective.slice(0, 300)}…` : goal.objective}`,
		`Tokens: ${formatTokens(used)}${goal.tokenBudget === null ? "" : ` of ${formatTokens(goal.tokenBudget)}`}`,
		`Active time: ${formatDuration(elapsedMs(goal.clock, now))}`,
		`Automatic turns: ${goal.safety.automaticTurns}/${settings.automaticTurns ?? "unlimited"}; continuations: ${goal.iteration}`,
	];
	if (goal.wait)
		lines.push(
			`Waiting for: ${goal.wait.reason}${goal.wait.resumeAt === null ? "" : ` until ${new Date(goal.wait.resumeAt).toISOString()}`}`,
		);
	if (goal.outcome) lines.push(`${goal.status === "complete" ? "Summary" : "Reason"}: ${goal.outcome}`);
	const step = nextStep(goal);
	if (step) lines.push(`Next: ${step}`);
	return lines.join("\n");
}

async function confirmReplace(controller: GoalController, ctx: ExtensionCommandContext): Promise<boolean> {
	const goal = controller.goal;
	if (!isUnfinished(goal) || !goal) return true;
	if (!ctx.hasUI) {
		say(
			ctx,
			`Goal ${goal.id} is still ${goal.status}. Run /goal clear first, then start the new goal.`,
			"error",
		);
		return false;
	}
	return ctx.ui.confirm(
		"Replace the current goal?",
		`Goal ${goal.id} is ${goal.status}: ${goal.objective.slice(0, 200)}`,
	);
}

/** Handles one `/goal` invocation. Never throws. */
export async function handleGoalCommand(
	deps: CommandDeps,
	args: string,
	ctx: ExtensionCommandContext,
): Promise<void> {
	const { controller, waker, pi } = deps;
	const parsed = parseGoalCommand(args);
	if (!parsed.ok) {
		say(ctx, `${parsed.error}\n${HELP_TEXT}`, "error");
		return;
	}
	const command = parsed.command;
	const report = (error: string | undefined, success: string) => sayOutcome(ctx, error, success);
	switch (command.kind) {
		case "status":
			return say(ctx, statusText(controller));
		case "help":
			return say(ctx, HELP_TEXT);
		case "start": {
			if (!(await confirmReplace(controller, ctx))) return;
			const error = startGoal(deps, ctx, { objective: command.objective, tokenBudget: command.tokenBudget });
			return report(error, `Goal ${controller.goal?.id} started.`);
		}
		case "pause": {
			const applied = controller.apply({ type: "pause", reason: "user" }, ctx);
			if (!applied.error) waker.cancel();
			publishWhileIdle(pi, controller);
			return report(applied.error, `Goal ${controller.goal?.id} paused. /goal resume continues it.`);
		}
		case "resume": {
			const blocked = startBlocker(deps);
			if (blocked) return report(blocked, "");
			const applied = controller.apply({ type: "resume", newId: newGoalId() }, ctx);
			if (!applied.error) wakeFromCommand(deps, ctx, "resume");
			return report(applied.error, `Goal ${controller.goal?.id} resumed.`);
		}
		case "edit": {
			const choice = command.orStart
				? await askEditOrStart(controller, ctx, { ...command, orStart: command.orStart }, deps.dialogs)
				: "edit";
			if (choice === undefined) return say(ctx, "Nothing changed.");
			if (choice === "changed") return say(ctx, CHANGED_NOTICE, "warning");
			if (choice === "start" && command.orStart) {
				const error = startGoal(deps, ctx, { objective: command.orStart, tokenBudget: null });
				return report(error, `Goal ${controller.goal?.id} started.`);
			}
			const error = editGoal(deps, ctx, command);
			const hint =
				error && !controller.goal && command.orStart ? `\n${noGoalToEditHint(command.orStart)}` : "";
			return report(error && `${error}${hint}`, editedText(controller));
		}
		case "retry-usage-limits":
			return setRetryUsageLimits(deps, ctx, command.enabled);
		case "clear": {
			const applied = controller.apply({ type: "clear" }, ctx);
			if (!applied.error) waker.cancel();
			publishWhileIdle(pi, controller);
			return report(applied.error, "Goal cleared.");
		}
	}
}

/**
 * Saves `retryUsageLimits` (global settings file) and applies the new effective policy only after
 * the save committed: a failed save keeps the previous policy. Disabling stops a pending usage-limit
 * wait as usage_limited; enabling never restarts a stopped goal.
 */
function setRetryUsageLimits(deps: CommandDeps, ctx: ExtensionCommandContext, enabled: boolean): void {
	const { controller } = deps;
	if (!deps.agentDir) {
		say(ctx, "Settings cannot be changed here.", "error");
		return;
	}
	const location = { agentDir: deps.agentDir(), cwd: ctx.cwd };
	const saved = saveSettings(GOAL_SETTINGS_SPEC, location, "global", { retryUsageLimits: enabled });
	if (!saved.ok) {
		const previous = controller.settings.retryUsageLimits ? "on" : "off";
		say(
			ctx,
			`Could not save retryUsageLimits: ${saved.error}. The previous policy (${previous}) stays in effect.`,
			"error",
		);
		return;
	}
	const loaded = loadSettings(GOAL_SETTINGS_SPEC, { ...location, projectTrusted: isExplicitlyTrusted(ctx) });
	controller.setSettings(loaded.value);
	const effective = loaded.value.retryUsageLimits;
	const wait = controller.goal?.status === "active" ? controller.goal.wait : undefined;
	if (!effective && wait?.kind === "usage_limit")
		controller.apply({ type: "usage_limited", detail: "usage-limit recovery was turned off" }, ctx);
	controller.refreshFooter();
	const override =
		effective === enabled ? "" : " (a trusted project settings file overrides the saved value)";
	say(ctx, `retryUsageLimits is now ${effective ? "on" : "off"}${override}; saved to ${saved.path}.`);
}
