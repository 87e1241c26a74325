/**
 * Issue 30 (5): the completion guard. Confirmed defect: a first response that calls goal_complete
 * with only a plan completed the goal after 1 request; a goal_complete beside a failing command of
 * the same batch was accepted before the model saw the failure. Each is asked about once; the next
 * goal_complete is accepted.
 */
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { toolsExtension } from "./fixtures.js";
import { completeGoal, completeGoalAfterWork, goalExtension, goalIdIn, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("completion guard", () => {
	it("a plan with goal_complete as the goal's first response is asked about once, not completed", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [
				completeGoal("Plan: 1) add the flag 2) test it. I will implement this now."),
				reply("working"),
			],
		});
		await harness.prompt("/goal add a --json flag");
		await settle(harness);
		expect(harness.providerCalls).toBeGreaterThan(1);
		expect(lastGoal(harness).status).not.toBe("complete");
		expect(JSON.stringify(harness.requests[1]?.messages.at(-1))).toContain("no tool has run for this goal");
	});

	it("a goal_complete after a text-only plan (still no tool work in the goal) is asked about once", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [
				reply("Plan: 1) add the flag 2) test it. I will implement this now."),
				completeGoal("Implemented the --json flag."),
				completeGoal("Implemented the --json flag."),
				reply("never"),
			],
		});
		await harness.prompt("/goal add a --json flag");
		await settle(harness);
		expect(JSON.stringify(harness.requests[2]?.messages.at(-1))).toContain("no tool has run for this goal");
		expect(lastGoal(harness).status).toBe("complete");
		expect(harness.providerCalls).toBe(3);
	});

	it("a goal_complete beside a failing command of the same batch is asked about; the next one is accepted", async () => {
		harness = await createScriptedSession({
			extensions: [toolsExtension(), goalExtension()],
			responses: [
				reply("I changed the code."),
				(context) =>
					toolCalls([
						{ name: "bash", args: { command: "exit 3" } },
						{
							name: "goal_complete",
							args: { goal_id: goalIdIn(context.messages), summary: "Done; tests pass.", open_items: [] },
						},
					]) as never,
				completeGoal("Checked the failure: it was the sandbox; the tests pass."),
				reply("never"),
			],
		});
		await harness.prompt("/goal fix the tests");
		await settle(harness);
		expect(JSON.stringify(harness.requests[2]?.messages.at(-1))).toContain("`exit 3` failed");
		expect(lastGoal(harness).status).toBe("complete");
		expect(harness.providerCalls).toBe(3);
	});

	it("a German admission without open_items is asked about once", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [
				reply("Ich habe den Parser geändert."),
				completeGoalAfterWork(
					"Der Parser ist fertig, aber die Tests schlagen noch fehl und die Doku fehlt noch.",
				),
				reply("weiter"),
			],
		});
		await harness.prompt("/goal repariere den Parser");
		await settle(harness);
		expect(lastGoal(harness).status).not.toBe("complete");
		expect(JSON.stringify(harness.requests[2]?.messages.at(-1))).toContain("open_items");
	});

	it("open_items reaches the tool (undeclared): a German summary with open_items [] is accepted at once", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [
				reply("Ich habe den Parser geändert und geprüft."),
				(context) =>
					toolCalls([
						{ name: "bash", args: { command: "true" } },
						{
							name: "goal_complete",
							args: {
								goal_id: goalIdIn(context.messages),
								summary: "Der Parser ist fertig, alle Prüfungen laufen durch und die Doku ist aktualisiert.",
								open_items: [],
							},
						},
					]) as never,
				reply("never"),
			],
		});
		await harness.prompt("/goal repariere den Parser");
		await settle(harness);
		expect(lastGoal(harness).status).toBe("complete");
		// Pi asks once more after a batch of goal_complete beside other tool work.
		expect(harness.providerCalls).toBe(3);
	});
});
