/** Managed runs (pi-goal:start) while the goal waits: nonterminal waiting, one later terminal event. */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	providerError,
	reply,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentDirWith, completeGoalAfterWork, fakeTime, goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

interface RunLog {
	events: Record<string, unknown>[];
	ctx?: ExtensionContext;
	pi?: ExtensionAPI;
}

function runner(log: RunLog) {
	return {
		name: "runner",
		factory: (pi: ExtensionAPI) => {
			log.pi = pi;
			pi.events.on("pi-goal:event:run-1", (payload: unknown) =>
				log.events.push(payload as Record<string, unknown>),
			);
			pi.on("session_start", (_event, ctx) => {
				log.ctx = ctx;
			});
		},
	};
}

async function startManaged(log: RunLog, h: ScriptedSession, calls: number) {
	log.pi?.events.emit("pi-goal:start", {
		objective: "managed work",
		runId: "run-1",
		session: log.ctx?.sessionManager,
	});
	await vi.waitFor(() => expect(h.providerCalls).toBe(calls));
	await settle(h);
	// The start was acknowledged synchronously with the peer's `active` state event.
	expect(log.events[0]).toMatchObject({ type: "state", runId: "run-1", status: "active" });
	log.events.splice(0, 1);
}

describe("managed runs and waiting", () => {
	it("provider-error waiting stays nonterminal; later completion sends exactly one terminal event", async () => {
		const log: RunLog = { events: [] };
		harness = await createScriptedSession({
			extensions: [runner(log), goalExtension({ settings: { managedRuns: true } })],
			responses: [providerError("400 bad request")],
		});
		await startManaged(log, harness, 1);
		expect(lastGoal(harness).wait?.kind).toBe("provider_error");
		expect(log.events).toHaveLength(0);
		harness.script(completeGoalAfterWork());
		await harness.prompt("try again");
		await settle(harness);
		expect(log.events).toHaveLength(1);
		expect(log.events[0]).toMatchObject({ type: "state", runId: "run-1", status: "complete" });
	});

	it("usage-limit recovery keeps a managed run active: no terminal usage_limited event while waiting", async () => {
		const log: RunLog = { events: [] };
		const time = fakeTime();
		harness = await createScriptedSession({
			extensions: [
				runner(log),
				goalExtension({
					now: () => time.now,
					timers: time.timers,
					agentDir: agentDirWith({ retryUsageLimits: true, managedRuns: true }),
				}),
			],
			responses: [providerError("insufficient_quota")],
		});
		await startManaged(log, harness, 1);
		expect(lastGoal(harness).wait?.kind).toBe("usage_limit");
		expect(log.events).toHaveLength(0);
		harness.script(reply("back to work"), completeGoalAfterWork());
		time.now = lastGoal(harness).wait?.resumeAt ?? 0;
		time.live().at(-1)?.fn();
		const h = harness;
		// Pi asks once more after a batch of goal_complete beside other tool work.
		await vi.waitFor(() => expect(h.providerCalls).toBe(4));
		await settle(h);
		expect(log.events).toEqual([expect.objectContaining({ status: "complete" })]);
	});

	it("default usage policy ends a managed run with one terminal usage_limited event", async () => {
		const log: RunLog = { events: [] };
		harness = await createScriptedSession({
			extensions: [runner(log), goalExtension({ settings: { managedRuns: true } })],
			responses: [providerError("insufficient_quota")],
		});
		await startManaged(log, harness, 1);
		expect(log.events).toEqual([expect.objectContaining({ status: "usage_limited", runId: "run-1" })]);
	});
});
