/**
 * The `/goal` command: parsing is pure (command-parse.ts); this adapter validates state, asks
 * before replacing an unfinished goal (dialog when the UI has one, otherwise a clear refusal),
 * and starts idle work through the waker.
 */

import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { DialogScope } from "@pi-lifecycle/lifecycle-kit";
import { cutText } from "@pi-lifecycle/lifecycle-kit";
import { elapsedMs, formatCost, formatDuration, formatTokens, goalTokens } from "../core/accounting.js";
import { goalSituation, HELP_TEXT, parseGoalCommand } from "../core/command-parse.js";
import { nextStep } from "../core/footer.js";
import { describeGoalState } from "../core/goal-words.js";
import { CHANGED_NOTICE } from "../core/menu-model.js";
import { type GoalRecord, isUnfinished } from "../core/types.js";
import { askEditOrStart, noGoalToEditHint } from "./command-ask.js";
import type { GoalController } from "./controller.js";
import { say } from "./output.js";
import type { Dormancy } from "./peer.js";
import {
	changeSetting,
	clearGoal,
	editGoal,
	pauseGoal,
	resumeGoal,
	sayOutcomeOf,
	startGoal,
	type UseCaseDeps,
} from "./use-cases.js";

/** Dependencies of the command and of managed runs. */
export interface CommandDeps extends UseCaseDeps {
	readonly pi: Pick<ExtensionAPI, "registerCommand" | "sendMessage" | "getActiveTools" | "on">;
	/** Dismisses the TUI menu's dialogs on session replacement (bare `/goal` in the TUI). */
	readonly dialogs?: DialogScope;
	/** Whether another goal extension owns the goal tools (then /goal only says so). */
	readonly dormancy?: Pick<Dormancy, "dormant" | "reason">;
}

/** The money line of `/goal status`: spent, the limit, and whether the model reports cost at all. */
function costLines(goal: GoalRecord): string[] {
	if (goal.costLimit === undefined && !goal.costSpent) return [];
	const limit = goal.costLimit === undefined ? "" : ` of ${formatCost(goal.costLimit)}`;
	const unreported = goal.costUnreported
		? " (the model reports no cost, so the money limit cannot apply)"
		: "";
	return [`Cost: ${formatCost(goal.costSpent ?? 0)}${limit}${unreported}`];
}

/** Multi-line status for `/goal status`. */
export function statusText(controller: GoalController): string {
	const goal = controller.goal;
	if (!goal) return "No goal. Start one with /goal <objective> (see /goal help).";
	const { now, branchTotal, settings } = controller.facts();
	const used = goalTokens(goal.usage, branchTotal);
	const lines = [
		`Goal ${goal.id}: ${describeGoalState(goal, settings.automaticTurns)}`,
		`Objective: ${goal.objective.length > 300 ? `${cutText(goal.objective, 300)}…` : goal.objective}`,
		`Tokens: ${formatTokens(used)}${goal.tokenBudget === null ? "" : ` of ${formatTokens(goal.tokenBudget)}`}`,
		`Active time: ${formatDuration(elapsedMs(goal.clock, now))}`,
		...costLines(goal),
		`Responses: ${goal.safety.automaticTurns}${settings.automaticTurns === null ? " (no limit)" : ` of ${settings.automaticTurns}`}`,
	];
	if (goal.wait)
		lines.push(
			`Waiting for: ${goal.wait.reason}${goal.wait.resumeAt === null ? "" : ` until ${new Date(goal.wait.resumeAt).toISOString()}`}`,
		);
	if (goal.outcome) lines.push(`${goal.status === "complete" ? "Summary" : "Reason"}: ${goal.outcome}`);
	if (goal.pauseDetail) lines.push(`Why it paused: ${goal.pauseDetail}`);
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
			`Goal ${goal.id} is still ${describeGoalState(goal, controller.settings.automaticTurns)}. Run /goal clear first, then start the new goal.`,
			"error",
		);
		return false;
	}
	return ctx.ui.confirm(
		"Replace the current goal?",
		`Goal ${goal.id} is ${describeGoalState(goal, controller.settings.automaticTurns)}: ${cutText(goal.objective, 200)}`,
	);
}

/** Handles one `/goal` invocation. Never throws. */
export async function handleGoalCommand(
	deps: CommandDeps,
	args: string,
	ctx: ExtensionCommandContext,
): Promise<void> {
	const { controller } = deps;
	const parsed = parseGoalCommand(args, goalSituation(controller.goal, controller.branchTotal));
	if (!parsed.ok) {
		say(ctx, `${parsed.error}\n${HELP_TEXT}`, "error");
		return;
	}
	const command = parsed.command;
	switch (command.kind) {
		case "status":
			return say(ctx, statusText(controller));
		case "help":
			return say(ctx, HELP_TEXT);
		case "start": {
			if (!(await confirmReplace(controller, ctx))) return;
			const { objective, tokenBudget, costLimit } = command;
			return sayOutcomeOf(ctx, startGoal(deps, ctx, { objective, tokenBudget, costLimit }));
		}
		case "pause":
			return sayOutcomeOf(ctx, pauseGoal(deps, ctx));
		case "resume":
			return sayOutcomeOf(ctx, resumeGoal(deps, ctx));
		case "edit": {
			const choice = command.orStart
				? await askEditOrStart(controller, ctx, { ...command, orStart: command.orStart }, deps.dialogs)
				: "edit";
			if (choice === undefined) return say(ctx, "Nothing changed.");
			if (choice === "changed") return say(ctx, CHANGED_NOTICE, "warning");
			if (choice === "start" && command.orStart)
				return sayOutcomeOf(ctx, startGoal(deps, ctx, { objective: command.orStart, tokenBudget: null }));
			const outcome = editGoal(deps, ctx, command);
			const hint =
				outcome.error && !controller.goal && command.orStart ? `\n${noGoalToEditHint(command.orStart)}` : "";
			return sayOutcomeOf(ctx, outcome.error ? { error: `${outcome.error}${hint}`, text: "" } : outcome);
		}
		case "retry-usage-limits":
			return sayOutcomeOf(ctx, changeSetting(deps, ctx, "retryUsageLimits", command.enabled));
		case "clear":
			return sayOutcomeOf(ctx, clearGoal(deps, ctx));
	}
}
