/**
 * Issue 30 (3): a money limit, `/goal --cost X <objective>` (and `/goal edit --cost X`), from the
 * cost Pi reports with each response (`usage.cost.total`). A goal stopped by it is budget-limited
 * with a clear reason; a model that reports no cost is said once instead of pretending the limit works.
 */
import { createScriptedSession, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseGoalCommand } from "../src/core/command-parse.js";
import { footerText } from "../src/core/footer.js";
import { DEFAULT_SETTINGS, type GoalRecord } from "../src/core/types.js";
import { toolsExtension } from "./fixtures.js";
import { goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.restoreAllMocks();
});

const cost = (total: number) => ({
	input: 100,
	output: 50,
	totalTokens: 150,
	cost: { input: total / 2, output: total / 2, cacheRead: 0, cacheWrite: 0, total },
});

describe("money limit", () => {
	it("a goal stops as budget-limited once the reported cost reaches its money limit", async () => {
		harness = await createScriptedSession({
			extensions: [toolsExtension(), goalExtension()],
			recorderPosition: "first",
			responses: Array.from({ length: 20 }, (_, n) => toolCall("noop", { n })),
		});
		harness.setUsage(() => cost(0.3));
		await harness.prompt("/goal --cost 1.00 tidy the repo");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "budget_limited", costLimit: 1 });
		expect(lastGoal(harness).outcome).toContain("cost limit $1.00 reached ($1.20 spent)");
		expect(harness.providerCalls).toBe(4);
	});

	it("/goal edit --cost raises the limit and the goal works again", async () => {
		harness = await createScriptedSession({
			extensions: [toolsExtension(), goalExtension()],
			recorderPosition: "first",
			responses: Array.from({ length: 20 }, (_, n) => toolCall("noop", { n })),
		});
		harness.setUsage(() => cost(0.3));
		await harness.prompt("/goal --cost 0.50 tidy the repo");
		await settle(harness);
		expect(lastGoal(harness).status).toBe("budget_limited");
		const before = harness.providerCalls;
		await harness.prompt("/goal edit --cost 1.50 tidy the repo");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "budget_limited", costLimit: 1.5 });
		expect(harness.providerCalls - before).toBe(3);
	});

	it("a model that reports no cost is said once, in a notice and in the status", async () => {
		const errors: string[] = [];
		vi.spyOn(console, "error").mockImplementation((line: unknown) => void errors.push(String(line)));
		vi.spyOn(console, "log").mockImplementation(() => {});
		harness = await createScriptedSession({
			extensions: [toolsExtension(), goalExtension({ settings: { automaticTurns: 4 } })],
			recorderPosition: "first",
			responses: Array.from({ length: 20 }, (_, n) => toolCall("noop", { n })),
		});
		harness.setUsage(() => cost(0));
		await harness.prompt("/goal --cost 2.50 tidy the repo");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", costUnreported: true });
		expect(errors.filter((line) => line.includes("Use a token budget"))).toHaveLength(1);
		await harness.prompt("/goal status");
		expect(errors.join("\n")).toContain("Cost: $0.00 of $2.50 (the model reports no cost");
	});

	it("a model that starts reporting cost (another model chosen) makes the money limit apply again, and the status says so", async () => {
		const errors: string[] = [];
		vi.spyOn(console, "error").mockImplementation((line: unknown) => void errors.push(String(line)));
		vi.spyOn(console, "log").mockImplementation(() => {});
		harness = await createScriptedSession({
			extensions: [toolsExtension(), goalExtension({ settings: { automaticTurns: 20 } })],
			recorderPosition: "first",
			responses: Array.from({ length: 20 }, (_, n) => toolCall("noop", { n })),
		});
		let responses = 0;
		harness.setUsage(() => cost(++responses <= 2 ? 0 : 0.5));
		await harness.prompt("/goal --cost 1.20 tidy the repo");
		await settle(harness);
		const goal = lastGoal(harness);
		expect(goal).toMatchObject({ status: "budget_limited" });
		expect(goal?.costUnreported).toBeUndefined();
		await harness.prompt("/goal status");
		expect(errors.join("\n")).toContain("Cost: $1.50 of $1.20");
		expect(errors.join("\n")).not.toContain("Cost: $1.50 of $1.20 (the model reports no cost");
	});

	it("input is validated with clear errors; help and completion mention --cost", () => {
		for (const bad of ["--cost abc fix it", "--cost -1 fix it", "--cost 0 fix it", "--cost= fix it"]) {
			const parsed = parseGoalCommand(bad);
			expect(parsed.ok, bad).toBe(false);
			if (!parsed.ok) expect(parsed.error).toContain("Invalid money limit");
		}
		expect(parseGoalCommand("--cost 2.50 --tokens 100k fix it")).toEqual({
			ok: true,
			command: { kind: "start", objective: "fix it", tokenBudget: 100_000, costLimit: 2.5 },
		});
		expect(parseGoalCommand("edit --cost $3 fix it")).toMatchObject({
			ok: true,
			command: { kind: "edit", objective: "fix it", costLimit: 3 },
		});
	});

	it("the footer shows the spending against the limit", () => {
		const goal = {
			id: "g-1",
			objective: "x",
			tokenBudget: null,
			status: "active",
			iteration: 0,
			usage: { spent: 0, baseline: 0 },
			clock: { activeMs: 0, since: 0 },
			safety: { epoch: 1, automaticTurns: 0, noProgress: 0, fingerprint: null },
			costLimit: 2.5,
			costSpent: 0.42,
		} as GoalRecord;
		expect(footerText(goal, { now: 0, branchTotal: 0, settings: DEFAULT_SETTINGS })).toContain(
			"cost $0.42/$2.50",
		);
	});
});
