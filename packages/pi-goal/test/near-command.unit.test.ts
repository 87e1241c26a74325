/**
 * Near-command refusals fit the goal's situation: every `/goal …` a refusal suggests is a command
 * that works in that situation (checked against the reducer), and whether a text is refused never
 * depends on the situation.
 */
import { describe, expect, it } from "vitest";
import { type GoalSituation, goalSituation, parseGoalCommand } from "../src/core/command-parse.js";
import { EMPTY_STATE, type GoalEvent, type GoalFacts, reduceGoal } from "../src/core/goal-machine.js";
import { DEFAULT_SETTINGS, type GoalState, type GoalStatus } from "../src/core/types.js";

const WORDS = [
	"stop",
	"cancel",
	"abort",
	"halt",
	"quit",
	"exit",
	"end",
	"remove",
	"delete",
	"reset",
	"done",
	"finish",
	"complete",
	"continue",
	"unpause",
	"restart",
	"start",
	"show",
	"info",
	"list",
	"menu",
	"budget",
	"budget 200k",
	"tokens 1.5m",
	"--help",
	"-h",
];

const facts = (branchTotal = 0): GoalFacts => ({ now: 1000, branchTotal, settings: DEFAULT_SETTINGS });

function started(tokenBudget: number | null = null): GoalState {
	return reduceGoal(EMPTY_STATE, { type: "start", id: "g-1", objective: "o", tokenBudget }, facts()).state;
}

function stopped(status: GoalStatus): GoalState {
	const state = started();
	const event: GoalEvent =
		status === "complete" ? { type: "complete", summary: "s" } : { type: "pause", reason: "user" };
	return reduceGoal(state, event, facts()).state;
}

/** One representative state per situation, with the branch total the reducer reads. */
const SITUATIONS: Record<GoalSituation, { state: GoalState; branchTotal: number }> = {
	none: { state: EMPTY_STATE, branchTotal: 0 },
	working: { state: started(), branchTotal: 0 },
	waiting: {
		state: reduceGoal(started(), { type: "wait", reason: "CI", resumeAt: null }, facts()).state,
		branchTotal: 0,
	},
	stopped: { state: stopped("paused"), branchTotal: 0 },
	exhausted: {
		state: reduceGoal(started(1000), { type: "budget_check" }, facts(5000)).state,
		branchTotal: 5000,
	},
};

/** The `/goal …` commands a refusal names (placeholders filled in), in order. */
function suggested(error: string): string[] {
	const meant = /did you mean (.*?)\? To start/.exec(error)?.[1] ?? "";
	return [...meant.matchAll(/\/goal(?: [^\s()]+)*/g)].map((match) =>
		match[0].replace("<objective>", "the objective").replace(/ N\b/, " 300k"),
	);
}

/** Whether `/goal <text>` works in this state: parsed, and (for a goal change) accepted by the reducer. */
function works(text: string, at: { state: GoalState; branchTotal: number }): boolean {
	const parsed = parseGoalCommand(
		text.replace(/^\/goal ?/, ""),
		goalSituation(at.state.goal, at.branchTotal),
	);
	if (!parsed.ok) return false;
	const command = parsed.command;
	const event: GoalEvent | undefined =
		command.kind === "pause"
			? { type: "pause", reason: "user" }
			: command.kind === "resume"
				? { type: "resume", newId: "g-2" }
				: command.kind === "clear"
					? { type: "clear" }
					: command.kind === "edit"
						? { type: "edit", newId: "g-2", objective: command.objective, tokenBudget: command.tokenBudget }
						: command.kind === "start"
							? { type: "start", id: "g-2", objective: command.objective, tokenBudget: command.tokenBudget }
							: undefined;
	if (!event) return true;
	const result = reduceGoal(at.state, event, facts(at.branchTotal));
	// Resume of a working goal is refused ("already active"); a change that changes nothing does nothing.
	return result.error === undefined && result.state !== at.state;
}

describe("near-command refusals fit the state", () => {
	it("rule: every suggested command works in the goal's current situation", () => {
		for (const [situation, at] of Object.entries(SITUATIONS)) {
			expect(goalSituation(at.state.goal, at.branchTotal), situation).toBe(situation);
			for (const word of WORDS) {
				const parsed = parseGoalCommand(word, situation as GoalSituation);
				expect(parsed.ok, `${word} (${situation})`).toBe(false);
				if (parsed.ok) continue;
				expect(parsed.error, `${word} (${situation})`).toContain(`/goal -- ${word}`);
				for (const command of suggested(parsed.error))
					expect(works(command, at), `${word} (${situation}) suggests ${command}`).toBe(true);
			}
		}
	});

	it("rule: budget 200k without a goal suggests starting one with that budget, with a goal editing it", () => {
		expect(parseGoalCommand("budget 200k", "none")).toMatchObject({
			error: expect.stringContaining("did you mean /goal --tokens 200k <objective>?"),
		});
		expect(parseGoalCommand("tokens 1.5m", "none")).toMatchObject({
			error: expect.stringContaining("did you mean /goal --tokens 1.5m <objective>?"),
		});
		for (const situation of ["working", "waiting", "stopped", "exhausted"] as const)
			expect(parseGoalCommand("budget 200k", situation)).toMatchObject({
				error: expect.stringContaining("did you mean /goal edit --tokens 200k <objective>?"),
			});
	});

	it("rule: restart suggests resume only when a stopped goal exists, else starting one", () => {
		const meant = (situation: GoalSituation) => {
			const parsed = parseGoalCommand("restart", situation);
			return parsed.ok ? [] : suggested(parsed.error);
		};
		expect(meant("none")).toEqual(["/goal the objective"]);
		expect(meant("stopped")).toEqual(["/goal resume"]);
		expect(meant("waiting")).toEqual(["/goal resume"]);
		expect(meant("working")).toEqual(["/goal status"]);
		expect(meant("exhausted")).toEqual(["/goal edit --tokens 300k the objective"]);
	});

	it("rule: a refusal never depends on the situation, only its text does", () => {
		for (const word of [...WORDS, "stop the flaky test", "budget the release work"])
			for (const situation of Object.keys(SITUATIONS) as GoalSituation[])
				expect(parseGoalCommand(word, situation).ok, `${word} (${situation})`).toBe(
					parseGoalCommand(word).ok,
				);
	});
});
