/**
 * Managed runs speak the established peer's wire protocol (narumiruna's pi-goal): start with
 * {runId, objective, tokenBudget?}, a synchronous `active` state, exactly one terminal state,
 * structured error events with the peer's codes, the peer's runId rule, and an opt-in switch.
 * Our older fields (`session`, `tokens: "100k"`) still work. See docs/pi-goal-managed-runs.md.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	deferred,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toolsExtension } from "./fixtures.js";
import {
	completeGoal,
	completeGoalAfterWork,
	goalExtension,
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

interface RunLog {
	events: Record<string, unknown>[];
	ctx?: ExtensionContext;
	pi?: ExtensionAPI;
}

/** A runner extension that drives goals over the bus and records every event of its run ids. */
function runner(log: RunLog, runIds = ["run-1", "run-2"]) {
	return {
		name: "runner",
		factory: (pi: ExtensionAPI) => {
			log.pi = pi;
			for (const runId of runIds)
				pi.events.on(`pi-goal:event:${runId}`, (payload: unknown) =>
					log.events.push(payload as Record<string, unknown>),
				);
			pi.on("session_start", (_event, ctx) => {
				log.ctx = ctx;
			});
		},
	};
}

const ON = { settings: { managedRuns: true } };

describe("managed-run protocol (peer wire format)", () => {
	it("a managed run hears a synchronous active state, then exactly one terminal state", async () => {
		const log: RunLog = { events: [] };
		harness = await createScriptedSession({
			extensions: [runner(log), goalExtension(ON)],
			responses: [reply("working"), completeGoalAfterWork("All done; tests pass.")],
		});
		log.pi?.events.emit("pi-goal:start", { runId: "run-1", objective: "managed work", tokenBudget: 100_000 });
		expect(log.events).toEqual([
			expect.objectContaining({
				type: "state",
				runId: "run-1",
				status: "active",
				goalId: lastGoal(harness).id,
			}),
		]);
		// goal_complete beside bash: Pi may ask once more after the batch (a third call), so at least two.
		await vi.waitFor(() => expect(harness?.providerCalls).toBeGreaterThanOrEqual(2));
		await settle(harness);
		await harness.prompt("/goal clear");
		expect(log.events).toHaveLength(2);
		expect(log.events[1]).toMatchObject({
			type: "state",
			runId: "run-1",
			status: "complete",
			summary: "All done; tests pass.",
		});
		expect(lastState(harness)?.goal).toBeNull();
	});

	it("our older payload (session, tokens as text) still starts a managed run", async () => {
		const log: RunLog = { events: [] };
		harness = await createScriptedSession({
			extensions: [runner(log), goalExtension(ON)],
			responses: [completeGoal(), completeGoal()],
		});
		log.pi?.events.emit("pi-goal:start", {
			objective: "managed work",
			tokens: "100k",
			runId: "run-1",
			session: log.ctx?.sessionManager,
		});
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "complete", tokenBudget: 100_000 });
		expect(log.events.map((event) => event.status)).toEqual(["active", "complete"]);
		// A payload naming another session is not ours to answer.
		log.pi?.events.emit("pi-goal:start", { objective: "x", runId: "run-2", session: {} });
		expect(log.events).toHaveLength(2);
	});

	it("managed runs are opt-in: a start while managedRuns is off gets RPC_DISABLED", async () => {
		const log: RunLog = { events: [] };
		harness = await createScriptedSession({ extensions: [runner(log), goalExtension()], responses: [] });
		log.pi?.events.emit("pi-goal:start", { runId: "run-1", objective: "x" });
		expect(log.events).toEqual([
			expect.objectContaining({
				type: "error",
				operation: "start",
				error: expect.objectContaining({ code: "RPC_DISABLED" }),
			}),
		]);
		expect(lastState(harness)).toBeUndefined();
	});

	it("error codes: invalid request, unsafe runId (no reply), goal already exists, runId in use, run not found", async () => {
		const log: RunLog = { events: [] };
		const seen: unknown[] = [];
		harness = await createScriptedSession({
			extensions: [runner(log), goalExtension(ON), toolsExtension({ current: deferred() })],
			responses: [],
		});
		log.pi?.events.on("pi-goal:event:bad id", (payload: unknown) => seen.push(payload));
		const codes = () => log.events.map((event) => (event.error as { code?: string } | undefined)?.code);
		log.pi?.events.emit("pi-goal:start", { runId: "bad id", objective: "x" });
		expect(seen).toEqual([]);
		log.pi?.events.emit("pi-goal:start", { runId: "run-1", objective: "x", tokenBudget: 1.5 });
		log.pi?.events.emit("pi-goal:cancel", { runId: "run-1" });
		expect(codes()).toEqual(["INVALID_REQUEST", "RUN_NOT_FOUND"]);
		log.events.length = 0;
		await harness.prompt("/goal unrelated");
		await settle(harness);
		log.pi?.events.emit("pi-goal:start", { runId: "run-1", objective: "x" });
		expect(codes()).toEqual(["GOAL_ALREADY_EXISTS"]);
		log.events.length = 0;
		await harness.prompt("/goal clear");
		harness.script(toolCall("slow"), reply("never"));
		log.pi?.events.emit("pi-goal:start", { runId: "run-1", objective: "x" });
		await vi.waitFor(() => expect(harness?.count("tool_execution_start")).toBe(1));
		log.pi?.events.emit("pi-goal:start", { runId: "run-1", objective: "again" });
		expect(log.events.map((event) => event.status ?? codes()[log.events.indexOf(event)])).toEqual([
			"active",
			"RUN_ID_IN_USE",
		]);
	});

	it("pi-goal:cancel pauses the managed goal (kept for /goal resume) with one terminal paused state", async () => {
		const log: RunLog = { events: [] };
		harness = await createScriptedSession({
			extensions: [runner(log), goalExtension(ON), toolsExtension({ current: deferred() })],
			responses: [toolCall("slow"), reply("never")],
		});
		log.pi?.events.emit("pi-goal:start", { runId: "run-1", objective: "x" });
		await vi.waitFor(() => expect(harness?.count("tool_execution_start")).toBe(1));
		log.pi?.events.emit("pi-goal:cancel", { runId: "run-1", reason: "parent cancelled" });
		await settle(harness);
		expect(log.events.map((event) => event.status)).toEqual(["active", "paused"]);
		expect(log.events[1]).toMatchObject({ type: "state", reason: "parent cancelled" });
		expect(lastGoal(harness)).toMatchObject({ status: "paused", objective: "x" });
		expect(harness.providerCalls).toBe(1);
	});

	it("every managed-run event carries only the protocol's documented fields (never the session manager)", async () => {
		const log: RunLog = { events: [] };
		harness = await createScriptedSession({
			extensions: [runner(log), goalExtension(ON)],
			responses: [reply("working")],
		});
		log.pi?.events.emit("pi-goal:start", { runId: "run-1", objective: "managed work", tokenBudget: 100_000 });
		await settle(harness);
		await harness.prompt("/goal clear");
		log.pi?.events.emit("pi-goal:cancel", { runId: "run-2" });
		log.pi?.events.emit("pi-goal:start", { runId: "run-2", objective: "" });
		const allowed: Record<string, readonly string[]> = {
			state: ["type", "runId", "goalId", "status", "summary", "reason", "tokens"],
			error: ["type", "runId", "operation", "error"],
		};
		expect(log.events.map((event) => event.type)).toEqual(["state", "state", "error", "error"]);
		for (const event of log.events) {
			expect(Object.keys(event).filter((key) => !allowed[String(event.type)]?.includes(key))).toEqual([]);
			expect(JSON.stringify(event).length).toBeLessThan(400);
		}
	});
});

/** A stand-in for narumiruna's pi-goal: its own goal tools and /goal command. */
function peerGoalExtension(calls: string[], commands: string[] = []) {
	return {
		name: "peer-goal",
		factory: (pi: ExtensionAPI) => {
			for (const name of ["goal_complete", "goal_blocked", "goal_wait"])
				pi.registerTool({
					name,
					label: name,
					description: `peer ${name}`,
					parameters: Type.Object({ goal_id: Type.String() }),
					async execute() {
						calls.push(name);
						return { content: [{ type: "text", text: "peer ok" }], details: {} };
					},
				});
			pi.registerCommand("goal", {
				description: "peer goal",
				handler: async (args) => {
					commands.push(args);
				},
			});
		},
	};
}

describe("coexistence with another goal extension", () => {
	it("pi-goal stays dormant with one message when another extension already registered the goal tools", async () => {
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		const calls: string[] = [];
		const peerCommand: string[] = [];
		const log: RunLog = { events: [] };
		harness = await createScriptedSession({
			extensions: [peerGoalExtension(calls, peerCommand), runner(log), goalExtension(ON)],
			responses: [toolCall("goal_complete", { goal_id: "peer-1" }), reply("done")],
		});
		const dormant = () => errors.mock.calls.flat().filter((text) => String(text).includes("off in this Pi"));
		expect(dormant()).toHaveLength(1);
		expect(String(dormant()[0])).toContain("handles goals and /goal here");
		// The peer's tools are the ones that run; ours changes nothing.
		await harness.prompt("please finish");
		await settle(harness);
		expect(calls).toEqual(["goal_complete"]);
		// Ours registered no /goal, so the plain name is the peer's; the bus is left to the peer.
		await harness.prompt("/goal ship it");
		expect(peerCommand).toEqual(["ship it"]);
		log.pi?.events.emit("pi-goal:start", { runId: "run-1", objective: "x" });
		expect(log.events).toEqual([]);
		expect(lastState(harness)).toBeUndefined();
		expect(dormant()).toHaveLength(1);
		expect(harness.errors).toEqual([]);
	});

	it("pi-goal stays dormant when loaded before the peer too: it registers only at session start, after the peer's load", async () => {
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		const peerCommand: string[] = [];
		harness = await createScriptedSession({
			extensions: [goalExtension(), peerGoalExtension([], peerCommand)],
			responses: [reply("never")],
		});
		expect(errors.mock.calls.flat().filter((text) => String(text).includes("off in this Pi"))).toHaveLength(
			1,
		);
		await harness.prompt("/goal ship it");
		expect(peerCommand).toEqual(["ship it"]);
		expect(lastState(harness)).toBeUndefined();
		expect(harness.errors).toEqual([]);
	});
});
