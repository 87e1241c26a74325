import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	deferred,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toolsExtension } from "./fixtures.js";
import { completeGoal, goalExtension, lastState, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** A runner extension that drives goals over the bus. */
function runner(log: { events: unknown[]; ctx?: ExtensionContext; pi?: ExtensionAPI }) {
	return {
		name: "runner",
		factory: (pi: ExtensionAPI) => {
			log.pi = pi;
			pi.events.on("pi-goal:event:run-1", (payload: unknown) => log.events.push(payload));
			pi.on("session_start", (_event, ctx) => {
				log.ctx = ctx;
			});
		},
	};
}

describe("managed-run protocol", () => {
	it("a managed run receives exactly one terminal event", async () => {
		const log: { events: unknown[]; ctx?: ExtensionContext; pi?: ExtensionAPI } = { events: [] };
		harness = await createScriptedSession({
			extensions: [runner(log), goalExtension()],
			responses: [reply("working"), completeGoal()],
		});
		log.pi?.events.emit("pi-goal:start", {
			objective: "managed work",
			tokens: "100k",
			runId: "run-1",
			session: log.ctx?.sessionManager,
		});
		await vi.waitFor(() => expect(harness?.providerCalls).toBe(2));
		await settle(harness);
		await harness.prompt("/goal clear");
		expect(log.events).toHaveLength(1);
		expect(log.events[0]).toMatchObject({ type: "terminal", runId: "run-1", status: "complete" });
	});

	it("pi-goal:cancel stops the managed goal with one cancelled event", async () => {
		const log: { events: unknown[]; ctx?: ExtensionContext; pi?: ExtensionAPI } = { events: [] };
		harness = await createScriptedSession({
			extensions: [runner(log), goalExtension(), toolsExtension({ current: deferred() })],
			responses: [],
		});
		await harness.prompt("/goal unrelated");
		await settle(harness);
		// A start while a goal is unfinished is rejected with one terminal event.
		log.pi?.events.emit("pi-goal:start", {
			objective: "x",
			runId: "run-1",
			session: log.ctx?.sessionManager,
		});
		expect(log.events).toEqual([expect.objectContaining({ status: "rejected" })]);
		log.events.length = 0;
		await harness.prompt("/goal clear");
		harness.script(toolCall("slow"), reply("never"));
		log.pi?.events.emit("pi-goal:start", {
			objective: "x",
			runId: "run-1",
			session: log.ctx?.sessionManager,
		});
		await vi.waitFor(() => expect(harness?.count("tool_execution_start")).toBe(1));
		log.pi?.events.emit("pi-goal:cancel", { runId: "run-1", session: log.ctx?.sessionManager });
		await settle(harness);
		expect(log.events).toEqual([expect.objectContaining({ status: "cancelled" })]);
		expect(lastState(harness)?.goal).toBeNull();
		expect(harness.providerCalls).toBe(2);
	});
});
