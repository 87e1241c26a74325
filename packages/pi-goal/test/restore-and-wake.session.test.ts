import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	type Deferred,
	deferred,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CONTINUATION_MESSAGE, STATE_ENTRY } from "../src/core/types.js";
import { toolsExtension } from "./fixtures.js";
import {
	completeGoal,
	completeGoalAfterWork,
	continuations,
	customMessages,
	defined,
	goalExtension,
	goalIdIn,
	goalTool,
	lastState,
	settle,
} from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** Fake clock and timers so deadlines are deterministic. */
function fakeTime() {
	const pending: { fn: () => void; ms: number; cleared: boolean }[] = [];
	const time = {
		now: 1_700_000_000_000,
		pending,
		timers: {
			setTimeout(fn: () => void, ms: number) {
				const timer = { fn, ms, cleared: false };
				pending.push(timer);
				return timer;
			},
			clearTimeout(handle: unknown) {
				(handle as { cleared: boolean }).cleared = true;
			},
		},
		live: () => pending.filter((timer) => !timer.cleared),
	};
	return time;
}

function waitDeadline(h: ScriptedSession): number | undefined {
	const goal = lastState(h)?.goal as { wait?: { resumeAt: number } } | null | undefined;
	return goal?.wait?.resumeAt;
}

function wakePrompts(h: ScriptedSession) {
	return customMessages(h, CONTINUATION_MESSAGE).filter(
		(m) => (m.details as { kind: string }).kind === "wake",
	);
}

describe("idle wake-ups and restore", () => {
	it("exactly once under repeated settles: a due wait and a settling run give one continuation", async () => {
		const time = fakeTime();
		const gates: { current?: Deferred<void> } = {};
		harness = await createScriptedSession({
			extensions: [goalExtension({ now: () => time.now, timers: time.timers }), toolsExtension(gates)],
			responses: [goalTool("goal_wait", { reason: "CI run", resume_after_ms: 1000 })],
		});
		await harness.prompt("/goal land the PR");
		await settle(harness);
		const waiting = lastState(harness)?.goal as { wait: { resumeAt: number } };
		// Waits under 10 s are clamped to 10 s, stored as an absolute deadline.
		expect(waiting.wait.resumeAt).toBe(time.now + 10_000);
		expect(time.live()).toHaveLength(1);
		expect(time.live()[0]?.ms).toBe(10_000);

		// A user run is busy in a tool when the deadline fires.
		gates.current = deferred();
		harness.script(toolCall("slow"), reply("tool finished"), completeGoal());
		// Started by another extension (user input would end the wait itself).
		const userRun = harness.session.prompt("check the build", { source: "extension" } as never);
		await vi.waitFor(() => expect(harness?.count("tool_execution_start")).toBe(2));
		time.now += 10_000;
		const timer = defined(time.live()[0]);
		timer.fn();
		timer.fn(); // a repeated callback changes nothing
		gates.current.resolve();
		await userRun;
		await settle(harness);
		await harness.prompt("/goal status");
		await settle(harness);
		// The busy run's boundary continued the goal; the idle wake never fired on top of it.
		expect(wakePrompts(harness)).toHaveLength(0);
		expect(continuations(harness)).toHaveLength(1);
		expect(lastState(harness)?.goal?.status).toBe("complete");
		expect(harness.providerCalls).toBe(4);
	});

	it("reload restores a waiting goal without extending its deadline and wakes it once idle", async () => {
		const time = fakeTime();
		harness = await createScriptedSession({
			extensions: [goalExtension({ now: () => time.now, timers: time.timers })],
			responses: [goalTool("goal_wait", { reason: "deploy", resume_after_ms: 60_000 })],
		});
		await harness.prompt("/goal deploy it");
		await settle(harness);
		const resumeAt = waitDeadline(harness) ?? 0;
		time.now += 20_000;
		await harness.reload();
		await settle(harness);
		expect(harness.providerCalls).toBe(1);
		// Restored deadline: 40 s left, not a fresh 60 s.
		const live = time.live();
		expect(live.at(-1)?.ms).toBe(40_000);
		expect(waitDeadline(harness)).toBe(resumeAt);
		harness.script(completeGoalAfterWork());
		time.now = resumeAt;
		live.at(-1)?.fn();
		// Pi asks once more after a batch of goal_complete beside other tool work.
		await vi.waitFor(() => expect(harness?.providerCalls).toBe(3));
		await settle(harness);
		expect(wakePrompts(harness)).toHaveLength(1);
		expect(lastState(harness)?.goal?.status).toBe("complete");
	});

	it("restart restores an active goal and it continues by itself once idle", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			session: "file",
			responses: [goalTool("goal_wait", { reason: "user" })],
		});
		await harness.prompt("/goal finish the migration");
		await settle(harness);
		// Simulate a crash mid-work: the last persisted state is active and not waiting.
		const state = defined(lastState(harness));
		const { wait: _wait, ...goal } = state.goal as Record<string, unknown>;
		harness.session.sessionManager.appendCustomEntry(STATE_ENTRY, { v: 1, state: { ...state, goal } });
		const file = defined(harness.sessionFile);
		await harness.dispose({ keepFiles: true });
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			session: { open: file },
			responses: [completeGoal(), completeGoal()],
		});
		// The first goal_complete, before any work of the goal, is asked about once (issue 30).
		await vi.waitFor(() => expect(harness?.providerCalls).toBe(2));
		await settle(harness);
		expect(lastState(harness)?.goal?.status).toBe("complete");
		expect(goalIdIn(harness.requests[0]?.messages)).toBe(goal.id);
	});

	it("manual compaction fallback: a goal started during compaction starts once compaction ends", async () => {
		const gate = deferred();
		const entered = deferred();
		const compactor = {
			name: "compactor",
			factory: (pi: ExtensionAPI) => {
				pi.on("session_before_compact", async (event) => {
					entered.resolve();
					await gate.promise;
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
		harness = await createScriptedSession({
			extensions: [compactor, goalExtension()],
			settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
			responses: [reply("hello"), reply("more"), completeGoal(), completeGoal()],
		});
		await harness.prompt("hi");
		await harness.prompt("again");
		const compaction = harness.session.compact().catch((error: Error) => error);
		await entered.promise;
		const started = harness.prompt("/goal tidy up");
		await vi.waitFor(() => expect(lastState(harness as ScriptedSession)?.goal?.status).toBe("active"));
		expect(harness.providerCalls).toBe(2);
		gate.resolve();
		await started;
		await compaction;
		await vi.waitFor(() => expect(harness?.providerCalls).toBe(4));
		await settle(harness);
		expect(customMessages(harness, CONTINUATION_MESSAGE)).toHaveLength(1);
		expect(goalIdIn(harness.requests[2]?.messages)).not.toBe("");
		expect(lastState(harness)?.goal?.status).toBe("complete");
	});
});
