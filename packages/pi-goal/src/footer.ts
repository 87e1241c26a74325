/** Footer text for status key `pi-goal` (pure). */
import { elapsedMs, formatDuration, formatTokens, goalTokens } from "./accounting.js";
import type { GoalRecord, GoalSettings } from "./types.js";

function budget(goal: GoalRecord, branchTotal: number): string | undefined {
	if (goal.tokenBudget === null) return undefined;
	return `budget ${formatTokens(goalTokens(goal.usage, branchTotal))}/${formatTokens(goal.tokenBudget)}`;
}

function auto(goal: GoalRecord, settings: GoalSettings): string {
	const cap = settings.automaticTurns === null ? "∞" : String(settings.automaticTurns);
	return `auto ${goal.safety.automaticTurns}/${cap}`;
}

/** Short footer text, or undefined when there is no goal. */
export function footerText(
	goal: GoalRecord | null,
	facts: { now: number; branchTotal: number; settings: GoalSettings },
): string | undefined {
	if (!goal) return undefined;
	const spend = budget(goal, facts.branchTotal);
	const parts: string[] = [];
	switch (goal.status) {
		case "active":
			if (goal.wait) parts.push(`waiting ${goal.wait.reason}`.slice(0, 60));
			else
				parts.push(`active ${formatDuration(elapsedMs(goal.clock, facts.now))}`, auto(goal, facts.settings));
			break;
		case "paused":
			parts.push("paused");
			if (goal.pauseReason === "automatic-turns") parts.push(`limit ${auto(goal, facts.settings).slice(5)}`);
			else if (goal.pauseReason === "no-progress") parts.push("no progress");
			else if (goal.pauseReason && goal.pauseReason !== "user") parts.push(goal.pauseReason);
			break;
		case "budget_limited":
			return spend ?? "budget exhausted";
		default:
			parts.push(goal.status);
	}
	if (spend) parts.push(spend);
	return parts.join(" · ");
}
