import { describe, expect, it } from "vitest";
import { createScriptedSession, reply, type ScriptedSession } from "../src/testing/index.js";

let harness: ScriptedSession | undefined;

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

describe("scripted-session harness without the recorder", () => {
	it("recorder: false loads only the extensions under test: no events, no context or turn_end handler", async () => {
		let settled = 0;
		harness = await createScriptedSession({
			recorder: false,
			extensions: [(pi) => void pi.on("agent_settled", () => void settled++)],
			responses: [reply("hello back")],
		});
		await harness.prompt("hello");
		expect(harness.providerCalls).toBe(1);
		expect(settled).toBe(1);
		expect(harness.events).toEqual([]);
		for (const type of ["context", "turn_end", "agent_before_settle", "message_end"]) {
			expect(harness.session.hasExtensionHandlers(type)).toBe(false);
		}
		expect(harness.session.hasExtensionHandlers("agent_settled")).toBe(true);
	});

	it("the default recorder subscribes context and turn_end (what recorder: false avoids)", async () => {
		harness = await createScriptedSession({ responses: [reply("hello back")] });
		await harness.prompt("hello");
		expect(harness.session.hasExtensionHandlers("context")).toBe(true);
		expect(harness.session.hasExtensionHandlers("turn_end")).toBe(true);
		expect(harness.count("agent_settled")).toBe(1);
	});
});

describe("scripted-session harness on every supported host", () => {
	it("reload re-runs factories: session_shutdown(reload) then session_start(reload)", async () => {
		let factoryRuns = 0;
		harness = await createScriptedSession({ extensions: [() => void factoryRuns++] });
		await harness.reload();
		expect(factoryRuns).toBe(2);
		expect(harness.events.map((e) => `${e.type}:${e.info.reason}`)).toEqual([
			"session_start:startup",
			"session_shutdown:reload",
			"session_start:reload",
		]);
	});

	it("records each extension error once, before and after a reload", async () => {
		harness = await createScriptedSession({
			extensions: [
				(pi) =>
					void pi.on("agent_settled", () => {
						throw new Error("handler failed");
					}),
			],
			responses: [reply("a"), reply("b")],
		});
		await harness.prompt("one");
		expect(harness.errors.map((e) => e.error)).toEqual(["handler failed"]);
		await harness.reload();
		await harness.prompt("two");
		expect(harness.errors.map((e) => e.error)).toEqual(["handler failed", "handler failed"]);
	});
});
