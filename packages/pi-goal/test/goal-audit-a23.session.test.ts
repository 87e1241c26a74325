/**
 * Issue 23 audit (a23): what a restore re-derives from the branch must be what the live handlers
 * counted, and the live counters must follow the documented rules (issue 30: every response of an
 * active goal counts), also when the user's input arrives inside a goal's run.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	reply,
	retryableError,
	type ScriptedSession,
	toolCall,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { compactorExtension, toolsExtension } from "./fixtures.js";
import {
	completeGoal,
	completeGoalAfterWork,
	contracts,
	defined,
	goalExtension,
	goalTool,
	lastGoal,
	settle,
} from "./helpers.js";
import { restoreMismatches } from "./restore-check.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** Queues a user follow-up at the `at`-th boundary (as a user typing while the goal streams). */
function followUpAt(at: number, deliverAs: "followUp" | "steer" = "followUp") {
	let boundaries = 0;
	return {
		name: "typist",
		factory: (pi: ExtensionAPI) => {
			pi.on("agent_before_settle", async () => {
				if (++boundaries !== at) return;
				pi.sendUserMessage("a question from the user", { deliverAs });
				await new Promise((resolve) => setImmediate(resolve));
			});
		},
	};
}

describe("user input inside a goal's run", () => {
	it("a user's follow-up answered inside the goal's work counts toward the response limit (issue 30)", async () => {
		harness = await createScriptedSession({
			extensions: [followUpAt(2), goalExtension({ settings: { automaticTurns: 3, noProgressTurns: null } })],
			// kickoff (manual), continuation 1, the user's question, continuation 2, continuation 3.
			responses: [reply("first"), reply("c1"), reply("answer to the user"), reply("c2"), completeGoal()],
		});
		await harness.prompt("/goal answer things");
		await settle(harness);
		// kickoff, continuation 1 and the answer to the user: three responses reach the limit of 3.
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
		expect(harness.providerCalls).toBe(3);
	});

	it("a steered user message inside the goal's tool loop does not stop the counting (issue 30)", async () => {
		let api: ExtensionAPI | undefined;
		const steerer = {
			name: "steerer",
			factory: (pi: ExtensionAPI) => {
				api = pi;
				let done = false;
				pi.on("tool_execution_end", () => {
					if (done) return;
					done = true;
					pi.sendUserMessage("note from another extension", { deliverAs: "steer" });
				});
			},
		};
		harness = await createScriptedSession({
			extensions: [
				toolsExtension(),
				steerer,
				goalExtension({ settings: { automaticTurns: 3, noProgressTurns: null } }),
			],
			session: "file",
			// kickoff reply (manual); continuation 1: a tool call (automatic), the steer lands after its
			// result, so the answers to it are manual; continuation 2 and 3 are automatic.
			responses: [
				reply("first"),
				toolCall("noop"),
				reply("noted"),
				reply("c2"),
				toolCall("noop"),
				reply("after the tool"),
			],
		});
		await harness.prompt("/goal answer things");
		await settle(harness);
		expect(api).toBeDefined();
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
		// The kickoff reply, the tool call and the answer to the steer: three responses trip at 3.
		expect(harness.providerCalls).toBe(3);
	});

	it("restore matches the live counters at every state entry with follow-ups, steers, retries and waits", async () => {
		let boundaries = 0;
		let steered = false;
		const typist = {
			name: "typist",
			factory: (pi: ExtensionAPI) => {
				pi.on("agent_before_settle", async () => {
					if (++boundaries !== 3) return;
					pi.sendUserMessage("a follow-up", { deliverAs: "followUp" });
					await new Promise((resolve) => setImmediate(resolve));
				});
				pi.on("tool_execution_end", () => {
					if (steered) return;
					steered = true;
					pi.sendUserMessage("a steer", { deliverAs: "steer" });
				});
			},
		};
		harness = await createScriptedSession({
			extensions: [
				toolsExtension(),
				typist,
				goalExtension({ settings: { automaticTurns: null, noProgressTurns: 5 } }),
			],
			session: "file",
			recorderPosition: "first",
			responses: [
				reply("kickoff"),
				toolCall("noop"),
				reply("same"),
				reply("same"),
				retryableError(),
				reply("same"),
				toolCall("noop"),
				reply("same"),
				reply("other"),
				goalTool("goal_wait", { reason: "CI runs" }),
			],
		});
		let n = 0;
		harness.setUsage(() => ({ input: 10 + ++n, totalTokens: 10 + n }));
		await harness.prompt("/goal keep answering");
		await settle(harness);
		expect(lastGoal(harness).wait).toMatchObject({ reason: "CI runs" });
		const file = defined(harness.sessionFile);
		await harness.dispose({ keepFiles: true });
		harness = undefined;
		const { checked, mismatches } = restoreMismatches(file);
		expect(checked).toBe(1); // the wait's entry (its goal_wait response is held there)
		expect(mismatches).toEqual([]);
	});
});

describe("restore after a compaction that kept the contract", () => {
	it("restore reads the contract revision a compaction kept, like the live walk: no second copy after a reload", async () => {
		harness = await createScriptedSession({
			extensions: [compactorExtension(), goalExtension({ settings: { automaticTurns: null } })],
			// The long first reply is summarised; the goal's entries (its contract) are kept.
			settings: { compaction: { enabled: true, keepRecentTokens: 2_000, reserveTokens: 16_384 } },
			responses: [
				reply("long ".repeat(8_000)),
				reply("progress"),
				goalTool("goal_wait", { reason: "CI runs" }),
			],
		});
		await harness.prompt("tell me a long story");
		await settle(harness);
		await harness.prompt("/goal keep going");
		await settle(harness);
		expect(lastGoal(harness).wait).toMatchObject({ reason: "CI runs" });
		await harness.session.compact();
		await settle(harness);
		const branch = harness.session.sessionManager.getBranch();
		const compaction = defined(branch.findLast((e) => e.type === "compaction")) as {
			firstKeptEntryId: string;
		};
		const kept = branch.slice(branch.findIndex((e) => e.id === compaction.firstKeptEntryId));
		expect(kept.some((e) => e.type === "custom_message" && e.customType === "pi-goal/contract")).toBe(true);
		const before = contracts(harness).length;
		await harness.reload();
		await settle(harness);
		// The user's message wakes the wait; the window still holds the contract, so none is added.
		harness.script(completeGoalAfterWork());
		await harness.prompt("CI is green");
		await settle(harness);
		expect(lastGoal(harness).status).toBe("complete");
		// Only the inactive revision after goal_complete is new.
		expect(contracts(harness).length).toBe(before + 1);
	});
});

describe("no state entry per turn, whatever the turn", () => {
	it("a goal of tool-free replies, retried errors and tool loops writes only its start and its stop", async () => {
		const work = Array.from({ length: 24 }, (_, i) =>
			i % 6 === 5 ? retryableError() : i % 3 === 0 ? toolCall("noop", { i }) : reply(`progress ${i}`),
		);
		harness = await createScriptedSession({
			extensions: [
				toolsExtension(),
				goalExtension({ settings: { automaticTurns: null, noProgressTurns: null } }),
			],
			recorder: false,
			responses: [...work, completeGoal()],
		});
		await harness.prompt("/goal loop through the work");
		await settle(harness);
		expect(lastGoal(harness).status).toBe("complete");
		const states = harness.session.sessionManager
			.getBranch()
			.filter((e) => e.type === "custom" && e.customType === "pi-goal/state");
		expect(states).toHaveLength(2);
	});
});

/** Cuts the file after the first line at or after `from` containing `marker` (a crash right after it). */
function crashAfter(file: string, marker: string, from = 0): number {
	const lines = readFileSync(file, "utf8").split("\n");
	const cut = lines.findIndex((line, i) => i >= from && line.includes(marker));
	expect(cut).toBeGreaterThanOrEqual(0);
	writeFileSync(file, `${lines.slice(0, cut + 1).join("\n")}\n`);
	return cut + 1;
}

const HOUR = 60 * 60 * 1000;

describe("a crash right after a meaningful change keeps it", () => {
	const extensions = () => [toolsExtension(), goalExtension({ settings: { automaticTurns: null } })];

	it("active time between the newest state entry and the crash still counts (lost: only the time after the last entry)", async () => {
		harness = await createScriptedSession({
			extensions: extensions(),
			session: "file",
			responses: [toolCall("noop", { n: 1 }), toolCall("noop", { n: 2 }), toolCall("noop", { n: 3 })],
		});
		await harness.prompt("/goal loop through the tools");
		await settle(harness);
		const file = defined(harness.sessionFile);
		await harness.dispose({ keepFiles: true });
		crashAfter(file, '"n":3');
		// The goal worked an hour after its start entry before the crash (timestamps of the later lines).
		const lines = readFileSync(file, "utf8").split("\n");
		const start = lines.findIndex((line) => line.includes('"pi-goal/state"'));
		writeFileSync(
			file,
			lines
				.map((line, i) => {
					if (i <= start || !line.trim()) return line;
					const entry = JSON.parse(line) as { timestamp?: string };
					if (entry.timestamp) entry.timestamp = new Date(Date.parse(entry.timestamp) + HOUR).toISOString();
					return JSON.stringify(entry);
				})
				.join("\n"),
		);
		harness = await createScriptedSession({
			extensions: extensions(),
			session: { open: file },
			responses: [],
		});
		await settle(harness);
		const states = harness.session.sessionManager
			.getBranch()
			.filter((e) => e.type === "custom" && e.customType === "pi-goal/state") as unknown as {
			data: { state: { goal: { clock: { activeMs: number } } } };
		}[];
		// The restore's checkpoint (the first entry written after the crash) holds the replayed clock.
		const restored = defined(states[1]).data.state.goal.clock.activeMs;
		expect(restored).toBeGreaterThanOrEqual(HOUR);
		expect(restored).toBeLessThan(HOUR + 60_000);
	});

	for (const change of ["pause", "edit", "wait"] as const) {
		it(`a ${change} written just before a crash holds after the restart`, async () => {
			harness = await createScriptedSession({
				extensions: extensions(),
				session: "file",
				responses: [toolCall("noop", { n: 1 }), goalTool("goal_wait", { reason: "CI runs" })],
			});
			await harness.prompt("/goal loop through the tools");
			await settle(harness);
			expect(lastGoal(harness).wait).toMatchObject({ reason: "CI runs" });
			if (change === "pause") await harness.prompt("/goal pause");
			if (change === "edit") await harness.prompt("/goal edit a new objective");
			await settle(harness);
			const file = defined(harness.sessionFile);
			await harness.dispose({ keepFiles: true });
			harness = undefined;
			// The crash: nothing after the change's state entry reached the file (for a wait: not even
			// the goal_wait tool result; for an edit: not its kickoff).
			const marker = { pause: '"pauseReason":"user"', edit: "a new objective", wait: '"reason":"CI runs"' }[
				change
			];
			const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
			const cut = lines.findIndex((line) => line.includes('"pi-goal/state"') && line.includes(marker));
			expect(cut).toBeGreaterThan(0);
			writeFileSync(file, `${lines.slice(0, cut + 1).join("\n")}\n`);
			const expected = (
				JSON.parse(defined(lines[cut])) as { data: { state: { goal: { id: string; objective: string } } } }
			).data.state.goal;
			harness = await createScriptedSession({
				extensions: extensions(),
				session: { open: file },
				responses: [toolCall("noop", { n: 9 }), goalTool("goal_wait", { reason: "after the restart" })],
			});
			await settle(harness);
			const goal = lastGoal(harness);
			expect(goal.id).toBe(expected.id);
			expect(goal.objective).toBe(expected.objective);
			if (change === "pause") {
				expect(goal).toMatchObject({ status: "paused", pauseReason: "user" });
				expect(harness.providerCalls).toBe(0);
			} else if (change === "wait") {
				expect(goal.wait).toMatchObject({ reason: "CI runs" });
				expect(harness.providerCalls).toBe(0);
			} else {
				// The edited goal is working: it goes on by itself with the new objective.
				expect(goal.objective).toBe("a new objective");
				expect(harness.providerCalls).toBe(2);
				expect(JSON.stringify(harness.requests[0]?.messages)).toContain("a new objective");
			}
		});
	}
});

function toolResults(h: ScriptedSession): string[] {
	return h.session.sessionManager
		.getBranch()
		.flatMap((e) =>
			e.type === "message" && e.message.role === "toolResult"
				? [(e.message.content as { text?: string }[]).map((c) => c.text ?? "").join("")]
				: [],
		);
}

describe("what the model reads when a goal finishes", () => {
	it("goal_complete twice and beside another tool in one response: one completion, every result true, no continuation", async () => {
		harness = await createScriptedSession({
			extensions: [toolsExtension(), goalExtension()],
			responses: [
				(context) => {
					const id = /Goal id: (g-[0-9a-f]+)/.exec(JSON.stringify(context.messages))?.[1] ?? "";
					const summary = "All done; tests pass.";
					return toolCalls([
						{ name: "noop", args: {} },
						{ name: "goal_complete", args: { goal_id: id, summary } },
						{ name: "goal_complete", args: { goal_id: id, summary } },
					]) as never;
				},
				reply("final words"),
				reply("never"),
			],
		});
		await harness.prompt("/goal finish it");
		await settle(harness);
		const goal = lastGoal(harness);
		expect(goal.status).toBe("complete");
		expect(toolResults(harness)).toEqual([
			"ok",
			"Goal marked complete.",
			`Rejected: goal ${goal.id} is complete, not active. Stop working on it.`,
		]);
		// The noop result does not end the turn, so Pi asks once more; the goal adds nothing.
		expect(harness.providerCalls).toBe(2);
		expect(JSON.stringify(harness.requests[1]?.messages)).toContain("is no longer active (status: complete)");
	});

	it("a wrong goal id while the goal is active names the current goal instead of telling the model to stop", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [
				toolCall("goal_complete", { goal_id: "g-0000", summary: "All done." }),
				completeGoalAfterWork(),
			],
		});
		await harness.prompt("/goal finish it");
		await settle(harness);
		const goal = lastGoal(harness);
		expect(goal.status).toBe("complete");
		const [wrong] = toolResults(harness);
		expect(wrong).toBe(
			`Rejected: goal_id "g-0000" is not the current goal. The current goal is ${goal.id}; use that id, for the objective in the latest pi-goal contract.`,
		);
	});
});

describe("/tree: accounting follows the branch, not the file", () => {
	it("after navigating back to an earlier point of a budgeted goal, the goal spends exactly its budget on the new branch", async () => {
		harness = await createScriptedSession({
			extensions: [toolsExtension(), goalExtension({ settings: { automaticTurns: null } })],
			recorderPosition: "first",
			responses: [
				...Array.from({ length: 5 }, (_, i) => toolCall("noop", { n: i + 1 })),
				goalTool("goal_wait", { reason: "CI runs" }),
			],
		});
		harness.setUsage({ input: 100, output: 0, totalTokens: 100 });
		await harness.prompt("/goal --tokens 1000 loop through the tools");
		await settle(harness);
		expect(lastGoal(harness).wait).toMatchObject({ reason: "CI runs" });
		// 600 tokens spent on this branch. Go back to the result of the second tool call (200 spent there).
		const branch = harness.session.sessionManager.getBranch();
		const second = defined(
			branch.find((e) => e.type === "message" && JSON.stringify(e.message).includes('"n":2')),
		);
		const target = defined(branch.find((e) => e.parentId === second.id));
		harness.script(...Array.from({ length: 12 }, (_, i) => toolCall("noop", { n: 10 + i })));
		const before = harness.providerCalls;
		await harness.session.navigateTree(target.id, { summarize: false });
		await settle(harness);
		expect(lastGoal(harness).status).toBe("budget_limited");
		// 800 tokens left on this branch: 8 responses of 100.
		expect(harness.providerCalls - before).toBe(8);
	});
});

describe("a goal that never calls goal_complete", () => {
	it("in print mode (no footer) a breaker stop says why when /goal returns; a completed goal adds nothing", async () => {
		const errors = vi.spyOn(console, "error").mockImplementation(() => {});
		const logs = vi.spyOn(console, "log").mockImplementation(() => {});
		try {
			harness = await createScriptedSession({
				extensions: [goalExtension({ settings: { automaticTurns: 2, noProgressTurns: null } })],
				responses: [reply("a"), reply("b"), reply("c"), reply("never")],
			});
			await harness.prompt("/goal never finish");
			expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
			const said = errors.mock.calls.flat().join("\n");
			expect(said).toMatch(/pi-goal: Goal g-[0-9a-f]+: paused: it used its 2 responses/);
			expect(said).toContain("Responses: 2 of 2");
			expect(said).toContain("Next: ");
			await harness.dispose();
			errors.mockClear();
			harness = await createScriptedSession({
				extensions: [goalExtension()],
				responses: [reply("part one"), completeGoalAfterWork()],
			});
			await harness.prompt("/goal finish it");
			expect(lastGoal(harness).status).toBe("complete");
			// No status line ("Goal g-…: state"); the start answer is on stderr in print mode.
			expect(errors.mock.calls.flat().join("\n")).not.toMatch(/Goal g-[0-9a-f]+:/);
		} finally {
			errors.mockRestore();
			logs.mockRestore();
		}
	});
});
