/**
 * Goal start and restore require goal_complete and goal_blocked without widening the tool
 * allowlist (settlement rechecks them too: goal-unknown-error-waiting.session.test.ts).
 */
import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { STATE_ENTRY } from "../src/core/types.js";
import { allowlistExtension } from "./fixtures.js";
import { completeGoal, goalExtension, goalTool, lastGoal, lastState, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.restoreAllMocks();
});

function errorsOf(spy: ReturnType<typeof vi.spyOn>): string {
	return spy.mock.calls.flat().join("\n");
}

describe("goal helper tools", () => {
	it("goal start requires goal_complete and goal_blocked without widening the allowlist", async () => {
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			tools: ["read", "goal_wait"],
			responses: [reply("must not be requested")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.providerCalls).toBe(0);
		expect(lastState(harness)).toBeUndefined();
		expect(errorsOf(errors)).toMatch(/goal_complete and goal_blocked are not active tools/);
		// The allowlist stays as it was.
		expect(harness.session.getActiveToolNames()).not.toContain("goal_complete");
		expect(harness.session.getActiveToolNames()).not.toContain("goal_blocked");
	});

	it("goal resume requires goal_complete and goal_blocked without widening the allowlist", async () => {
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		const control: { hide?: string[] } = {};
		harness = await createScriptedSession({
			extensions: [goalExtension(), allowlistExtension(control)],
			responses: [goalTool("goal_blocked", { reason: "needs a key", evidence: "401" })],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(lastGoal(harness).status).toBe("blocked");
		// The next run narrows the tools (the allowlist extension acts at agent_end).
		control.hide = ["goal_blocked"];
		harness.script(reply("plain answer"));
		await harness.prompt("hello");
		await settle(harness);
		expect(harness.session.getActiveToolNames()).not.toContain("goal_blocked");
		const calls = harness.providerCalls;
		await harness.prompt("/goal resume");
		await settle(harness);
		expect(harness.providerCalls).toBe(calls);
		expect(lastGoal(harness).status).toBe("blocked");
		expect(errorsOf(errors)).toMatch(/goal_complete and goal_blocked are not active tools/);
		expect(harness.session.getActiveToolNames()).not.toContain("goal_blocked");
	});

	it("restore pauses an active goal when goal_complete or goal_blocked is not an active tool", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			session: "file",
			responses: [goalTool("goal_wait", { reason: "user" })],
		});
		await harness.prompt("/goal finish the migration");
		await settle(harness);
		// A crash mid-work: the last persisted state is active and not waiting.
		const state = lastState(harness);
		const { wait: _wait, ...goal } = (state?.goal ?? {}) as Record<string, unknown>;
		harness.session.sessionManager.appendCustomEntry(STATE_ENTRY, { v: 1, state: { ...state, goal } });
		const file = harness.sessionFile;
		expect(file).toBeDefined();
		await harness.dispose({ keepFiles: true });
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			session: { open: file ?? "" },
			tools: ["read", "goal_wait", "goal_blocked"],
			responses: [completeGoal()],
		});
		await settle(harness);
		expect(harness.providerCalls).toBe(0);
		expect(lastGoal(harness)).toMatchObject({
			id: goal.id,
			status: "paused",
			pauseReason: "helpers-unavailable",
		});
		expect(harness.session.getActiveToolNames()).not.toContain("goal_complete");
	});
});
