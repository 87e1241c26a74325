/**
 * Audit of issue 15 on Pi's real AgentSession: variants of the fixed defects the implementers'
 * tests do not cover (another helper hidden, a single peer tool, dispose with a waiting goal).
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	deferred,
	providerError,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";
import { afterEach, describe, expect, it, vi } from "vitest";
import { allowlistExtension, toolsExtension } from "./fixtures.js";
import {
	agentDirWith,
	completeGoal,
	completeGoalAfterWork,
	fakeTime,
	goalExtension,
	goalPrompts,
	goalTool,
	lastGoal,
	lastState,
	settle,
} from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.restoreAllMocks();
});

describe("issue 15 audit", () => {
	it("continuations stop with a clear reason when only goal_blocked is hidden after the goal started", async () => {
		const control: { hide?: string[] } = { hide: ["goal_blocked"] };
		harness = await createScriptedSession({
			extensions: [goalExtension(), allowlistExtension(control)],
			responses: [reply("step one"), reply("step two"), reply("step three")],
		});
		await harness.prompt("/goal do the steps");
		await settle(harness);
		expect(harness.providerCalls).toBe(1);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "helpers-unavailable" });
	});

	it("hiding only goal_wait does not stop a goal: it continues and completes", async () => {
		const control: { hide?: string[] } = { hide: ["goal_wait"] };
		harness = await createScriptedSession({
			extensions: [goalExtension(), allowlistExtension(control)],
			responses: [reply("step one"), completeGoalAfterWork()],
		});
		await harness.prompt("/goal do the steps");
		await settle(harness);
		expect(lastGoal(harness).status).toBe("complete");
	});

	it("a waiting goal's deadline firing after dispose() throws nothing and sends nothing", async () => {
		const time = fakeTime();
		const local = await createScriptedSession({
			extensions: [goalExtension({ now: () => time.now, timers: time.timers })],
			responses: [goalTool("goal_wait", { reason: "CI", resume_after_ms: 60_000 })],
		});
		await local.prompt("/goal land it");
		await settle(local);
		const timer = time.live().find((candidate) => candidate.ms === 60_000);
		expect(timer).toBeDefined();
		await local.dispose();
		const rejections: unknown[] = [];
		const onRejection = (reason: unknown) => rejections.push(reason);
		process.on("unhandledRejection", onRejection);
		try {
			time.now += 60_000;
			expect(() => timer?.fn()).not.toThrow();
			await new Promise((resolve) => setTimeout(resolve, 20));
		} finally {
			process.off("unhandledRejection", onRejection);
		}
		expect(rejections).toEqual([]);
		expect(local.providerCalls).toBe(1);
	});

	it("a peer that registered only goal_wait keeps Pi starting; ours is dormant with one message", async () => {
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		const peer = {
			name: "peer-wait",
			factory: (pi: ExtensionAPI) => {
				pi.registerTool({
					name: "goal_wait",
					label: "goal_wait",
					description: "peer wait",
					parameters: Type.Object({}),
					async execute() {
						return { content: [{ type: "text", text: "peer" }], details: {} };
					},
				});
			},
		};
		harness = await createScriptedSession({
			extensions: [peer, goalExtension()],
			responses: [reply("never")],
		});
		const dormant = errors.mock.calls
			.flat()
			.filter((text) => String(text).includes("pi-goal: off in this Pi"));
		expect(dormant).toHaveLength(1);
		expect(String(dormant[0])).toContain("already provides goal_wait");
		// Ours registered no /goal: Pi sends the text to the model as a prompt; no goal starts.
		await harness.prompt("/goal ship it");
		expect(lastState(harness)).toBeUndefined();
		expect(harness.providerCalls).toBe(1);
	});
	it("a usage-limit deadline that fires while another extension's run is busy sends one recovery request after it", async () => {
		const time = fakeTime();
		const gate = { current: deferred() };
		let api: ExtensionAPI | undefined;
		const sender = {
			name: "sender",
			factory: (pi: ExtensionAPI) => {
				api = pi;
			},
		};
		const quota =
			"429 insufficient_quota: You exceeded your current quota, please check your plan and billing details.";
		harness = await createScriptedSession({
			extensions: [
				goalExtension({
					now: () => time.now,
					timers: time.timers,
					agentDir: agentDirWith({ retryUsageLimits: true }),
				}),
				toolsExtension(gate),
				sender,
			],
			responses: [reply("kickoff reply"), providerError(quota)],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		const id = lastGoal(harness).id;
		const resumeAt = lastGoal(harness).wait?.resumeAt ?? 0;
		expect(lastGoal(harness).wait?.kind).toBe("usage_limit");
		harness.script(toolCall("slow"), reply("extension work done"), completeGoal());
		api?.sendMessage({ customType: "ext", content: "extension work", display: true }, { triggerTurn: true });
		await vi.waitFor(() => expect(harness?.count("tool_execution_start")).toBe(1));
		time.now = resumeAt;
		defined(time.live().find((timer) => timer.ms > 60_000)).fn();
		gate.current.resolve();
		await settle(harness);
		await settle(harness);
		expect(goalPrompts(defined(harness), "recovery")).toHaveLength(1);
		expect(lastGoal(defined(harness))).toMatchObject({ id, status: "complete" });
	});
});

function defined<T>(value: T | undefined): T {
	if (value === undefined) throw new Error("undefined");
	return value;
}
