/**
 * The headless contract of `pi -p "/goal …"` and `pi --mode json -p "/goal …"` (pure): how the
 * goal work a command started ended, the process exit code for it, the summary for stdout and the
 * final JSON line. Exit 0 only when the goal completed; every other end has its own code.
 */
import { nextStep } from "./footer.js";
import { describeGoalState } from "./goal-words.js";
import type { GoalRecord } from "./types.js";

/** How the goal work of a headless `/goal` command ended. */
export type HeadlessOutcome =
	| "complete"
	| "blocked"
	| "paused"
	| "budget-limited"
	| "usage-limited"
	| "waiting"
	| "not-started";

/**
 * Exit codes (documented in the README; scripts rely on them). 1 stays Pi's own (a failed request,
 * a truncated answer); 2 is a `/goal` command that started no goal work (refused or malformed, or
 * the goal is gone); 129 and 143 are Pi's for SIGHUP and SIGTERM.
 */
export const EXIT_CODES: Readonly<Record<HeadlessOutcome, number>> = Object.freeze({
	complete: 0,
	"not-started": 2,
	blocked: 3,
	paused: 4,
	"budget-limited": 5,
	"usage-limited": 6,
	waiting: 7,
});

/** Longest wait for a `goal_wait` deadline inside a headless run (10 minutes); a later one exits 7. */
export const HEADLESS_WAIT_BOUND_MS = 10 * 60 * 1000;

/** What a headless run reports at its end. */
export interface HeadlessReport {
	/** How it ended. */
	readonly outcome: HeadlessOutcome;
	/** The process exit code for it. */
	readonly exitCode: number;
	/** The goal id, when there is a goal. */
	readonly goalId?: string;
	/** The state in plain words ("paused: it used its 25 responses"). */
	readonly state?: string;
	/** The completion summary (complete) or the reason (blocked), as the model gave it. */
	readonly summary?: string;
	/** Why the goal paused, in plain words: what repeated, which limit (a stopped goal's detail). */
	readonly reason?: string;
	/** What to do next, when anything. */
	readonly next?: string;
}

/** How the goal stands for a headless run (pure). */
export function headlessOutcome(goal: GoalRecord | null): HeadlessOutcome {
	if (!goal) return "not-started";
	if (goal.status === "active") return goal.wait ? "waiting" : "paused";
	switch (goal.status) {
		case "complete":
			return "complete";
		case "blocked":
			return "blocked";
		case "usage_limited":
			return "usage-limited";
		case "budget_limited":
			return "budget-limited";
		default:
			// paused (by you, a limit, an interrupt), and any stop added later: not complete.
			return /budget|cost/.test(goal.status) ? "budget-limited" : "paused";
	}
}

/** The report of a headless run whose goal is `goal` (pure). */
export function headlessReport(goal: GoalRecord | null, limit: number | null): HeadlessReport {
	const outcome = headlessOutcome(goal);
	if (!goal) return { outcome, exitCode: EXIT_CODES[outcome] };
	const next = nextStep(goal);
	return {
		outcome,
		exitCode: EXIT_CODES[outcome],
		goalId: goal.id,
		state: describeGoalState(goal, limit),
		...(goal.outcome !== undefined ? { summary: goal.outcome } : {}),
		...(goal.status !== "complete" && goal.pauseDetail ? { reason: goal.pauseDetail } : {}),
		...(next ? { next } : {}),
	};
}

/** The final JSON line of `--mode json` (one line, newline-terminated). */
export function outcomeJsonLine(report: HeadlessReport): string {
	return `${JSON.stringify({ type: "pi-goal/outcome", ...report })}\n`;
}

/** What text mode prints on stdout: the completion summary, or nothing. */
export function stdoutText(report: HeadlessReport): string | undefined {
	return report.outcome === "complete" && report.summary ? `${report.summary}\n` : undefined;
}
