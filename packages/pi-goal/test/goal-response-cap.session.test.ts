/**
 * Issue 30 (1): the response limit bounds the goal, whichever run a response is in: the run `/goal`
 * starts, `/goal resume`, continuations, and runs the user steered or followed up. Each case is a
 * confirmed defect: a model that keeps working without finishing ran until an outside abort.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	type DynamicStep,
	reply,
	retryableError,
	type ScriptedSession,
	toolCall,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { goalExtension, goalTool, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

let step = 0;
/** A tool call that makes no progress but never repeats itself (the stuck detector cannot help). */
function busyWork(): DynamicStep {
	return () => toolCall("bash", { command: `echo attempt ${++step} && exit 1` }) as never;
}
function busyScript(n: number): DynamicStep[] {
	return Array.from({ length: n }, () => busyWork());
}

const LIMIT = { automaticTurns: 5 };

describe("the response limit counts every response of the goal", () => {
	it("responses in the run /goal starts count: a busy model is paused at the limit", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension({ settings: LIMIT })],
			responses: busyScript(40),
		});
		await harness.prompt("/goal make the build pass");
		await settle(harness);
		expect(harness.providerCalls).toBe(5);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
	});

	it("responses in the run /goal resume starts count", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension({ settings: LIMIT })],
			responses: busyScript(40),
		});
		await harness.prompt("/goal make the build pass");
		await settle(harness);
		const before = harness.providerCalls;
		await harness.prompt("/goal resume");
		await settle(harness);
		expect(harness.providerCalls - before).toBe(5);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
	});

	it("responses after the user steers the goal's run count", async () => {
		let steered = false;
		const typist = {
			name: "typist",
			factory: (pi: ExtensionAPI) => {
				pi.on("input", (event) => {
					if (event.source === "extension") steered = true;
				});
				pi.on("tool_execution_end", () => {
					if (steered) return;
					steered = true;
					pi.sendUserMessage("also look at the docs", { deliverAs: "steer" });
				});
			},
		};
		harness = await createScriptedSession({
			extensions: [typist, goalExtension({ settings: LIMIT })],
			responses: busyScript(40),
		});
		await harness.prompt("/goal make the build pass");
		await settle(harness);
		expect(harness.providerCalls).toBe(5);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
	});

	it("responses after a user follow-up inside the goal's work count", async () => {
		let boundaries = 0;
		const typist = {
			name: "typist",
			factory: (pi: ExtensionAPI) => {
				pi.on("agent_before_settle", async () => {
					if (++boundaries !== 1) return;
					pi.sendUserMessage("a question from the user", { deliverAs: "followUp" });
					await new Promise((resolve) => setImmediate(resolve));
				});
			},
		};
		harness = await createScriptedSession({
			extensions: [typist, goalExtension({ settings: LIMIT })],
			responses: [reply("I looked around."), ...busyScript(40)],
		});
		await harness.prompt("/goal make the build pass");
		await settle(harness);
		expect(harness.providerCalls).toBe(5);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
	});

	it("responses of a run the user's prompt starts while the goal waits count (the prompt ends the wait)", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension({ settings: LIMIT })],
			responses: [
				busyWork(),
				goalTool("goal_wait", { reason: "the CI run", resume_after_ms: 3_600_000 }),
				...busyScript(40),
			],
		});
		await harness.prompt("/goal make the build pass");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "active", wait: { reason: "the CI run" } });
		expect(harness.providerCalls).toBe(2);
		await harness.prompt("how is it going?");
		await settle(harness);
		expect(harness.providerCalls).toBe(5);
		expect(lastGoal(harness)).toMatchObject({
			status: "paused",
			pauseReason: "automatic-turns",
			safety: { automaticTurns: 5 },
		});
	});

	it("Pi's automatic retry of a transient error stays within the limit: the error response counts", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension({ settings: LIMIT })],
			responses: [busyWork(), () => retryableError() as never, ...busyScript(40)],
		});
		await harness.prompt("/goal make the build pass");
		await settle(harness);
		expect(harness.providerCalls).toBe(5);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
	});

	it("a response with parallel tool calls counts once: the limit is reached at exactly its responses", async () => {
		const batch = (): DynamicStep => () =>
			toolCalls([
				{ name: "bash", args: { command: `echo a ${++step}` } },
				{ name: "bash", args: { command: `echo b ${++step}` } },
				{ name: "bash", args: { command: `echo c ${++step} && exit 1` } },
			]) as never;
		harness = await createScriptedSession({
			extensions: [goalExtension({ settings: LIMIT })],
			responses: Array.from({ length: 40 }, () => batch()),
		});
		await harness.prompt("/goal make the build pass");
		await settle(harness);
		expect(harness.providerCalls).toBe(5);
		expect(lastGoal(harness)).toMatchObject({
			status: "paused",
			pauseReason: "automatic-turns",
			safety: { automaticTurns: 5 },
		});
	});

	it("a user's own prompt while no goal is active is not goal work", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension({ settings: LIMIT })],
			responses: [...busyScript(5), reply("plain answer")],
		});
		await harness.prompt("/goal make the build pass");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "paused" });
		await harness.prompt("what is 2 + 2?");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", safety: { automaticTurns: 5 } });
	});
});
