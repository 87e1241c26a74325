import { readdirSync } from "node:fs";
import { join } from "node:path";
import { checkPureImports } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import { validateGoalSettings } from "../src/adapters/settings.js";
import { contractRevisionSince, resetAhead } from "../src/adapters/window.js";
import { formatTokens, goalTokens, messageTokens, parseTokenCount } from "../src/core/accounting.js";
import { completeGoalArgs, parseGoalCommand } from "../src/core/command-parse.js";
import { unfinishedAdmission } from "../src/core/completion.js";
import { contractMessage } from "../src/core/contract.js";
import { footerText } from "../src/core/footer.js";
import { EMPTY_STATE, type GoalFacts, reduceGoal } from "../src/core/goal-machine.js";
import { classifySettlement, mayContinue } from "../src/core/outcome.js";
import { scanBranch, stateEntryData } from "../src/core/persistence.js";
import { countTurn, fingerprint, freshSafety } from "../src/core/safety.js";
import { DEFAULT_SETTINGS, type GoalRecord, type GoalState } from "../src/core/types.js";

const facts = (over: Partial<GoalFacts> = {}): GoalFacts =>
	Object.freeze({ now: 1000, branchTotal: 0, settings: DEFAULT_SETTINGS, ...over });

function started(
	over: Partial<GoalFacts> = {},
	tokenBudget: number | null = null,
	runId?: string,
): GoalState {
	return reduceGoal(
		EMPTY_STATE,
		{ type: "start", id: "g-1", objective: "o", tokenBudget, runId },
		facts(over),
	).state;
}

describe("accounting", () => {
	it("prefers a finite non-negative totalTokens, else sums the parts", () => {
		expect(messageTokens({ totalTokens: 42, input: 1 })).toBe(42);
		expect(messageTokens({ totalTokens: Number.NaN, input: 1, output: 2, cacheRead: 3, cacheWrite: 4 })).toBe(
			10,
		);
		expect(messageTokens({ totalTokens: -1, input: -5, output: 2 })).toBe(2);
	});
	it("goal usage is branch total minus baseline, clamped at zero after rewinds", () => {
		expect(goalTokens({ spent: 10, baseline: 100 }, 150)).toBe(60);
		expect(goalTokens({ spent: 10, baseline: 100 }, 40)).toBe(10);
	});
	it("parses token budgets 100k, 1.5m, 300000 and rejects junk", () => {
		expect(parseTokenCount("100k")).toBe(100_000);
		expect(parseTokenCount("1.5m")).toBe(1_500_000);
		expect(parseTokenCount("300000")).toBe(300_000);
		expect(parseTokenCount("0")).toBeUndefined();
		expect(parseTokenCount("-5k")).toBeUndefined();
		expect(parseTokenCount("lots")).toBeUndefined();
		expect(formatTokens(80_000)).toBe("80k");
	});
});

describe("goal state machine", () => {
	it("resume of a stopped goal rotates the id and starts a fresh safety epoch", () => {
		const paused = reduceGoal(started(), { type: "pause", reason: "user" }, facts()).state;
		const resumed = reduceGoal(paused, { type: "resume", newId: "g-2" }, facts()).state;
		expect(resumed.goal?.id).toBe("g-2");
		expect(resumed.goal?.status).toBe("active");
		expect(resumed.goal?.safety.epoch).toBe((paused.goal?.safety.epoch ?? 0) + 1);
	});
	it("resume of a waiting goal keeps its id", () => {
		const waiting = reduceGoal(started(), { type: "wait", reason: "ci", resumeAt: 5000 }, facts()).state;
		const resumed = reduceGoal(waiting, { type: "resume", newId: "g-9" }, facts()).state;
		expect(resumed.goal?.id).toBe("g-1");
		expect(resumed.goal?.wait).toBeUndefined();
	});
	it("edit gives a new id; a stopped goal stays stopped unless the edit raises an exhausted budget", () => {
		const limited = reduceGoal(started({}, 100), { type: "budget_check" }, facts({ branchTotal: 150 })).state;
		expect(limited.goal?.status).toBe("budget_limited");
		const same = reduceGoal(
			limited,
			{ type: "edit", newId: "g-2", objective: "o2" },
			facts({ branchTotal: 150 }),
		);
		expect(same.state.goal?.status).toBe("budget_limited");
		const raised = reduceGoal(
			limited,
			{ type: "edit", newId: "g-3", objective: "o3", tokenBudget: 1000 },
			facts({ branchTotal: 150 }),
		);
		expect(raised.state.goal?.status).toBe("active");
		const paused = reduceGoal(started(), { type: "pause", reason: "user" }, facts()).state;
		expect(
			reduceGoal(paused, { type: "edit", newId: "g-4", objective: "x" }, facts()).state.goal?.status,
		).toBe("paused");
	});
	it("budget exhaustion moves to budget_limited once and aborts", () => {
		const first = reduceGoal(started({}, 100), { type: "budget_check" }, facts({ branchTotal: 100 }));
		expect(first.effects).toEqual([{ type: "persist" }, { type: "abort" }, { type: "cancelWake" }]);
		const second = reduceGoal(first.state, { type: "budget_check" }, facts({ branchTotal: 500 }));
		expect(second.state).toBe(first.state);
		expect(second.effects).toEqual([]);
	});
	it("a managed run gets exactly one terminal effect", () => {
		const done = reduceGoal(started({}, null, "r1"), { type: "complete", summary: "s" }, facts());
		expect(done.effects).toMatchObject([
			{ type: "persist" },
			{ type: "terminal", runId: "r1", status: "complete" },
			{ type: "cancelWake" },
		]);
		const resumed = reduceGoal(done.state, { type: "resume", newId: "g-2" }, facts()).state;
		const again = reduceGoal(resumed, { type: "complete", summary: "s" }, facts());
		expect(again.effects.some((effect) => effect.type === "terminal")).toBe(false);
	});
	it("invalid transitions are rejected with the state unchanged", () => {
		const state = started();
		const result = reduceGoal(state, { type: "resume", newId: "x" }, facts());
		expect(result.error).toMatch(/already active/);
		expect(result.state).toBe(state);
		expect(reduceGoal(EMPTY_STATE, { type: "pause", reason: "user" }, facts()).error).toBeDefined();
	});
	it("elapsed time stops while waiting", () => {
		const waiting = reduceGoal(
			started(),
			{ type: "wait", reason: "x", resumeAt: null },
			facts({ now: 4000 }),
		).state;
		expect(waiting.goal?.clock).toEqual({ activeMs: 3000, since: null });
	});
});

describe("safety", () => {
	it("no-progress counts identical normalised tool-free replies and any tool call resets it", () => {
		let safety = freshSafety(1);
		const settings = { automaticTurns: null, noProgressTurns: 3 };
		safety = countTurn(safety, { automatic: true, toolCalls: 0, text: "Same" }, settings).safety;
		safety = countTurn(safety, { automatic: true, toolCalls: 1, text: "Same" }, settings).safety;
		expect(safety.noProgress).toBe(0);
		safety = countTurn(safety, { automatic: true, toolCalls: 0, text: "same " }, settings).safety;
		safety = countTurn(safety, { automatic: true, toolCalls: 0, text: "SAME" }, settings).safety;
		expect(countTurn(safety, { automatic: true, toolCalls: 0, text: "same" }, settings).trip).toBe(
			"no-progress",
		);
	});
	it("the fingerprint is fixed-size and holds no raw text", () => {
		const print = fingerprint("secret ".repeat(1000));
		expect(print.length).toBeLessThanOrEqual(13);
		expect(print).not.toContain("secret");
	});
	it("automaticTurns counts every response of the goal, in any run (issue 30); null is unlimited", () => {
		const manual = countTurn(
			freshSafety(1),
			{ automatic: false, toolCalls: 1, text: "" },
			{ automaticTurns: 1, noProgressTurns: null },
		);
		expect(manual.trip).toBe("automatic-turns");
		const auto = countTurn(
			freshSafety(1),
			{ automatic: true, toolCalls: 1, text: "" },
			{ automaticTurns: 1, noProgressTurns: null },
		);
		expect(auto.trip).toBe("automatic-turns");
		const unlimited = countTurn(
			freshSafety(1),
			{ automatic: true, toolCalls: 1, text: "" },
			{ automaticTurns: null, noProgressTurns: null },
		);
		expect(unlimited.trip).toBeUndefined();
	});
});

describe("command parsing", () => {
	it("parses every form and rejects malformed input with a clear error", () => {
		expect(parseGoalCommand("")).toEqual({ ok: true, command: { kind: "status" } });
		expect(parseGoalCommand("--tokens 1.5m do it")).toEqual({
			ok: true,
			command: { kind: "start", objective: "do it", tokenBudget: 1_500_000 },
		});
		expect(parseGoalCommand("edit --tokens 10k new")).toEqual({
			ok: true,
			command: { kind: "edit", objective: "new", tokenBudget: 10_000 },
		});
		expect(parseGoalCommand("--tokens abc x")).toMatchObject({
			ok: false,
			error: expect.stringMatching(/token budget/),
		});
		expect(parseGoalCommand("--tokens 5k")).toMatchObject({ ok: false });
		expect(parseGoalCommand("x".repeat(4001))).toMatchObject({
			ok: false,
			error: expect.stringMatching(/4000/),
		});
		expect(parseGoalCommand("--bogus x")).toMatchObject({ ok: false });
		expect(parseGoalCommand("retry-usage-limits maybe")).toMatchObject({ ok: false });
	});
	it("an option without its value says the value is missing, not that the option is unknown", () => {
		for (const args of ["--tokens", "--cost", "edit --cost", "--cost 2 --tokens", "--tokens 5k --cost"]) {
			const parsed = parseGoalCommand(args);
			expect(parsed, args).toMatchObject({ ok: false, error: expect.stringMatching(/needs a value/) });
			expect(parsed, args).not.toMatchObject({ error: expect.stringMatching(/Unknown option/) });
		}
	});
	it("`--` after the options ends them: the rest is the objective, taken literally", () => {
		expect(parseGoalCommand("--tokens 100k -- --verbose flag support")).toEqual({
			ok: true,
			command: { kind: "start", objective: "--verbose flag support", tokenBudget: 100_000 },
		});
		expect(parseGoalCommand("--cost 2 -- status")).toEqual({
			ok: true,
			command: { kind: "start", objective: "status", tokenBudget: null, costLimit: 2 },
		});
		expect(parseGoalCommand("edit --tokens 5k -- --json output")).toEqual({
			ok: true,
			command: { kind: "edit", objective: "--json output", tokenBudget: 5_000 },
		});
		expect(parseGoalCommand("--tokens 100k --")).toMatchObject({
			ok: false,
			error: "The objective is empty.",
		});
		expect(parseGoalCommand("edit -- --json output")).toMatchObject({
			ok: true,
			command: { kind: "edit", objective: "--json output" },
		});
	});
	it("a subcommand word that takes no text, followed by text, begins an objective", () => {
		expect(parseGoalCommand("pause")).toEqual({ ok: true, command: { kind: "pause" } });
		expect(parseGoalCommand("clear the build warnings in src/")).toEqual({
			ok: true,
			command: { kind: "start", objective: "clear the build warnings in src/", tokenBudget: null },
		});
		expect(parseGoalCommand("-- edit the README")).toEqual({
			ok: true,
			command: { kind: "start", objective: "edit the README", tokenBudget: null },
		});
		expect(parseGoalCommand("--")).toMatchObject({ ok: false, error: "The objective is empty." });
		expect(parseGoalCommand("edit the README")).toEqual({
			ok: true,
			command: { kind: "edit", objective: "the README", orStart: "edit the README" },
		});
	});
	it("completes subcommands", () => {
		expect(completeGoalArgs("pa")?.map((item) => item.value)).toEqual(["pause"]);
		expect(completeGoalArgs("zzz")).toBeNull();
	});
	it("a bare command-like word is refused with the command meant, never started as a goal", () => {
		for (const text of [
			"stop",
			"Cancel",
			"abort",
			"quit",
			"exit",
			"end",
			"done",
			"continue",
			"show",
			"budget 200k",
			"tokens 1.5m",
		]) {
			const parsed = parseGoalCommand(text);
			expect(parsed, text).toMatchObject({ ok: false });
			if (!parsed.ok) expect(parsed.error).toContain(`/goal -- ${text}`);
		}
		expect(parseGoalCommand("stop", "working")).toMatchObject({
			error: expect.stringContaining("/goal pause"),
		});
		expect(parseGoalCommand("budget 200k")).toMatchObject({ error: expect.stringContaining("--tokens") });
		// With more text it is an objective, and `--` always takes the text literally.
		expect(parseGoalCommand("stop the flaky test from timing out")).toMatchObject({
			ok: true,
			command: { kind: "start", objective: "stop the flaky test from timing out" },
		});
		expect(parseGoalCommand("budget the release work")).toMatchObject({
			ok: true,
			command: { kind: "start" },
		});
		expect(parseGoalCommand("-- stop")).toEqual({
			ok: true,
			command: { kind: "start", objective: "stop", tokenBudget: null },
		});
	});
	it("completes on and off after retry-usage-limits", () => {
		expect(completeGoalArgs("retry-usage-limits ")?.map((item) => item.value)).toEqual([
			"retry-usage-limits on",
			"retry-usage-limits off",
		]);
		expect(completeGoalArgs("retry-usage-limits of")?.map((item) => item.value)).toEqual([
			"retry-usage-limits off",
		]);
		expect(completeGoalArgs("retry-usage-limits x")).toBeNull();
	});
});

describe("contract, outcome, footer, settings, persistence", () => {
	it("goal_complete asks about (never rejects) admissions of unfinished work", () => {
		expect(unfinishedAdmission("Not done yet, but close")).toBeDefined();
		expect(unfinishedAdmission("Still need to add docs")).toBeDefined();
		expect(unfinishedAdmission("All 12 tests pass; README updated.")).toBeUndefined();
	});
	it("the contract holds no mutable accounting", () => {
		const goal = started({}, 100_000).goal;
		if (!goal) throw new Error("the goal did not start");
		const text = contractMessage(
			{ ...goal, iteration: 9, safety: { ...goal.safety, automaticTurns: 7 } },
			3,
		).content;
		expect(text).toBe(contractMessage(goal, 3).content);
	});
	it("classifies settled runs: abort wins, failed recovery blocks, errors wait or stop on usage", () => {
		const clean = { aborted: false, compactionCancelled: false, compactionRecoveryFailed: false };
		const error = (over: object = {}) => ({
			detail: "x",
			nativeRetryable: false,
			nativeOverflow: false,
			usageLimit: false,
			...over,
		});
		const off = { retryUsageLimits: false };
		expect(mayContinue("completed", clean)).toBe(true);
		expect(mayContinue("error", clean)).toBe(false);
		expect(mayContinue("completed", { ...clean, compactionRecoveryFailed: true })).toBe(false);
		expect(classifySettlement(clean, off).kind).toBe("none");
		expect(
			classifySettlement({ ...clean, aborted: true, error: error({ usageLimit: true }) }, off).kind,
		).toBe("pause");
		expect(classifySettlement({ ...clean, compactionCancelled: true }, off).kind).toBe("pause");
		expect(classifySettlement({ ...clean, compactionRecoveryFailed: true }, off).kind).toBe("blocked");
		expect(classifySettlement({ ...clean, error: error({ usageLimit: true }) }, off).kind).toBe(
			"usage_limited",
		);
		expect(
			classifySettlement({ ...clean, error: error({ usageLimit: true }) }, { retryUsageLimits: true }).kind,
		).toBe("usage_wait");
		expect(classifySettlement({ ...clean, error: error() }, off)).toMatchObject({ wait: "provider_error" });
		expect(classifySettlement({ ...clean, error: error({ nativeRetryable: true }) }, off)).toMatchObject({
			wait: "provider_retry",
		});
		expect(classifySettlement({ ...clean, error: error() }, { ...off, waiting: "explicit" }).kind).toBe(
			"keep",
		);
	});
	it("footer shows short states in the shared `<noun> <state> · <detail>` grammar", () => {
		const state = started({}, 100_000);
		expect(footerText(state.goal, facts({ now: 181_000, branchTotal: 80_000 }))).toBe(
			"goal: active 3m · 0/25 responses · budget 80k/100k",
		);
		const paused = reduceGoal(state, { type: "pause", reason: "automatic-turns" }, facts()).state;
		expect(footerText(paused.goal, facts())).toMatch(/^goal: paused · limit 0\/25/);
		const waiting = reduceGoal(state, { type: "wait", reason: "CI", resumeAt: null }, facts()).state;
		expect(footerText(waiting.goal, facts())).toMatch(/^goal: waiting CI/);
		const over = { ...state.goal, status: "budget_limited" } as GoalRecord;
		expect(footerText(over, facts({ branchTotal: 100_000 }))).toBe("goal: budget 100k/100k");
		expect(footerText(null, facts())).toBeUndefined();
	});
	it("settings validation rejects the whole file on any bad key", () => {
		expect(
			validateGoalSettings({ automaticTurns: null, noProgressTurns: 5, retryUsageLimits: true }),
		).toEqual({
			ok: true,
			value: { automaticTurns: null, noProgressTurns: 5, retryUsageLimits: true },
		});
		expect(validateGoalSettings({ automaticTurns: 0 }).ok).toBe(false);
		expect(validateGoalSettings({ typo: 1 }).ok).toBe(false);
		expect(validateGoalSettings({ retryUsageLimits: "yes" }).ok).toBe(false);
		expect(validateGoalSettings([]).ok).toBe(false);
	});
	it("the restore scan keeps running totals and the last state", () => {
		const state = started();
		const scanned = scanBranch([
			{ type: "message", message: { role: "assistant", usage: { totalTokens: 5 } } },
			{ type: "custom", customType: "pi-goal/state", data: stateEntryData(state) },
			{
				type: "custom_message",
				customType: "pi-goal/contract",
				details: { revision: 1, goalId: "g-1", active: true },
			},
			{ type: "message", message: { role: "assistant", usage: { input: 2, output: 3 } } },
			{ type: "custom", customType: "pi-goal/state", data: { v: 99 } },
		]);
		expect(scanned.branchTotal).toBe(10);
		expect(scanned.state).toEqual(state);
		expect(scanned.windowRevision).toBe(1);
		expect(
			scanBranch([
				{
					type: "custom_message",
					customType: "pi-goal/contract",
					details: { revision: 1, goalId: "g", active: true },
				},
				{ type: "compaction" },
			]).windowRevision,
		).toBe(-1);
	});
});

describe("contract window", () => {
	type Entry = { id: string; parentId: string | null; type: string; customType?: string; details?: unknown };
	function path(...entries: Omit<Entry, "parentId">[]) {
		const chain: Entry[] = entries.map((entry, i) => ({
			...entry,
			parentId: i === 0 ? null : (entries[i - 1]?.id ?? null),
		}));
		const byId = new Map(chain.map((entry) => [entry.id, entry]));
		return {
			getLeafEntry: () => chain.at(-1),
			getEntry: (id: string) => byId.get(id),
		} as unknown as Parameters<typeof contractRevisionSince>[0];
	}
	const contract = (id: string, revision: number) => ({
		id,
		type: "custom_message",
		customType: "pi-goal/contract",
		details: { revision, goalId: "g", active: true },
	});

	it("the window's revision is the newest contract between the leaf and the window start", () => {
		const session = path(contract("a", 1), { id: "c", type: "compaction" }, contract("b", 2), {
			id: "m",
			type: "message",
		});
		expect(contractRevisionSince(session, "c")).toBe(2);
		expect(contractRevisionSince(path(contract("a", 1), { id: "c", type: "compaction" }), "c")).toBe(-1);
		// Kept entries before the compaction count; an older compaction ends the walk.
		const kept = path(contract("x", 1), { id: "old", type: "compaction" }, contract("k", 3), {
			id: "c2",
			type: "compaction",
		});
		expect(contractRevisionSince(kept, "k")).toBe(3);
		expect(
			contractRevisionSince(
				path(contract("x", 1), { id: "old", type: "compaction" }, { id: "c2", type: "compaction" }),
				"x",
			),
		).toBe(-1);
	});

	it("a reset is ahead when a reset draft is proposed or new_context was accepted in the turn", () => {
		const reset = { type: "compaction" as const, summary: "", firstKeptEntryId: null };
		expect(resetAhead({ entries: [reset] })).toBe(true);
		expect(resetAhead({ entries: [{ ...reset, firstKeptEntryId: "e1" }] })).toBe(false);
		const result = (details: unknown, isError = false) => ({
			entries: [],
			toolResults: [{ toolName: "new_context", isError, details }],
		});
		expect(resetAhead(result({ status: "requested" }))).toBe(true);
		expect(resetAhead(result({ status: "already-pending" }))).toBe(true);
		expect(resetAhead(result({ status: "off" }))).toBe(false);
		expect(resetAhead(result({ status: "requested" }, true))).toBe(false);
		expect(resetAhead({ entries: [], toolResults: [{ toolName: "read", isError: false }] })).toBe(false);
	});
});

describe("module boundaries", () => {
	it("pure core modules do not import Pi", () => {
		// src/core/ and everything it loads at runtime, found by following relative imports (no file list).
		// The one exception is pi-ai's pure error classifiers (isContextOverflow, isRetryableAssistantError),
		// which errors.ts uses so the replay classifies errors exactly as Pi does, and the kit's text entry
		// (text bounds that never split a character; it has no runtime import at all).
		const core = join(import.meta.dirname, "..", "src", "core");
		const entries = readdirSync(core)
			.filter((file) => file.endsWith(".ts"))
			.map((file) => join(core, file));
		const report = checkPureImports(entries, {
			allow: (specifier) =>
				specifier === "@earendil-works/pi-ai" || specifier === "@pi-lifecycle/lifecycle-kit/text",
		});
		expect(report.violations).toEqual([]);
		expect(report.files.filter((file) => !file.startsWith(core))).toEqual([]);
	});
});
