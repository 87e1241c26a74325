/**
 * The stuck detector's rules (stuck.ts), each against both halves of the corpus: it finds its own
 * stuck scenarios within 8 responses and never fires on any progress scenario.
 */
import { describe, expect, it } from "vitest";
import { fingerprint } from "../src/core/safety.js";
import {
	actionCycle,
	observeStep,
	repeatedAction,
	repeatedError,
	repeatedReply,
	type StuckThresholds,
} from "../src/core/stuck.js";
import { normalizeToolOutput, replyStep, type StuckStep, toolStep } from "../src/core/stuck-facts.js";
import { DEFAULT_SETTINGS } from "../src/core/types.js";
import { CORPUS, type CorpusStep, PROGRESS, type Scenario, STUCK } from "./stuck-corpus/scenarios.js";

const DEFAULTS: StuckThresholds = {
	repeatedActions: DEFAULT_SETTINGS.repeatedActions,
	repeatedErrors: DEFAULT_SETTINGS.repeatedErrors,
	cycleActions: DEFAULT_SETTINGS.cycleActions,
	noProgressTurns: DEFAULT_SETTINGS.noProgressTurns,
};

/** The detector's step of a corpus response (undefined: a goal_wait, which restarts the rules). */
function stepOf(step: CorpusStep, index: number): StuckStep | undefined {
	if ("text" in step) return replyStep(step.text);
	if ("wait" in step) return undefined;
	const calls = step.calls.map((call, i) => ({ id: `c${index}-${i}`, name: call.tool, args: call.args }));
	const results = step.calls.map((call, i) => ({
		id: `c${index}-${i}`,
		isError: call.isError === true,
		text: call.output,
	}));
	return toolStep(calls, results);
}

type Rule = (recent: readonly StuckStep[]) => { rule: string; reason: string } | undefined;

/** The 1-based response at which `rule` first fires on `scenario`, or undefined. */
function firstFire(scenario: Scenario, rule: Rule): number | undefined {
	let recent: readonly StuckStep[] = [];
	for (const [i, step] of scenario.steps.entries()) {
		recent = observeStep(recent, stepOf(step, i), {
			repeatedActions: null,
			repeatedErrors: null,
			cycleActions: null,
			noProgressTurns: null,
		}).recent;
		if (rule(recent)) return i + 1;
	}
	return undefined;
}

const RULES: Record<string, Rule> = {
	"repeated-action": (recent) => repeatedAction(recent, DEFAULTS.repeatedActions),
	"repeated-error": (recent) => repeatedError(recent, DEFAULTS.repeatedErrors),
	"action-cycle": (recent) => actionCycle(recent, DEFAULTS.cycleActions),
	"repeated-reply": (recent) => repeatedReply(recent, DEFAULTS.noProgressTurns),
};

describe("stuck rules against the corpus", () => {
	for (const [name, rule] of Object.entries(RULES)) {
		it(`${name}: fires within 8 responses on its stuck scenarios`, () => {
			const own = STUCK.filter((scenario) => scenario.rule === name);
			expect(own.length).toBeGreaterThan(0);
			for (const scenario of own) expect(firstFire(scenario, rule), scenario.name).toBeLessThanOrEqual(8);
		});
		it(`${name}: never fires on real progress`, () => {
			for (const scenario of PROGRESS) expect(firstFire(scenario, rule), scenario.name).toBeUndefined();
		});
	}

	it("observeStep with the default thresholds: every stuck scenario within 8, no progress scenario ever", () => {
		for (const scenario of CORPUS) {
			let recent: readonly StuckStep[] = [];
			let fired: number | undefined;
			for (const [i, step] of scenario.steps.entries()) {
				const observed = observeStep(recent, stepOf(step, i), DEFAULTS);
				recent = observed.recent;
				if (observed.finding && fired === undefined) {
					fired = i + 1;
					expect(observed.finding.rule, scenario.name).toBe(scenario.rule);
				}
			}
			if (scenario.kind === "stuck") expect(fired, scenario.name).toBeLessThanOrEqual(8);
			else expect(fired, scenario.name).toBeUndefined();
		}
	});
});

describe("stuck facts", () => {
	it("a reason names what repeated and what to do next", () => {
		const npm = STUCK[0] as Scenario;
		let recent: readonly StuckStep[] = [];
		let reason = "";
		for (const [i, step] of npm.steps.entries()) {
			const observed = observeStep(recent, stepOf(step, i), DEFAULTS);
			recent = observed.recent;
			if (observed.finding) {
				reason = observed.finding.reason;
				break;
			}
		}
		expect(reason).toContain("`npm test` failed 4 times");
		expect(reason).toContain("/goal resume");
	});

	it("volatile output (times, durations, long ids) is ignored; small counts are kept", () => {
		expect(normalizeToolOutput("Time: 1.23 s at 2026-12-03T08:01:11Z pid 48213")).toBe(
			normalizeToolOutput("Time: 4.5 s at 2026-12-03T09:11:02Z pid 51002"),
		);
		expect(normalizeToolOutput("Tests: 3 failed")).not.toBe(normalizeToolOutput("Tests: 2 failed"));
	});

	it("values that change on every run (addresses, UUIDs, pids, seeds, composite durations, numbered temp dirs) are ignored", () => {
		const pairs: [string, string][] = [
			["<Config object at 0x7f3a2b1c4d90>", "<Config object at 0x7f3a2c4e1a22>"],
			["Segfault at 0x0000563a1b2c", "Segfault at 0x00005611ff00"],
			["RequestId: 3f2a9c1e-9a1b-4c2d-8e1f-1a2b3c4d5e6f", "RequestId: b81d0e77-c2d3-4a9e-b0c1-77aa88bb99cc"],
			["(node:87) Warning: boom", "(node:101) Warning: boom"],
			["spawned helper pid 203", "spawned helper PID: 4410"],
			["Randomized with seed 1000", "Randomized with seed 1037"],
			["real\t0m1.234s\nuser\t0m0.2s", "real\t0m3.9s\nuser\t0m0.31s"],
			["done (took 1m10s)", "done (took 1h2m3.5s)"],
			["/tmp/pytest-of-dev/pytest-3/sync0/out.json", "/tmp/pytest-of-dev/pytest-14/sync0/out.json"],
		];
		for (const [a, b] of pairs) expect(normalizeToolOutput(a), a).toBe(normalizeToolOutput(b));
		// What the work changes stays: a different file, a different count, a different exit status.
		expect(normalizeToolOutput("/tmp/a/one.json")).not.toBe(normalizeToolOutput("/tmp/a/two.json"));
		expect(normalizeToolOutput("3 of 40 done")).not.toBe(normalizeToolOutput("4 of 40 done"));
		expect(normalizeToolOutput("exited with code 1")).not.toBe(normalizeToolOutput("exited with code 2"));
		// Review: where an error is and how far a batch job got are progress, not per-run values.
		expect(normalizeToolOutput("at importRow (src/import.ts:48:17)")).not.toBe(
			normalizeToolOutput("at importRow (src/import.ts:73:22)"),
		);
		expect(normalizeToolOutput("Backfilled rows 40001-41000")).not.toBe(
			normalizeToolOutput("Backfilled rows 41001-42000"),
		);
		expect(normalizeToolOutput("Imported ids 41001000-41002000")).not.toBe(
			normalizeToolOutput("Imported ids 41002001-41003000"),
		);
		expect(normalizeToolOutput("HEAD is now at 9fceb02d0ae598e95dc970b74767f19372d61af8")).toBe(
			normalizeToolOutput("HEAD is now at 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"),
		);
		expect(normalizeToolOutput("ts=1764748871123 listening on 127.0.0.1:54321 at 14:01:22")).toBe(
			normalizeToolOutput("ts=1764748899456 listening on 127.0.0.1:60123 at 14:02:07"),
		);
	});

	it("near-identical replies (punctuation, markdown, quotes and numbers aside) are the same reply", () => {
		for (const variants of [
			[
				"**Step 3:** still analysing the parser.",
				"Step 4: still analysing the parser...",
				"Step 5 — still analysing the parser!",
			],
			[
				"I'll continue working on the goal.",
				"I'll continue working on the goal!",
				"I’ll continue working on the goal.",
			],
			["- analysing `src/a.ts`", "* analysing src/a.ts"],
		])
			expect(new Set(variants.map((text) => replyStep(text).action)).size, variants[0]).toBe(1);
		expect(replyStep("analysing src/a.ts").action).not.toBe(replyStep("analysing src/b.ts").action);
		// The no-progress breaker's fingerprint reads replies the same way.
		expect(fingerprint("Done?")).toBe(fingerprint("**Done!**"));
	});

	it("the same calls of a batch in another order are the same action", () => {
		const read = (path: string) => ({ id: path, name: "read", args: { path } });
		const results = ["a.ts", "b.ts"].map((id) => ({ id, isError: false, text: `contents of ${id}` }));
		const ab = toolStep([read("a.ts"), read("b.ts")], results) as StuckStep;
		const ba = toolStep([read("b.ts"), read("a.ts")], results) as StuckStep;
		expect(ab.action).toBe(ba.action);
		expect(ab.action).not.toBe((toolStep([read("a.ts")], results) as StuckStep).action);
	});

	it("a failure that says nothing (no output, only the exit status) is the same error only for the same call", () => {
		const silent = "(no output)\n\nCommand exited with code 1";
		const grep = (pattern: string) =>
			toolStep(
				[{ id: "c", name: "bash", args: { command: `grep -rn ${pattern} src` } }],
				[{ id: "c", isError: true, text: silent }],
			) as StuckStep;
		expect(grep("parseConfig").error).not.toBe(grep("loadConfig").error);
		expect(grep("parseConfig").error).toBe(grep("parseConfig").error);
		const refused = (command: string) =>
			toolStep(
				[{ id: "c", name: "bash", args: { command } }],
				[
					{
						id: "c",
						isError: true,
						text: "Error: connect ECONNREFUSED 127.0.0.1:5432\n\nCommand exited with code 1",
					},
				],
			) as StuckStep;
		expect(refused("npm run migrate").error).toBe(refused("npm run db:up").error);
	});

	it("a fresh temp directory name in the output is ignored; the file under it is kept", () => {
		const same = [
			"open '/tmp/vite-build-Qx7aZ2/manifest.json'",
			"open '/tmp/vite-build-pL9kWe/manifest.json'",
		].map(normalizeToolOutput);
		expect(same[0]).toBe(same[1]);
		expect(normalizeToolOutput("cd /var/folders/x1/ab_cd/T/tmp-123-AbCdEf && ls")).toBe(
			normalizeToolOutput("cd /var/folders/x1/ab_cd/T/tmp-456-ZyXwVu && ls"),
		);
		expect(normalizeToolOutput("C:\\Users\\me\\AppData\\Local\\Temp\\jest_Ab12\\out.log")).toBe(
			normalizeToolOutput("C:\\Users\\me\\AppData\\Local\\Temp\\jest_Zq98\\out.log"),
		);
		expect(normalizeToolOutput("/tmp/a/one.json")).not.toBe(normalizeToolOutput("/tmp/a/two.json"));
	});

	it("a goal_wait restarts the rules; the window stays at 8 steps", () => {
		const step = replyStep("same");
		const full = Array.from({ length: 20 }).reduce<readonly StuckStep[]>(
			(recent) => observeStep(recent, step, DEFAULTS).recent,
			[],
		);
		expect(full).toHaveLength(8);
		expect(observeStep(full, undefined, DEFAULTS).recent).toEqual([]);
	});

	it("a null threshold turns its rule off", () => {
		const step = replyStep("same");
		const recent = [step, step, step, step];
		expect(repeatedReply(recent, null)).toBeUndefined();
		expect(repeatedAction(recent, null)).toBeUndefined();
	});
});
