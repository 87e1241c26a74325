/**
 * Issue 30: the stuck detector's history survives /reload and a resumed session. A reload or a
 * restart in the middle of stuck work must not restart the count: the steps the detector needs
 * (at most its window) travel with the goal's state entry and are rebuilt from the responses after
 * it, so the goal is still paused within the threshold (default: 4 identical failing calls).
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	providerError,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import { defined, goalExtension, lastGoal, settle } from "./helpers.js";
import { restoreMismatches } from "./restore-check.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** A workspace whose `check` always fails the same way and whose `probe` answers by its argument. */
const workspace = {
	name: "stuck-workspace",
	factory: (pi: ExtensionAPI) => {
		pi.registerTool({
			name: "check",
			label: "check",
			description: "runs the project check",
			parameters: Type.Object({}),
			async execute() {
				throw new Error("ENOENT: no such file or directory, open 'config.json'");
			},
		});
		pi.registerTool({
			name: "probe",
			label: "probe",
			description: "probes a port",
			parameters: Type.Object({ port: Type.Number() }),
			async execute(_id, params) {
				return { content: [{ type: "text", text: `port ${params.port}: closed` }], details: {} };
			},
		});
	},
};

const failingCheck = () => toolCall("check", {});
const probe = (port: number) => toolCall("probe", { port });
/** The provider fails (a key problem): the goal waits quietly, still active, until the user writes. */
const keyError = () => providerError("401 Unauthorized: invalid x-api-key");

describe("stuck work across a reload or a resume", () => {
	it("stuck work across a reload is still paused within the threshold", async () => {
		harness = await createScriptedSession({
			extensions: [workspace, goalExtension()],
			responses: [failingCheck(), failingCheck(), failingCheck(), keyError()],
		});
		await harness.prompt("/goal make the check pass");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "active", wait: { kind: "provider_error" } });
		expect(harness.providerCalls).toBe(4);

		await harness.reload();
		await settle(harness);
		// The 4th identical failing call (the default threshold) pauses the goal: no 5th, 6th, 7th.
		harness.script(failingCheck(), failingCheck(), failingCheck(), failingCheck());
		await harness.prompt("the key is fixed, go on");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "stuck" });
		expect(lastGoal(harness).pauseDetail).toContain("failed 4 times in a row");
		expect(harness.providerCalls).toBe(5);
	});

	it("stuck work across a resumed session (Pi restarted) is still paused within the threshold", async () => {
		harness = await createScriptedSession({
			extensions: [workspace, goalExtension()],
			session: "file",
			// A ping-pong between two probes (the cycle rule: 6 responses by default), cut by a key error.
			responses: [probe(1), probe(2), probe(1), probe(2), keyError()],
		});
		await harness.prompt("/goal find the open port");
		await settle(harness);
		const file = defined(harness.sessionFile);
		await harness.dispose({ keepFiles: true });

		harness = await createScriptedSession({
			extensions: [workspace, goalExtension()],
			session: { open: file },
			responses: [probe(1), probe(2), probe(1), probe(2), probe(1), probe(2)],
		});
		await settle(harness);
		await harness.prompt("the key is fixed, go on");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "stuck" });
		expect(lastGoal(harness).pauseDetail).toContain("went round in a circle");
		expect(harness.providerCalls).toBe(2);
	});

	it("a crash at any state entry of stuck work restores the detector's steps that entry recorded", async () => {
		harness = await createScriptedSession({
			extensions: [workspace, goalExtension()],
			session: "file",
			responses: [failingCheck(), probe(1), failingCheck(), keyError()],
		});
		await harness.prompt("/goal make the check pass");
		await settle(harness);
		harness.script(probe(2), failingCheck(), failingCheck(), keyError());
		await harness.prompt("go on");
		await settle(harness);
		const file = defined(harness.sessionFile);
		await harness.dispose({ keepFiles: true });
		const { checked, mismatches } = restoreMismatches(file);
		expect(checked).toBeGreaterThan(0);
		expect(mismatches).toEqual([]);
	});
});
