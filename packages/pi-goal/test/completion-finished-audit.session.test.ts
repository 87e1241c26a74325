/**
 * Review of the widened completion guard through Pi: a finished English summary that names Jest,
 * quotes a German error message or ends with "Next steps:" for the user completes the goal with the
 * first goal_complete (no question, no second request).
 */
import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { completeGoalAfterWork, goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("completion guard: finished English summaries complete at once", () => {
	for (const summary of [
		"Migrated the test suite from Jest to Vitest; all 212 tests pass.",
		'Fixed the crash "Datei nicht gefunden: config.json" on German Windows; tests pass.',
		"Added the flag and its test. All tests pass.\n\nNext steps:\n- Review the PR\n- Cut a release",
	])
		it(summary.split("\n")[0] as string, async () => {
			harness = await createScriptedSession({
				extensions: [goalExtension()],
				responses: [completeGoalAfterWork(summary), reply("never")],
			});
			await harness.prompt("/goal finish the change");
			await settle(harness);
			expect(lastGoal(harness).status).toBe("complete");
			expect(JSON.stringify(harness.requests.at(-1)?.messages ?? [])).not.toContain("Not completed yet");
		});
});
