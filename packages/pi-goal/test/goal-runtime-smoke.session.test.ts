/**
 * Runtime smoke on Pi's real loop (replaces the seed's goal-runtime-smoke.mjs): event ordering and
 * settled-only publication, native retry attempt counts with zero/disabled budgets, managed
 * waiting and automatic tool loops.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	reply,
	retryableError,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { toolsExtension } from "./fixtures.js";
import { completeGoal, goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** Records the goal's wait kind (from the persisted state) at agent_end and agent_settled. */
function observer(log: string[], read: () => string) {
	return {
		name: "observer",
		factory: (pi: ExtensionAPI) => {
			pi.on("agent_end", () => void log.push(`agent_end:${read()}`));
			pi.on("agent_settled", () => void log.push(`agent_settled:${read()}`));
		},
	};
}

describe("runtime smoke", () => {
	it("event order: waiting is published at agent_settled, never at agent_end", async () => {
		const log: string[] = [];
		harness = await createScriptedSession({
			extensions: [
				goalExtension(),
				observer(log, () => (harness ? (lastGoal(harness).wait?.kind ?? "-") : "?")),
			],
			settings: { retry: { enabled: true, maxRetries: 1, baseDelayMs: 1 } },
			responses: [retryableError(), retryableError()],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(log).toEqual(["agent_end:-", "agent_end:-", "agent_settled:provider_retry"]);
		const order = harness.eventTypes((e) =>
			["agent_end", "agent_before_settle", "agent_settled"].includes(e.type),
		);
		expect(order).toEqual(["agent_end", "agent_end", "agent_before_settle", "agent_settled"]);
	});

	it.each([
		["zero retry budget", { enabled: true, maxRetries: 0, baseDelayMs: 1 }, 1],
		["disabled retries", { enabled: false, maxRetries: 3, baseDelayMs: 1 }, 1],
		["two retries", { enabled: true, maxRetries: 2, baseDelayMs: 1 }, 3],
	])("native retry attempt count with %s", async (_name, retry, calls) => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			settings: { retry },
			responses: [retryableError(), retryableError(), retryableError(), reply("never")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.providerCalls).toBe(calls);
		expect(lastGoal(harness).wait?.kind).toBe("provider_retry");
	});

	it("automatic tool loops with a transient error in the middle finish normally", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension()],
			responses: [
				toolCall("noop"),
				retryableError(),
				toolCall("noop"),
				reply("done looping"),
				completeGoal(),
			],
		});
		await harness.prompt("/goal loop");
		await settle(harness);
		expect(lastGoal(harness).status).toBe("complete");
		expect(harness.providerCalls).toBe(5);
	});
});
