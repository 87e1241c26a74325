/**
 * Persisted-data fuzz (pure readers, for volume): malformed, truncated, legacy and hostile versions
 * of every entry type the packages read back. Each reader must never throw and must either reject
 * the data (fall back) or return a value the rest of the package can use without throwing.
 * Restore through Pi's real session loading is in restore.session.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseSettingsText, type SettingsSpec } from "@pi-lifecycle/lifecycle-kit";
import { FUZZ, runs, Tally } from "@pi-lifecycle/seed-plan";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { GOAL_SETTINGS_SPEC } from "../../packages/pi-goal/src/adapters/settings.js";
import {
	contractText,
	readContinuationDetails,
	readContractDetails,
} from "../../packages/pi-goal/src/core/contract.js";
import { footerText } from "../../packages/pi-goal/src/core/footer.js";
import { reduceGoal } from "../../packages/pi-goal/src/core/goal-machine.js";
import { readStateEntry, scanBranch, stateEntryData } from "../../packages/pi-goal/src/core/persistence.js";
import {
	DEFAULT_SETTINGS as GOAL_DEFAULTS,
	type GoalRecord,
	MAX_OBJECTIVE,
} from "../../packages/pi-goal/src/core/types.js";
import { isStateEntry, readBaseline, stateFromFile } from "../../packages/pi-jscpd/src/adapters/baseline.js";
import { SETTINGS_SPEC as JSCPD_SETTINGS_SPEC } from "../../packages/pi-jscpd/src/adapters/config.js";
import {
	acksOfChangedDetails,
	deliveredBy,
	isDeliveredDetails,
} from "../../packages/pi-jscpd/src/core/deliveries.js";
import { MutationState, replayBranch } from "../../packages/pi-jscpd/src/core/mutations.js";
import { FINDINGS_MESSAGE } from "../../packages/pi-jscpd/src/core/presentation.js";
import { SETTINGS_SPEC as RESET_SETTINGS_SPEC } from "../../packages/pi-reset/src/adapters/settings.js";
import { footerText as resetFooter } from "../../packages/pi-reset/src/core/texts.js";
import { readResetDetails, restoreFromBranch } from "../../packages/pi-reset/src/core/window.js";
import { anyJson, mutations, textVariants } from "./support/hostile.js";

const tally = new Tally();
afterAll(() =>
	tally.verify("fuzz", {
		goalState: FUZZ.goalState,
		goalContract: FUZZ.goalContract,
		goalContinuation: FUZZ.goalContinuation,
		resetState: FUZZ.resetState,
		resetMarkers: FUZZ.resetMarkers,
		jscpdState: FUZZ.jscpdState,
		jscpdBaselineFiles: FUZZ.jscpdBaselineFiles,
		jscpdDeliveries: FUZZ.jscpdDeliveries,
		settingsGoal: FUZZ.settingsGoal,
		settingsReset: FUZZ.settingsReset,
		settingsJscpd: FUZZ.settingsJscpd,
	}),
);

const VALID_GOAL: GoalRecord = {
	id: "g-1a2b3c",
	objective: "make the tests pass",
	tokenBudget: 100_000,
	status: "active",
	wait: { reason: "CI", resumeAt: 1_700_000_100_000, kind: "explicit" },
	iteration: 3,
	usage: { spent: 1_000, baseline: 5_000 },
	clock: { activeMs: 60_000, since: 1_700_000_000_000 },
	safety: { epoch: 2, automaticTurns: 4, noProgress: 1, fingerprint: "0badf00d:10" },
	runId: "run-1",
};
const VALID_STATE = stateEntryData({ goal: VALID_GOAL, revision: 7 });

/** Whether a restored goal is one the package could have written (the "falls back safely" bar). */
function wellFormedGoal(goal: GoalRecord): string[] {
	const problems: string[] = [];
	const finite = (v: unknown) => typeof v === "number" && Number.isFinite(v);
	if (goal.objective.length === 0 || goal.objective.length > MAX_OBJECTIVE) problems.push("objective length");
	if (!(goal.tokenBudget === null || (Number.isSafeInteger(goal.tokenBudget) && goal.tokenBudget > 0)))
		problems.push("tokenBudget");
	if (!finite(goal.iteration)) problems.push("iteration");
	if (!finite(goal.usage.spent) || !(goal.usage.baseline === null || finite(goal.usage.baseline)))
		problems.push("usage");
	if (!finite(goal.clock.activeMs) || !(goal.clock.since === null || finite(goal.clock.since)))
		problems.push("clock");
	if (!finite(goal.safety.epoch) || !finite(goal.safety.automaticTurns) || !finite(goal.safety.noProgress))
		problems.push("safety");
	if (goal.wait !== undefined) {
		const wait = goal.wait as unknown as Record<string, unknown> | null;
		if (
			typeof wait !== "object" ||
			wait === null ||
			typeof wait.reason !== "string" ||
			!(wait.resumeAt === null || finite(wait.resumeAt))
		)
			problems.push("wait");
	}
	return problems;
}

describe("fuzz: pi-goal persisted entries", () => {
	it("pi-goal/state: readStateEntry and scanBranch never throw; what they accept never breaks the footer, contract or reducer", () => {
		fc.assert(
			fc.property(mutations(VALID_STATE), (data) => {
				const state = readStateEntry(data);
				const branch = scanBranch([
					{ type: "custom", customType: "pi-goal/state", data: VALID_STATE },
					{ type: "custom", customType: "pi-goal/state", data },
				]);
				// A rejected entry falls back to the previous good one.
				if (!state) expect(branch.state.revision).toBe(7);
				if (state?.goal) {
					const facts = { now: 1_700_000_200_000, branchTotal: 9_000, settings: GOAL_DEFAULTS };
					expect(() => footerText(state.goal, facts)).not.toThrow();
					expect(() => contractText(state.goal as GoalRecord, state.revision)).not.toThrow();
					for (const type of ["pause", "resume", "clear", "complete", "budget_check", "continued"] as const) {
						const event =
							type === "pause"
								? { type, reason: "user" as const }
								: type === "resume"
									? { type, newId: "g-new" }
									: type === "complete"
										? { type, summary: "done" }
										: { type };
						expect(() => reduceGoal(state, event as never, facts)).not.toThrow();
					}
				}
				tally.hit("goalState");
			}),
			runs(100, FUZZ.goalState),
		);
	});

	// Regression test for a fixed defect (pi-goal, src/persistence.ts, readStateEntry/validGoal): the validator only checks that
	// usage/clock/safety are objects and never looks inside them, nor at objective length, tokenBudget
	// or wait. A hand-edited or corrupted `pi-goal/state` entry such as
	// `{"v":1,"state":{"revision":7,"goal":{…valid…,"usage":{},"objective":"<200k chars>","wait":"x"}}}`
	// is restored as the live goal: the footer shows "NaN", the contract re-sends an unbounded
	// objective, a string `wait` keeps the goal "waiting undefined" forever. Expected: such an entry
	// is rejected like any other malformed entry (fall back to the previous good state).
	it("pi-goal/state: every accepted goal is well-formed (objective bounded, numbers finite, wait shaped)", () => {
		fc.assert(
			fc.property(mutations(VALID_STATE), (data) => {
				const goal = readStateEntry(data)?.goal;
				if (goal) expect(wellFormedGoal(goal), JSON.stringify(data).slice(0, 300)).toEqual([]);
			}),
			{ ...runs(101, 300) },
		);
	});

	// Same defect, the concrete cases: each of these is restored as the live goal today.
	for (const [label, patch] of [
		["empty usage and clock (footer shows NaN)", { usage: {}, clock: {} }],
		["an objective of 200,000 characters (contract unbounded)", { objective: "x".repeat(200_000) }],
		["a string wait (stuck waiting forever)", { wait: "x" }],
		["a string token budget (budget never enforced)", { tokenBudget: "100k" }],
	] as const) {
		it(`pi-goal/state: an entry with ${label} is rejected`, () => {
			const data = JSON.parse(
				JSON.stringify(
					stateEntryData({ goal: { ...VALID_GOAL, ...(patch as object) } as GoalRecord, revision: 8 }),
				),
			);
			expect(readStateEntry(data)).toBeUndefined();
		});
	}

	it("pi-goal/contract: readContractDetails and the window scan never throw and return typed details", () => {
		const valid = { revision: 3, goalId: "g-1", active: true };
		fc.assert(
			fc.property(mutations(valid), (details) => {
				const read = readContractDetails(details);
				if (read) {
					expect(typeof read.revision).toBe("number");
					expect(typeof read.goalId).toBe("string");
					expect(typeof read.active).toBe("boolean");
				}
				const scan = scanBranch([
					{ type: "custom_message", customType: "pi-goal/contract", details },
					{ type: "message", message: { role: "assistant", usage: details as never } },
				]);
				expect(Number.isNaN(scan.branchTotal)).toBe(false);
				tally.hit("goalContract");
			}),
			runs(102, FUZZ.goalContract),
		);
	});

	it("pi-goal/continuation: readContinuationDetails never throws and never invents a kind", () => {
		const valid = { goalId: "g-1", iteration: 2, nonce: "n-1", kind: "continuation" };
		fc.assert(
			fc.property(mutations(valid), (details) => {
				const read = readContinuationDetails(details);
				if (read) expect(["kickoff", "continuation", "resume", "wake", "recovery"]).toContain(read.kind);
				tally.hit("goalContinuation");
			}),
			runs(103, FUZZ.goalContinuation),
		);
	});
});

describe("fuzz: pi-reset persisted entries", () => {
	const entry = (type: string, extra: Record<string, unknown>, i: number) =>
		({
			type,
			id: `e${i}`,
			parentId: i > 0 ? `e${i - 1}` : null,
			timestamp: "2026-01-01T00:00:00.000Z",
			...extra,
		}) as never;

	it("pi-reset/state: restoreFromBranch never throws; a malformed switch falls back to the default", () => {
		fc.assert(
			fc.property(mutations({ enabled: false }), (data) => {
				const restored = restoreFromBranch([entry("custom", { customType: "pi-reset/state", data }, 0)]);
				const enabled = (data as { enabled?: unknown } | null)?.enabled;
				expect(restored.enabled).toBe(typeof enabled === "boolean" ? enabled : undefined);
				expect(restored.window.id).toBe("w0");
				tally.hit("resetState");
			}),
			runs(110, FUZZ.resetState),
		);
	});

	it("pi-reset markers (compaction details, boot and warning messages): never throw, always a usable window", () => {
		const valid = { "pi-reset": { v: 1, windowId: "w3-abcd", resets: 3, cause: "new_context" } };
		fc.assert(
			fc.property(mutations(valid), anyJson, (details, bootDetails) => {
				const read = readResetDetails(details);
				if (read) {
					expect(typeof read.windowId).toBe("string");
					expect(typeof read.resets).toBe("number");
				}
				const restored = restoreFromBranch([
					entry("compaction", { summary: "s", firstKeptEntryId: "e0", tokensBefore: 1, details }, 0),
					entry(
						"custom_message",
						{ customType: "pi-reset/boot", content: "x", display: false, details: bootDetails },
						1,
					),
					entry(
						"custom_message",
						{ customType: "pi-reset/warning", content: "x", display: false, details: bootDetails },
						2,
					),
				]);
				expect(typeof restored.window.id).toBe("string");
				expect(() =>
					resetFooter({
						enabled: true,
						windowId: restored.window.id,
						resets: restored.window.resets,
						pending: false,
					}),
				).not.toThrow();
				tally.hit("resetMarkers");
			}),
			runs(111, FUZZ.resetMarkers),
		);
	});
});

describe("fuzz: pi-jscpd persisted entries and files", () => {
	const dir = mkdtempSync(join(tmpdir(), "pi-reliability-fuzz-"));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));
	const root = "/work/project";
	const validFile = {
		version: 2,
		sessionId: "s1",
		root,
		capturedAt: "2026-01-01T00:00:00.000Z",
		complete: true,
		groups: 2,
		lines: { "src/a.ts": "1f 2e 2e", "src/b.ts": "1f" },
	};

	it("pi-jscpd/state: isStateEntry never throws; an accepted entry names a string file and root", () => {
		fc.assert(
			fc.property(mutations({ version: 1, baselineFile: join(dir, "b.json"), root }), (data) => {
				if (isStateEntry(data)) {
					expect(typeof data.baselineFile).toBe("string");
					expect(typeof data.root).toBe("string");
				}
				tally.hit("jscpdState");
			}),
			runs(120, FUZZ.jscpdState),
		);
	});

	it("baseline files: readBaseline never throws on malformed, truncated or foreign files; accepted ones are usable", () => {
		let n = 0;
		fc.assert(
			fc.property(textVariants(validFile), (text) => {
				const path = join(dir, `b${n++ % 8}.json`);
				writeFileSync(path, text);
				const file = readBaseline(path, root);
				if (file) {
					expect(file.root).toBe(root);
					const state = stateFromFile(path, file);
					expect(state.status === "accepted" || state.status === "partial").toBe(true);
				}
				tally.hit("jscpdBaselineFiles");
			}),
			runs(121, FUZZ.jscpdBaselineFiles),
		);
	});

	it("deliveries (findings messages, jscpd_run changed results): never throw, never acknowledge malformed data", () => {
		const validDetails = { delivered: [{ identity: "c1", paths: ["src/a.ts"] }] };
		const validChanged = {
			command: "changed",
			findings: [{ identity: "c2", locations: [{ path: "src/a.ts" }] }],
		};
		fc.assert(
			fc.property(mutations(validDetails), mutations(validChanged), (details, changed) => {
				const fromFindings = deliveredBy(
					{ type: "custom_message", customType: FINDINGS_MESSAGE, details },
					FINDINGS_MESSAGE,
				);
				if (!isDeliveredDetails(details)) expect(fromFindings).toEqual([]);
				for (const ack of [...fromFindings, ...acksOfChangedDetails(changed)]) {
					expect(typeof ack.identity).toBe("string");
					expect(ack.paths.every((p) => typeof p === "string")).toBe(true);
				}
				const state = new MutationState();
				expect(() =>
					replayBranch(
						state,
						[
							{ type: "custom_message", customType: FINDINGS_MESSAGE, details },
							{ type: "message", message: { role: "toolResult", toolName: "jscpd_run", details: changed } },
							{ type: "message", message: { role: "assistant", content: changed as never } },
						],
						{ findingsType: FINDINGS_MESSAGE, canonical: (p) => (typeof p === "string" ? p : undefined) },
					),
				).not.toThrow();
				tally.hit("jscpdDeliveries");
			}),
			runs(122, FUZZ.jscpdDeliveries),
		);
	});
});

describe("fuzz: settings files of all three packages (the kit's parser with each spec)", () => {
	const cases: [string, SettingsSpec<object>, object, "settingsGoal" | "settingsReset" | "settingsJscpd"][] =
		[
			[
				"pi-goal",
				GOAL_SETTINGS_SPEC as SettingsSpec<object>,
				{ automaticTurns: 10, noProgressTurns: null, retryUsageLimits: true },
				"settingsGoal",
			],
			[
				"pi-reset",
				RESET_SETTINGS_SPEC as SettingsSpec<object>,
				{ enabled: false, warningMarginTokens: 4_000, maxRequestChars: 500 },
				"settingsReset",
			],
			[
				"pi-jscpd",
				JSCPD_SETTINGS_SPEC as SettingsSpec<object>,
				{ enabled: false, timeoutMs: 5_000, maxFindings: 3 },
				"settingsJscpd",
			],
		];
	for (const [name, spec, valid, key] of cases) {
		it(`${name}: parseSettingsText never throws; a file is accepted whole (only known, valid keys) or rejected with issues`, () => {
			fc.assert(
				fc.property(textVariants(valid), (text) => {
					const parsed = parseSettingsText(spec, text);
					if (parsed.status === "loaded") {
						for (const k of Object.keys(parsed.value)) expect(Object.keys(spec.defaults)).toContain(k);
						// Whatever was accepted validates again (idempotent) and merges over the defaults.
						expect(spec.validate({ ...parsed.value }).ok).toBe(true);
					} else if (parsed.status === "invalid") {
						expect(parsed.issues.length).toBeGreaterThan(0);
					}
					tally.hit(key);
				}),
				runs(130 + cases.findIndex((c) => c[3] === key), FUZZ[key]),
			);
		});
	}
});
