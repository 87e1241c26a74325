import {
	createScriptedSession,
	type Deferred,
	deferred,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { toolsExtension } from "./fixtures.js";
import {
	completeGoal,
	completeGoalAfterWork,
	continuations,
	continuationTexts,
	defined,
	goalExtension,
	goalIdIn,
	goalTool,
	lastState,
	settle,
} from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

function toolErrors(h: ScriptedSession, name: string): boolean[] {
	return h.events
		.filter((event) => event.type === "tool_execution_end" && event.info.toolName === name)
		.map((event) => event.info.isError as boolean);
}

describe("goal lifecycle rules", () => {
	it("no-progress pause after three identical tool-free replies", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [reply("Working on it."), reply("working  on it."), reply("Working on it."), reply("never")],
		});
		await harness.prompt("/goal refactor the parser");
		await settle(harness);
		expect(harness.providerCalls).toBe(3);
		const goal = lastState(harness)?.goal;
		expect(goal?.status).toBe("paused");
		expect(goal?.pauseReason).toBe("no-progress");
	});

	it("automaticTurns cap pauses after the configured number of automatic responses", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension({ settings: { automaticTurns: 2, noProgressTurns: null } })],
			responses: [reply("step a"), reply("step b"), reply("step c"), reply("never")],
		});
		await harness.prompt("/goal build it");
		await settle(harness);
		// Every response counts, the kickoff's too (issue 30): two responses reach the cap.
		expect(harness.providerCalls).toBe(2);
		const goal = lastState(harness)?.goal as {
			status: string;
			pauseReason: string;
			safety: { automaticTurns: number };
		};
		expect(goal.status).toBe("paused");
		expect(goal.pauseReason).toBe("automatic-turns");
		expect(goal.safety.automaticTurns).toBe(2);
	});

	it("budget exhaustion inside a tool loop makes no request after the limit", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension()],
			recorderPosition: "first",
			responses: [toolCall("noop"), toolCall("noop"), reply("wrap-up that must not be requested")],
		});
		harness.setUsage({ totalTokens: 600 });
		await harness.prompt("/goal --tokens 1k do the loop");
		await settle(harness);
		expect(harness.providerCalls).toBe(2);
		expect(lastState(harness)?.goal?.status).toBe("budget_limited");
		expect(continuations(harness)).toHaveLength(0);
	});

	it("a stale goal_id is rejected without side effects", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [
				toolCall("goal_complete", { goal_id: "g-00000000", summary: "done" }),
				completeGoalAfterWork(),
			],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(toolErrors(harness, "goal_complete")).toEqual([true, false]);
		expect(lastState(harness)?.goal?.status).toBe("complete");
	});

	it("goal_complete rejects a summary that admits unfinished work", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [goalTool("goal_complete", { summary: "Mostly done, tests still fail." }), completeGoal()],
		});
		await harness.prompt("/goal fix tests");
		await settle(harness);
		expect(toolErrors(harness, "goal_complete")).toEqual([true, false]);
		expect(lastState(harness)?.goal?.status).toBe("complete");
	});

	it("pause aborts the turn and blocks stale tool calls", async () => {
		const gates: { current?: Deferred<void> } = { current: deferred() };
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension(gates)],
			responses: [toolCall("slow"), goalTool("goal_complete", { summary: "All done." }), reply("ok")],
		});
		// In print mode /goal stays until the goal's work settles, so it is not awaited here.
		const started = harness.prompt("/goal long task");
		await vi.waitFor(() => expect(harness?.count("tool_execution_start")).toBe(1));
		await harness.prompt("/goal pause");
		gates.current?.resolve();
		await started;
		await settle(harness);
		expect(harness.providerCalls).toBe(1);
		expect(harness.events.some((e) => e.type === "agent_settled" && e.info.aborted === true)).toBe(true);
		expect(lastState(harness)?.goal?.status).toBe("paused");
		// The model still has the old goal id in context; its goal_complete is rejected.
		await harness.prompt("anything left?");
		await settle(harness);
		expect(toolErrors(harness, "goal_complete")).toEqual([true]);
		expect(lastState(harness)?.goal?.status).toBe("paused");
		expect(continuations(harness)).toHaveLength(0);
	});

	it("edit while busy rotates the goal id, rejects the old id and publishes the new contract", async () => {
		const gates: { current?: Deferred<void> } = { current: deferred() };
		let oldId = "";
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension(gates)],
			responses: [
				(context) => {
					oldId = goalIdIn(context.messages);
					return toolCall("slow");
				},
				() => toolCall("goal_complete", { goal_id: oldId, summary: "Done." }),
				completeGoal("New objective done; verified."),
			],
		});
		const started = harness.prompt("/goal first objective");
		await vi.waitFor(() => expect(harness?.count("tool_execution_start")).toBe(1));
		const edited = harness.prompt("/goal edit second objective");
		gates.current?.resolve();
		await Promise.all([started, edited]);
		await settle(harness);
		expect(toolErrors(harness, "goal_complete")).toEqual([true, false]);
		const goal = lastState(harness)?.goal;
		expect(goal?.status).toBe("complete");
		expect(goal?.objective).toBe("second objective");
		expect(goal?.id).not.toBe(oldId);
		expect(goalIdIn(harness.requests[1]?.messages)).toBe(goal?.id);
	});

	it("queued user input wins over the continuation", async () => {
		let queued = false;
		const queuer = {
			name: "queuer",
			factory: (pi: import("@earendil-works/pi-coding-agent").ExtensionAPI) => {
				pi.on("agent_before_settle", async () => {
					if (queued) return;
					queued = true;
					// The user's follow-up arrives while the boundary is being decided.
					pi.sendUserMessage("user follow-up", { deliverAs: "followUp" });
					await new Promise((resolve) => setImmediate(resolve));
				});
			},
		};
		harness = await createScriptedSession({
			extensions: [queuer, goalExtension()],
			responses: [reply("first"), reply("answered the user"), completeGoalAfterWork()],
		});
		await harness.prompt("/goal answer things");
		await settle(harness);
		// Pi asks once more after a batch of goal_complete beside other tool work.
		expect(harness.providerCalls).toBe(4);
		const second = defined(harness.requests[1]);
		expect(second.messages.some((m) => JSON.stringify(m).includes("user follow-up"))).toBe(true);
		expect(continuationTexts(second)).toBe(0);
		expect(continuationTexts(defined(harness.requests[2]))).toBe(1);
		expect(lastState(harness)?.goal?.status).toBe("complete");
	});
});

import { vi } from "vitest";

describe("settings", () => {
	it("an invalid settings file gives one warning and defaults and is never overwritten", async () => {
		const { agentDirWith } = await import("./helpers.js");
		const { readFileSync } = await import("node:fs");
		const { join } = await import("node:path");
		const agentDir = agentDirWith("{ not json");
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		harness = await createScriptedSession({
			extensions: [goalExtension({ agentDir })],
			responses: [reply("same"), reply("same"), reply("same"), reply("never")],
		});
		await harness.prompt("/goal use defaults");
		await settle(harness);
		expect(errors.mock.calls.flat().filter((line) => String(line).includes("ignoring"))).toHaveLength(1);
		// Default noProgressTurns (3) applies.
		expect(lastState(harness)?.goal?.pauseReason).toBe("no-progress");
		expect(readFileSync(join(agentDir, "pi-lifecycle", "pi-goal.json"), "utf8")).toBe("{ not json");
		errors.mockRestore();
	});
});
