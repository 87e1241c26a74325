/**
 * Audit of the completion guard (issue 30): "a goal_complete before any tool work in the goal" is
 * asked about. A goal whose only tool calls failed (a missing file, a command that exited non-zero)
 * has nothing to show either: "Done." after them is asked about once; the next call is accepted.
 */
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { completeGoal, goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("completion guard: tool work that shows something", () => {
	it("goal_complete after tool calls that all failed is asked about once, then accepted", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [
				toolCall("bash", { command: "cat does-not-exist.txt" }),
				completeGoal("Done."),
				completeGoal("Done: nothing needed changing."),
				reply("never"),
			],
		});
		await harness.prompt("/goal add a --json flag");
		await settle(harness);
		expect(JSON.stringify(harness.requests[2]?.messages.at(-1))).toContain("Not completed yet");
		expect(lastGoal(harness).status).toBe("complete");
		expect(harness.providerCalls).toBe(3);
	});
});
