/**
 * Audit (issue 35): one owner of goals, probed where the rules meet Pi's lifecycle: a peer that
 * registers late, /reload beside it, and which extension's tool answers the model.
 */
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { peerLog, sameToolsPeer } from "./goal-peers.js";
import { goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.restoreAllMocks();
});

function notices(errors: { mock: { calls: unknown[][] } }): string[] {
	return errors.mock.calls
		.flat()
		.map(String)
		.filter((text: string) => text.includes("off in this"));
}

describe("one owner of goals: a peer that registers late", () => {
	// Pi routes a tool name to the extension loaded first (runner getAllRegisteredTools): the other
	// extension's tools of the same names cannot be reached. Ours must say so, not "there is no goal".
	it("loaded after ours and registering at its session start: a goal tool the model calls says pi-goal is off and to keep one goal extension", async () => {
		vi.spyOn(console, "error").mockImplementation(() => undefined);
		const log = peerLog();
		harness = await createScriptedSession({
			extensions: [goalExtension(), sameToolsPeer(log, { late: true })],
			responses: [toolCall("goal_wait", { goal_id: "theirs", reason: "CI" }), reply("ok")],
		});
		await harness.prompt("wait for CI");
		await settle(harness);
		const answer = harness.session.messages.find((m) => m.role === "toolResult");
		expect(JSON.stringify(answer)).toContain("pi-goal is off here");
		expect(JSON.stringify(answer)).toContain("keep only one goal extension");
		expect(lastGoal(harness)).toEqual({});
	});

	it("/reload beside it: pi-goal stays off, one notice per start of Pi's extensions, /goal stays the other's", async () => {
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		const log = peerLog();
		harness = await createScriptedSession({
			extensions: [sameToolsPeer(log), goalExtension()],
			responses: [reply("a"), reply("b")],
		});
		expect(notices(errors)).toHaveLength(1);
		await harness.reload();
		await settle(harness);
		expect(notices(errors).length).toBeLessThanOrEqual(2);
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(log.commands).toEqual(["ship it"]);
		expect(lastGoal(harness)).toEqual({});
	});
});
