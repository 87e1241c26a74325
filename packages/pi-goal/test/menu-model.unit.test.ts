import { describe, expect, it } from "vitest";
import {
	goalIdentity,
	MENU_LABELS,
	menuItems,
	menuTitle,
	objectiveEdit,
	objectiveProblem,
	parseBudget,
	parseBudgetChange,
	parseSettingValue,
	settingsItems,
} from "../src/core/menu-model.js";
import { DEFAULT_SETTINGS, type GoalRecord } from "../src/core/types.js";
import { goalRecord } from "./goal-record.js";

const goal = goalRecord;
const actions = (g: GoalRecord | null) => menuItems(g).map((item) => item.action);

describe("goal manager menu model", () => {
	it("without a goal the menu offers start, start with a budget and settings only", () => {
		expect(actions(null)).toEqual(["start", "start-budget", "settings"]);
		expect(menuItems(null)[0]?.label).toBe(MENU_LABELS.start);
	});

	it("an active goal offers pause, edit, status, replace, clear and settings (no resume)", () => {
		expect(actions(goal())).toEqual([
			"pause",
			"edit",
			"budget",
			"cost",
			"status",
			"start",
			"start-budget",
			"clear",
			"settings",
		]);
		expect(menuItems(goal()).find((i) => i.action === "start")?.label).toBe(MENU_LABELS.replace);
	});

	it("a waiting goal offers resume-now before pause", () => {
		const waiting = goal({ wait: { reason: "ci", resumeAt: null } });
		expect(actions(waiting).slice(0, 2)).toEqual(["resume", "pause"]);
		expect(menuItems(waiting)[0]?.label).toBe(MENU_LABELS.wake);
	});

	it("stopped goals offer resume except a complete one; none offers pause", () => {
		for (const status of ["paused", "blocked", "usage_limited"] as const) {
			expect(actions(goal({ status }))[0]).toBe("resume");
			expect(actions(goal({ status }))).not.toContain("pause");
		}
		expect(actions(goal({ status: "complete" }))).not.toContain("resume");
	});

	it("a budget-limited goal offers a budget change instead of a resume that could only fail", () => {
		const limited = actions(goal({ status: "budget_limited" }));
		expect(limited).not.toContain("resume");
		expect(limited.slice(0, 2)).toEqual(["edit", "budget"]);
		expect(actions(goal({ status: "complete" }))).not.toContain("budget");
	});

	it("a typed budget change is a token count, or off/none to remove the budget", () => {
		expect(parseBudgetChange(" 200k ")).toEqual({ tokens: 200_000 });
		expect(parseBudgetChange("OFF")).toEqual({ tokens: null });
		expect(parseBudgetChange("none")).toEqual({ tokens: null });
		expect(parseBudgetChange("lots").error).toMatch(/Invalid token budget "lots"/);
	});

	it("labels are unique within every menu (the adapter maps the chosen label back)", () => {
		for (const g of [
			null,
			goal(),
			goal({ status: "paused" }),
			goal({ wait: { reason: "x", resumeAt: 1 } }),
		]) {
			const labels = menuItems(g).map((i) => i.label);
			expect(new Set(labels).size).toBe(labels.length);
		}
	});

	it("the identity a dialog captures changes with the goal id, the status and waiting", () => {
		const base = goalIdentity(goal());
		expect(goalIdentity(goal())).toBe(base);
		expect(goalIdentity(goal({ id: "g-2" }))).not.toBe(base);
		expect(goalIdentity(goal({ status: "complete" }))).not.toBe(base);
		expect(goalIdentity(goal({ wait: { reason: "x", resumeAt: null } }))).not.toBe(base);
		expect(goalIdentity(null)).toBe("none");
		// Progress inside the same goal does not count as a change.
		expect(goalIdentity(goal({ iteration: 5 }))).toBe(base);
	});

	it("the title names the goal, its state and a shortened objective", () => {
		expect(menuTitle(null)).toBe("Goal · none");
		expect(menuTitle(goal())).toBe("Goal g-1 · active · ship it");
		expect(menuTitle(goal({ status: "budget_limited" }))).toBe("Goal g-1 · budget used up · ship it");
		expect(menuTitle(goal({ status: "usage_limited" }))).toBe("Goal g-1 · usage limit reached · ship it");
		expect(menuTitle(goal({ objective: "x".repeat(100) })).length).toBeLessThan(90);
	});

	it("typed objectives and budgets are validated with clear errors", () => {
		expect(objectiveProblem("  ")).toMatch(/empty/);
		expect(objectiveProblem("x".repeat(4001))).toMatch(/limit is 4000/);
		expect(objectiveProblem("fine")).toBeUndefined();
		expect(parseBudget("100k")).toEqual({ tokens: 100_000 });
		expect(parseBudget("lots").error).toMatch(/Invalid token budget "lots"/);
	});

	it("an objective edited in the dialog is taken literally: a leading --tokens is text, not an option", () => {
		expect(objectiveEdit("ship it", "--tokens 5k is a flag the CLI must accept\n")).toEqual({
			kind: "edit",
			objective: "--tokens 5k is a flag the CLI must accept",
		});
		expect(objectiveEdit("ship it", "--dry-run support")).toEqual({
			kind: "edit",
			objective: "--dry-run support",
		});
		expect(objectiveEdit("ship it", "line one\nline two")).toEqual({
			kind: "edit",
			objective: "line one\nline two",
		});
	});

	it("a cancelled or unchanged edit does nothing; an empty or over-long one says why", () => {
		expect(objectiveEdit("ship it", undefined)).toEqual({ kind: "unchanged" });
		expect(objectiveEdit("ship it", "  ship it \n")).toEqual({ kind: "unchanged" });
		expect(objectiveEdit("ship it", " \n ")).toEqual({ kind: "invalid", error: "The objective is empty." });
		expect(objectiveEdit("ship it", "x".repeat(4001))).toMatchObject({
			kind: "invalid",
			error: expect.stringMatching(/limit is 4000/),
		});
	});

	it("settings show current values and typed values parse like the settings file accepts them", () => {
		expect(settingsItems(DEFAULT_SETTINGS).map((i) => i.label)).toEqual([
			"automaticTurns: 25 · responses the agent may give for a goal before the goal pauses",
			"noProgressTurns: 3 · identical replies in a row, without progress, that pause the goal",
			"retryUsageLimits: off · on: at a provider's usage limit the goal waits and retries once by itself",
		]);
		expect(settingsItems({ ...DEFAULT_SETTINGS, automaticTurns: null })[0]?.label).toMatch(
			/^automaticTurns: unlimited · /,
		);
		expect(parseSettingValue("automaticTurns", " 40 ")).toEqual({ value: 40 });
		expect(parseSettingValue("noProgressTurns", "off")).toEqual({ value: null });
		expect(parseSettingValue("automaticTurns", "0").error).toMatch(/1 to 10000/);
		expect(parseSettingValue("noProgressTurns", "1001").error).toMatch(/1 to 1000/);
		expect(parseSettingValue("automaticTurns", "2.5").error).toBeDefined();
	});
});

describe("money limit in the menu (issue 30)", () => {
	it("a typed money limit: dollars, off, or a clear error", async () => {
		const { parseCostChange } = await import("../src/core/menu-model.js");
		expect(parseCostChange("2.50")).toEqual({ cost: 2.5 });
		expect(parseCostChange("off")).toEqual({ cost: null });
		for (const bad of ["abc", "-1", "0"]) expect(parseCostChange(bad).error).toContain("Invalid money limit");
	});
});
