/**
 * A contract revision appended while Pi is idle (`sendMessage` with `triggerTurn: false`) emits no
 * `message_end`, so pi-goal itself records that the window holds it. Otherwise the next run start
 * appends the same revision again and the model reads it twice (seed: a stop persists one
 * inactive revision).
 */
import {
	createScriptedSession,
	messageText,
	providerError,
	type RecordedRequest,
	reply,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { toolsExtension } from "./fixtures.js";
import { completeGoal, contracts, goalExtension, goalTool, lastState, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** How many contract messages of `revision` one request carries. */
function revisionCount(request: RecordedRequest | undefined, revision: number): number {
	return (request?.messages ?? []).filter((message) =>
		messageText(message).startsWith(`[pi-goal contract, revision ${revision};`),
	).length;
}

describe("a contract revision published while idle is in the window once", () => {
	it("the user's clear while idle: the cleared revision reaches the model once", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension()],
			responses: [completeGoal(), completeGoal(), reply("nothing left")],
		});
		await harness.prompt("/goal ship the feature");
		await settle(harness);
		await harness.prompt("/goal clear");
		await settle(harness);
		const revision = lastState(harness)?.revision ?? -1;
		expect(contracts(harness).at(-1)?.details).toMatchObject({ revision });
		await harness.prompt("anything left?");
		await settle(harness);
		expect(revisionCount(harness.requests.at(-1), revision)).toBe(1);
	});

	it("the user's pause of a waiting goal while idle: the paused revision reaches the model once", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension()],
			responses: [goalTool("goal_wait", { seconds: 600, reason: "waiting for CI" }), reply("ok")],
		});
		await harness.prompt("/goal watch CI");
		await settle(harness);
		await harness.prompt("/goal pause");
		await settle(harness);
		const revision = lastState(harness)?.revision ?? -1;
		expect(lastState(harness)?.goal?.status).toBe("paused");
		await harness.prompt("what now?");
		await settle(harness);
		expect(revisionCount(harness.requests.at(-1), revision)).toBe(1);
	});

	it("a stop at agent_settled: the inactive revision reaches the model once", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension()],
			responses: [
				providerError(
					"429 insufficient_quota: You exceeded your current quota, please check your plan and billing details.",
				),
				reply("ok"),
			],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(lastState(harness)?.goal?.status).toBe("usage_limited");
		const revision = lastState(harness)?.revision ?? -1;
		await harness.prompt("what happened?");
		await settle(harness);
		expect(revisionCount(harness.requests.at(-1), revision)).toBe(1);
	});
});
