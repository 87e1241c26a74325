/**
 * The peer's exact managed-run payloads (narumiruna's pi-goal, test/goal-run-protocol.test.ts),
 * sent to ours on Pi's real AgentSession: a runner written against the peer must hear the same
 * events, a cancel's `paused` included.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { completeGoal, goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

type Event = Record<string, unknown> & { error?: { code?: string } };

function runner(log: { pi?: ExtensionAPI; events: Map<string, Event[]> }) {
	return {
		name: "runner",
		factory: (pi: ExtensionAPI) => {
			log.pi = pi;
		},
	};
}

async function setup(responses: NonNullable<Parameters<typeof createScriptedSession>[0]>["responses"]) {
	const log: { pi?: ExtensionAPI; events: Map<string, Event[]> } = { events: new Map() };
	harness = await createScriptedSession({
		extensions: [runner(log), goalExtension({ settings: { managedRuns: true } })],
		responses,
	});
	const observe = (runId: string) => {
		const events: Event[] = [];
		log.events.set(runId, events);
		log.pi?.events.on(`pi-goal:event:${runId}`, (data: unknown) => events.push(data as Event));
		return events;
	};
	const bus = () => {
		if (!log.pi) throw new Error("runner not loaded");
		return log.pi.events;
	};
	return { observe, bus };
}

describe("peer wire protocol, the peer's own payloads", () => {
	it("pi-goal:cancel echoes the caller's reason in the terminal state, as the peer does", async () => {
		const { observe, bus } = await setup([]);
		const events = observe("cancel-run");
		bus().on("pi-goal:event:cancel-run", (data: unknown) => {
			const event = data as Event;
			if (event.type === "state" && event.status === "active")
				bus().emit("pi-goal:cancel", { runId: "cancel-run", reason: "parent cancelled" });
		});
		bus().emit("pi-goal:start", { runId: "cancel-run", objective: "ship the managed run" });
		await settle(defined(harness));
		expect(events.map((event) => event.status)).toEqual(["active", "paused"]);
		expect(events[1]).toMatchObject({ reason: "parent cancelled" });
		// Cancelled during the active event: no kickoff reached the provider.
		expect(harness?.providerCalls).toBe(0);
	});

	it("start trims the objective, keeps tokenBudget, and ignores unsafe or missing run ids", async () => {
		const { observe, bus } = await setup([
			completeGoal("All requirements verified."),
			completeGoal("All requirements verified."),
		]);
		const unsafe = ["", ":other-channel", "with space", "x".repeat(129)].map((id) => observe(id));
		for (const runId of ["", ":other-channel", "with space", "x".repeat(129)])
			bus().emit("pi-goal:start", { runId, objective: "ship the managed run" });
		bus().emit("pi-goal:start", { objective: "missing run id" });
		expect(unsafe.flat()).toEqual([]);
		const events = observe("run-start");
		bus().emit("pi-goal:start", {
			runId: "run-start",
			objective: "  ship the feature  ",
			tokenBudget: 50_000,
		});
		await settle(defined(harness));
		expect(lastGoal(defined(harness))).toMatchObject({ objective: "ship the feature", tokenBudget: 50_000 });
		expect(events.map((event) => event.status)).toEqual(["active", "complete"]);
		expect(events[1]).toMatchObject({ summary: "All requirements verified." });
	});

	it("the peer's invalid payloads get INVALID_REQUEST and start nothing", async () => {
		const { observe, bus } = await setup([reply("never")]);
		const cases: [string, Record<string, unknown>][] = [
			["empty-objective", { objective: "" }],
			["wrong-objective", { objective: 42 }],
			["zero-budget", { objective: "x", tokenBudget: 0 }],
			["fraction-budget", { objective: "x", tokenBudget: 1.5 }],
			["string-budget", { objective: "x", tokenBudget: "100" }],
		];
		for (const [runId, payload] of cases) {
			const events = observe(runId);
			bus().emit("pi-goal:start", { runId, ...payload });
			expect(events.map((event) => event.error?.code)).toEqual(["INVALID_REQUEST"]);
		}
		const throwing = observe("throwing-start");
		bus().emit("pi-goal:start", {
			runId: "throwing-start",
			get objective(): string {
				throw new Error("objective accessor failed");
			},
		});
		expect(throwing.map((event) => event.error?.code)).toEqual(["INVALID_REQUEST"]);
		expect(harness?.providerCalls).toBe(0);
	});

	it("a completion listener can start the next managed run", async () => {
		const { observe, bus } = await setup([
			completeGoal("first done"),
			completeGoal("first done"),
			completeGoal("second done"),
			completeGoal("second done"),
		]);
		const first = observe("chained-first");
		const second = observe("chained-second");
		bus().on("pi-goal:event:chained-first", (data: unknown) => {
			if ((data as Event).status === "complete")
				bus().emit("pi-goal:start", { runId: "chained-second", objective: "second managed objective" });
		});
		bus().emit("pi-goal:start", { runId: "chained-first", objective: "first managed objective" });
		await settle(defined(harness));
		await settle(defined(harness));
		expect(first.map((event) => event.status)).toEqual(["active", "complete"]);
		expect(second.map((event) => event.status ?? event.error?.code)).toEqual(["active", "complete"]);
	});
});

function defined<T>(value: T | undefined): T {
	if (value === undefined) throw new Error("undefined");
	return value;
}
