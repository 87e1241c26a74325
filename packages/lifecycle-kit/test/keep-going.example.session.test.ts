/** The example extension in examples/keep-going.ts, on Pi's real agent loop. */
import { describe, expect, it } from "vitest";
import { keepGoing } from "../examples/keep-going.js";
import {
	createScriptedSession,
	deferred,
	reply,
	requestTexts,
	type ScriptedSession,
} from "../src/testing/index.js";

let harness: ScriptedSession | undefined;

const nudges = (h: ScriptedSession) =>
	h.events.filter((e) => e.type === "agent_before_settle" && (e.info.entries as string[]).length > 0).length;

describe("example: keep going until the model says DONE", () => {
	it("continues exactly once per boundary until DONE, then stops and unsubscribes", async () => {
		harness = await createScriptedSession({
			extensions: [keepGoing()],
			responses: [reply("working on it"), reply("still working"), reply("all DONE"), reply("you're welcome")],
		});
		await harness.prompt("/keep-going write the report");
		await harness.waitForIdle();
		// One started run, three requests: the start, then one per nudge.
		expect(harness.providerCalls).toBe(3);
		expect(harness.count("before_agent_start")).toBe(1);
		expect(harness.count("agent_settled")).toBe(1);
		expect(harness.count("agent_before_settle")).toBe(3);
		expect(nudges(harness)).toBe(2);
		const last = requestTexts(harness.requests[2] ?? { index: 0, messages: [] });
		expect(last.filter((line) => line.includes("Keep going on: write the report"))).toHaveLength(2);
		expect(last[0]).toContain("Task: write the report");

		// DONE stopped it: a later prompt gets no nudge (the participant is disarmed).
		await harness.prompt("thanks");
		expect(harness.providerCalls).toBe(4);
		expect(nudges(harness)).toBe(2);
	});

	it("gives up after maxNudges", async () => {
		harness = await createScriptedSession({
			extensions: [keepGoing({ maxNudges: 1 })],
			responses: [reply("a"), reply("b"), reply("c")],
		});
		await harness.prompt("/keep-going never ends");
		await harness.waitForIdle();
		expect(harness.providerCalls).toBe(2);
		expect(nudges(harness)).toBe(1);
	});

	it("a command issued while a run is busy starts the task once, after that run settles", async () => {
		const gate = deferred<void>();
		const requested = deferred<void>();
		harness = await createScriptedSession({
			extensions: [keepGoing()],
			responses: [
				async () => {
					requested.resolve();
					await gate.promise;
					return reply("first run answer");
				},
				reply("task DONE"),
			],
		});
		const first = harness.prompt("something else");
		await requested.promise;
		expect(harness.session.isIdle).toBe(false);
		// The command runs at once, even while streaming; its flush is blocked (busy).
		await harness.prompt("/keep-going queued task");
		gate.resolve();
		await first;
		await harness.waitForIdle();
		// The busy run was not nudged; the task started as its own run once idle returned.
		expect(harness.count("before_agent_start")).toBe(2);
		expect(harness.count("agent_settled")).toBe(2);
		expect(harness.providerCalls).toBe(2);
		expect(requestTexts(harness.requests[1] ?? { index: 0, messages: [] }).at(-1)).toContain(
			"Task: queued task",
		);
	});
});
