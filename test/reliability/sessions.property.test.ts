/**
 * Scripted-session properties on Pi's real agent loop: pi-reset, pi-goal and pi-jscpd loaded
 * together (random load order) and driven through random short schedules of user prompts, goal
 * commands, model tool calls (new_context, goal_complete, tool batches), retryable and overflow
 * errors, threshold compaction, aborts, idle /reset and reloads. After every command the branch is
 * checked (support/invariants.ts) and no extension handler may have thrown.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { runs, SCHEDULES, Tally } from "@pi-lifecycle/seed-plan";
import fc from "fast-check";
import { afterAll, describe, expect, it, vi } from "vitest";
import { allExtensions, fakeJscpd, tempDir } from "./support/extensions.js";
import { type BranchEntry, branchViolations } from "./support/invariants.js";
import { COMMANDS, run } from "./support/schedule.js";

const tally = new Tally();
const seen = { continuations: 0, resets: 0, compactions: 0, goalsStarted: 0 };
afterAll(() => {
	tally.covered("sessions.property", seen);
	tally.verify("sessions.property", { scriptedSessions: SCHEDULES.scriptedSessions });
});

const ORDERS = [
	["pi-reset", "pi-goal", "pi-jscpd"],
	["pi-goal", "pi-reset", "pi-jscpd"],
	["pi-jscpd", "pi-goal", "pi-reset"],
] as const;

describe("scripted sessions: all three extensions on Pi's real loop", () => {
	it("never two continuations per boundary, none for a stale goal, no reset without its boot, no handler errors", async () => {
		const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
		const out = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom(...ORDERS),
				fc.array(fc.constantFrom(...COMMANDS), { minLength: 2, maxLength: 8, size: "max" }),
				async (order, commands) => {
					const dir = tempDir("pi-reliability-session-");
					mkdirSync(join(dir, "pi-lifecycle"), { recursive: true });
					writeFileSync(join(dir, "pi-lifecycle", "pi-goal.json"), JSON.stringify({ automaticTurns: 3 }));
					const h = await createScriptedSession({
						extensions: allExtensions({ agentDir: dir, jscpd: { executable: fakeJscpd(dir) }, order }),
						model: { id: "faux-model", contextWindow: 128_000, maxTokens: 16_000 } as never,
					});
					try {
						for (const [step, command] of commands.entries()) {
							await run(h, command, step);
							const branch = h.session.sessionManager.getBranch() as unknown as BranchEntry[];
							expect(branchViolations(branch), `after ${command} (step ${step})`).toEqual([]);
							expect(
								h.errors.map((e) => `${e.extensionPath}: ${e.error}`),
								`after ${command}`,
							).toEqual([]);
						}
						const entries = h.session.sessionManager.getEntries() as unknown as BranchEntry[];
						seen.continuations += entries.filter((e) => e.customType === "pi-goal/continuation").length;
						seen.resets += entries.filter((e) => e.customType === "pi-reset/boot").length;
						seen.compactions += entries.filter((e) => e.type === "compaction").length;
						seen.goalsStarted += commands.filter((c) => c === "goal").length;
					} finally {
						await h.dispose();
					}
					tally.hit("scriptedSessions");
				},
			),
			runs(40, SCHEDULES.scriptedSessions),
		);
		quiet.mockRestore();
		out.mockRestore();
	}, 150_000);
});

describe("the branch invariants can fail", () => {
	const state = (id: string, status: string): BranchEntry => ({
		type: "custom",
		id: `s-${id}-${status}`,
		customType: "pi-goal/state",
		data: { v: 1, state: { revision: 1, goal: { id, status } } },
	});
	const cont = (goalId: string, n: number): BranchEntry => ({
		type: "custom_message",
		id: `c${n}`,
		customType: "pi-goal/continuation",
		details: { goalId, kind: "continuation" },
	});
	const answer = (n: number): BranchEntry => ({
		type: "message",
		id: `a${n}`,
		message: { role: "assistant" },
	});
	it("flags two continuations for one boundary, a stale goal's prompt and a reset without its boot", () => {
		expect(branchViolations([state("g-1", "active"), cont("g-1", 1), answer(1), cont("g-1", 2)])).toEqual([]);
		expect(branchViolations([state("g-1", "active"), cont("g-1", 1), cont("g-1", 2)])).toHaveLength(1);
		expect(branchViolations([state("g-1", "paused"), cont("g-1", 1)])).toHaveLength(1);
		expect(branchViolations([state("g-2", "active"), cont("g-1", 1)])).toHaveLength(1);
		const reset: BranchEntry = {
			type: "compaction",
			id: "r1",
			firstKeptEntryId: "r1",
			summary: "[pi-reset] Context reset. Window w1-x begins with the boot note that follows.",
			details: { "pi-reset": { windowId: "w1-x", cause: "new_context" } },
		};
		expect(branchViolations([reset, answer(1)])).toHaveLength(1);
		expect(
			branchViolations([
				reset,
				{ type: "custom_message", id: "b", customType: "pi-reset/boot", details: { windowId: "w1-x" } },
				answer(1),
			]),
		).toEqual([]);
	});
});
