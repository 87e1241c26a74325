/**
 * Audit (issue 35): the held Escape pause must not depend on how long other extensions' agent_settled
 * handlers take. Pi's compact() resumes only after EVERY agent_settled handler returned
 * (abort() → waitForIdle()), so a slow handler of an extension loaded after pi-goal delays the
 * compaction's start past any fixed number of macrotask turns counted from pi-goal's own handler.
 */

import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	deferred,
	overflowError,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { compactorExtension, toolsExtension } from "./fixtures.js";
import { triggerCompactPeer } from "./goal-peers.js";
import { completeGoal, completeGoalAfterWork, goalExtension, goalIdIn, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** Another extension whose agent_settled handler does slow work (writes a file, calls a service). */
function slowSettlePeer(ms: number) {
	const factory: ExtensionFactory = (pi: ExtensionAPI) => {
		pi.on("agent_settled", async () => {
			await new Promise((resolve) => setTimeout(resolve, ms));
		});
	};
	return { name: "slow-settle", factory };
}

describe("a compaction is not an interruption, whatever other extensions do at agent_settled", () => {
	// KNOWN DEFECT (not fixed in this round): the held run is released as interrupted two macrotask
	// turns after pi-goal's own agent_settled handler, while the slow handler still runs; the goal
	// ends paused (interrupted) although the compaction then succeeds.
	it.fails("ctx.compact() mid-run with a slow agent_settled handler loaded after pi-goal: the goal stays active in the same goal id", async () => {
		const control: { armed: boolean; result?: "complete" | "error" } = { armed: true };
		harness = await createScriptedSession({
			extensions: [
				goalExtension(),
				toolsExtension(),
				compactorExtension({}),
				triggerCompactPeer(control),
				slowSettlePeer(30),
			],
			settings: { compaction: { keepRecentTokens: 1 } },
			responses: [toolCall("noop"), completeGoal("Done; tests pass.")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		await new Promise((resolve) => setTimeout(resolve, 100));
		await settle(harness);
		await settle(harness);
		expect(control.result).toBe("complete");
		const kickoffId = goalIdIn(harness.requests[0]?.messages ?? []);
		expect(lastGoal(harness)).toMatchObject({ id: kickoffId, status: "complete" });
	});
});

describe("a compaction keeps the goal's response count", () => {
	it("responses before and after another extension's ctx.compact() mid-run count toward the same limit", async () => {
		let n = 0;
		const busy = () => () => toolCall("noop", { attempt: ++n }) as never;
		const control: { armed: boolean; result?: "complete" | "error" } = { armed: true };
		harness = await createScriptedSession({
			extensions: [
				goalExtension({ settings: { automaticTurns: 4 } }),
				toolsExtension(),
				compactorExtension({}),
				triggerCompactPeer(control),
			],
			settings: { compaction: { keepRecentTokens: 1 } },
			responses: Array.from({ length: 20 }, busy),
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		await settle(harness);
		expect(control.result).toBe("complete");
		const kickoffId = goalIdIn(harness.requests[0]?.messages ?? []);
		expect(lastGoal(harness)).toMatchObject({
			id: kickoffId,
			status: "paused",
			pauseReason: "automatic-turns",
		});
		expect(harness.providerCalls).toBe(4);
	});
});

describe("the user's Escape around a compaction", () => {
	it("Escape during the compaction another extension's ctx.compact() started mid-run pauses the goal (interrupted), no request after", async () => {
		const gate = deferred();
		const entered = deferred();
		const slowCompactor = {
			name: "slow-compactor",
			factory: (pi: ExtensionAPI) => {
				pi.on("session_before_compact", async (event) => {
					entered.resolve();
					await Promise.race([gate.promise, new Promise((r) => event.signal.addEventListener("abort", r))]);
					if (event.signal.aborted) return undefined;
					return {
						compaction: {
							summary: "SUMMARY",
							firstKeptEntryId: event.preparation.firstKeptEntryId,
							tokensBefore: event.preparation.tokensBefore,
						},
					};
				});
			},
		};
		const control: { armed: boolean; result?: "complete" | "error" } = { armed: true };
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension(), slowCompactor, triggerCompactPeer(control)],
			settings: { compaction: { keepRecentTokens: 1 } },
			responses: [toolCall("noop"), reply("never")],
		});
		const run = harness.prompt("/goal ship it");
		await entered.promise;
		await harness.abort();
		await run;
		await settle(harness);
		expect(control.result).toBe("error");
		expect(harness.providerCalls).toBe(1);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "interrupted" });
	});

	it("Escape, then the user's /compact: the goal stays paused (interrupted) and is not woken", async () => {
		const gate = deferred();
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension({ current: gate }), compactorExtension({})],
			settings: { compaction: { keepRecentTokens: 1 } },
			responses: [toolCall("slow"), reply("never"), reply("never")],
		});
		const run = harness.prompt("/goal ship it");
		await vi.waitFor(() => expect(harness?.count("tool_execution_start")).toBe(1));
		await harness.abort();
		await run;
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "interrupted" });
		await harness.session.compact();
		await settle(harness);
		expect(harness.providerCalls).toBe(1);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "interrupted" });
	});
});

describe("auto-compaction on overflow during a goal", () => {
	it("an overflow compaction that succeeds mid-goal: the goal goes on in the same goal id and every response counts", async () => {
		harness = await createScriptedSession({
			extensions: [compactorExtension({}), goalExtension(), toolsExtension()],
			settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
			responses: [
				reply("earlier"),
				toolCall("noop"),
				overflowError(),
				toolCall("noop"),
				completeGoalAfterWork(),
			],
		});
		await harness.prompt("warm up");
		await harness.prompt("/goal ship it");
		await settle(harness);
		const kickoffId = goalIdIn(harness.requests[1]?.messages ?? []);
		expect(harness.events.some((e) => e.type === "session_compact" && e.info.reason === "overflow")).toBe(
			true,
		);
		expect(goalIdIn(harness.requests.at(-1)?.messages ?? [])).toBe(kickoffId);
		// noop, the overflowed response, noop, and the finishing batch: four responses of the goal.
		expect(lastGoal(harness)).toMatchObject({
			id: kickoffId,
			status: "complete",
			safety: { automaticTurns: 4 },
		});
	});
});
