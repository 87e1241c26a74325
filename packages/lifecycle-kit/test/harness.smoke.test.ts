import { afterEach, describe, expect, it } from "vitest";
import { createScriptedSession, reply, type ScriptedSession } from "../src/testing/index.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("scripted-session harness", () => {
	it("runs one prompt through Pi's real agent loop and records events and requests", async () => {
		harness = await createScriptedSession({ responses: [reply("hello back")] });
		await harness.prompt("hello");
		expect(harness.providerCalls).toBe(1);
		expect(harness.requests).toHaveLength(1);
		expect(harness.eventTypes().filter((t) => t.startsWith("agent_"))).toEqual([
			"agent_start",
			"agent_end",
			"agent_before_settle",
			"agent_settled",
		]);
		expect(harness.errors).toEqual([]);
	});
});
