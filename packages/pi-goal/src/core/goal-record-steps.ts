/**
 * Record-level steps of the goal transitions (pure): entering and leaving the active status (usage,
 * time, the fields that belong to one active period) and a managed run's terminal effect.
 */
import { beginUsage, endUsage, goalTokens, startClock, stopClock } from "./accounting.js";
import type { GoalEffect, GoalFacts, TerminalStatus } from "./goal-events.js";
import type { GoalRecord, GoalStatus } from "./types.js";

/** Leaves the active status: folds usage and time, drops the wait. */
export function deactivate(goal: GoalRecord, facts: GoalFacts, status: GoalStatus): GoalRecord {
	const { wait: _wait, pauseReason: _reason, pauseDetail: _detail, ...rest } = goal;
	return {
		...rest,
		status,
		usage: endUsage(goal.usage, facts.branchTotal),
		clock: stopClock(goal.clock, facts.now),
	};
}

/** Enters the active status (not waiting). */
export function activate(goal: GoalRecord, facts: GoalFacts): GoalRecord {
	const {
		wait: _wait,
		pauseReason: _reason,
		pauseDetail: _detail,
		outcome: _outcome,
		usageRetries: _retries,
		...rest
	} = goal;
	return {
		...rest,
		status: "active",
		usage: beginUsage(goal.usage, facts.branchTotal),
		clock: startClock(goal.clock, facts.now),
	};
}

export function terminal(
	goal: GoalRecord,
	status: TerminalStatus,
	facts: GoalFacts,
	detail?: string,
): GoalEffect[] {
	if (!goal.runId) return [];
	return [
		{
			type: "terminal",
			runId: goal.runId,
			goalId: goal.id,
			status,
			detail,
			tokens: goalTokens(goal.usage, facts.branchTotal),
		},
	];
}
