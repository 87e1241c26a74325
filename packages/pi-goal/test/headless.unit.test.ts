/**
 * The headless contract's pure rules (exit code per outcome, the stdout text, the final JSON line)
 * and the plain words of every goal state (issue 34: no status identifiers, no field names).
 */
import { describe, expect, it } from "vitest";
import { waitInProcess } from "../src/adapters/headless.js";
import { nextStep } from "../src/core/footer.js";
import { describeGoalState, pauseReasonWords, stopNotice } from "../src/core/goal-words.js";
import {
	EXIT_CODES,
	HEADLESS_WAIT_BOUND_MS,
	headlessOutcome,
	headlessReport,
	outcomeJsonLine,
	stdoutText,
} from "../src/core/headless.js";
import { GOAL_STATUSES, type GoalRecord, type PauseReason } from "../src/core/types.js";
import { goalRecord } from "./goal-record.js";

const PAUSES: PauseReason[] = [
	"user",
	"interrupted",
	"automatic-turns",
	"no-progress",
	"workflow-busy",
	"helpers-unavailable",
];

describe("headless exit codes: exit 0 only when the goal completed", () => {
	it("every outcome has its own code and only complete is 0", () => {
		const codes = Object.values(EXIT_CODES);
		expect(new Set(codes).size).toBe(codes.length);
		expect(Object.entries(EXIT_CODES).filter(([, code]) => code === 0)).toEqual([["complete", 0]]);
		expect(codes).not.toContain(1); // Pi's own failure code
	});

	it("each state maps to its outcome: a waiting goal waits, a working one counts as paused", () => {
		expect(headlessOutcome(null)).toBe("not-started");
		expect(headlessOutcome(goalRecord({ status: "complete" }))).toBe("complete");
		expect(headlessOutcome(goalRecord({ status: "blocked" }))).toBe("blocked");
		expect(headlessOutcome(goalRecord({ status: "paused", pauseReason: "automatic-turns" }))).toBe("paused");
		expect(headlessOutcome(goalRecord({ status: "budget_limited" }))).toBe("budget-limited");
		expect(headlessOutcome(goalRecord({ status: "usage_limited" }))).toBe("usage-limited");
		expect(headlessOutcome(goalRecord({ wait: { reason: "CI", resumeAt: null } }))).toBe("waiting");
		expect(headlessOutcome(goalRecord())).toBe("paused");
	});

	it("text mode prints only a completed goal's summary; json mode one line with the outcome", () => {
		const done = headlessReport(goalRecord({ status: "complete", outcome: "All done." }), 25);
		expect(stdoutText(done)).toBe("All done.\n");
		const blocked = headlessReport(goalRecord({ status: "blocked", outcome: "No key." }), 25);
		expect(stdoutText(blocked)).toBeUndefined();
		const line = outcomeJsonLine(blocked);
		expect(line.endsWith("\n")).toBe(true);
		expect(line.trim().split("\n")).toHaveLength(1);
		expect(JSON.parse(line)).toMatchObject({
			type: "pi-goal/outcome",
			outcome: "blocked",
			exitCode: 3,
			goalId: "g-1",
			state: "blocked",
			summary: "No key.",
			next: expect.stringContaining("/goal resume"),
		});
	});

	it("json mode: a goal paused by the stuck detector or a limit says why in the outcome line", () => {
		const detail = "`npm test` failed 4 times in a row with the same output. Look at it yourself …";
		const stuck = headlessReport(
			goalRecord({ status: "paused", pauseReason: "stuck", pauseDetail: detail }),
			25,
		);
		expect(JSON.parse(outcomeJsonLine(stuck))).toMatchObject({
			outcome: "paused",
			exitCode: 4,
			state: "paused: its work repeated itself",
			reason: detail,
		});
		const done = headlessReport(goalRecord({ status: "complete", outcome: "All done." }), 25);
		expect(JSON.parse(outcomeJsonLine(done))).not.toHaveProperty("reason");
	});

	it("a goal_wait deadline is waited for in-process only up to the documented bound", () => {
		const waiting = (resumeAt: number | null): GoalRecord => goalRecord({ wait: { reason: "CI", resumeAt } });
		expect(waitInProcess(waiting(HEADLESS_WAIT_BOUND_MS), 0)).toBe(HEADLESS_WAIT_BOUND_MS);
		expect(waitInProcess(waiting(HEADLESS_WAIT_BOUND_MS + 1), 0)).toBeUndefined();
		expect(waitInProcess(waiting(null), 0)).toBeUndefined();
		expect(waitInProcess(goalRecord({ status: "paused" }), 0)).toBeUndefined();
	});
});

describe("goal states in plain words", () => {
	it("no state or pause reason is shown as an identifier", () => {
		for (const status of GOAL_STATUSES)
			for (const pauseReason of PAUSES) {
				// Tool names are what the user allows or hides, so they may appear; nothing else with "_".
				const text = describeGoalState(goalRecord({ status, pauseReason }), 25).replace(
					/goal_complete|goal_blocked/g,
					"",
				);
				expect(text).not.toMatch(/_|automatic-turns|no-progress|workflow-busy|helpers-unavailable/);
			}
		for (const reason of PAUSES) expect(pauseReasonWords(reason, 25)).not.toContain("-");
	});

	it("the response limit reads as responses (the glossary's word), singular or plural", () => {
		const paused = goalRecord({ status: "paused", pauseReason: "automatic-turns" });
		expect(describeGoalState(paused, 25)).toBe("paused: it used its 25 responses");
		expect(describeGoalState(paused, 1)).toBe("paused: it used its 1 response");
		expect(describeGoalState(paused, null)).toBe("paused: it reached its response limit");
	});

	it("a pause by the stuck detector reads as what happened, not as a bare word", () => {
		const paused = goalRecord({ status: "paused", pauseReason: "stuck" });
		expect(describeGoalState(paused, 25)).toBe("paused: its work repeated itself");
	});

	it("a waiting goal is never called active", () => {
		const text = describeGoalState(goalRecord({ wait: { reason: "the deploy", resumeAt: null } }), 25);
		expect(text).toBe("waiting: the deploy");
		expect(describeGoalState(goalRecord(), 25)).toBe("active");
	});

	it("the stop notice names the new state and the next step, and stays quiet for a restore or the user's pause", () => {
		const working = goalRecord();
		const limited = goalRecord({ status: "paused", pauseReason: "automatic-turns" });
		expect(stopNotice(working, limited, 25, nextStep)).toBe(
			"Goal g-1 paused: it used its 25 responses. Next: /goal resume continues with a new goal id; /goal clear removes it.",
		);
		expect(stopNotice(null, limited, 25, nextStep)).toBeUndefined();
		expect(
			stopNotice(working, goalRecord({ status: "paused", pauseReason: "user" }), 25, nextStep),
		).toBeUndefined();
		expect(stopNotice(working, goalRecord({ id: "g-2", status: "blocked" }), 25, nextStep)).toBeUndefined();
		expect(stopNotice(limited, limited, 25, nextStep)).toBeUndefined();
	});
});
