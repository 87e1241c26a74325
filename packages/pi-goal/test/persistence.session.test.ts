/**
 * Issue 23: long goals stay cheap. A goal writes `pi-goal/state` only when it changes meaningfully
 * (never per turn), subscribes `turn_end` only for a turn that needs it, and a restore re-derives
 * the per-turn accounting (tokens, safety counters, iteration) from the entries after the newest
 * state entry.
 */
import { readFileSync, writeFileSync } from "node:fs";
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { STATE_ENTRY } from "../src/core/types.js";
import { toolsExtension } from "./fixtures.js";
import { completeGoal, goalExtension, lastState, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

function stateEntries(h: ScriptedSession): number {
	return h.session.sessionManager
		.getBranch()
		.filter((e) => e.type === "custom" && e.customType === STATE_ENTRY).length;
}

function defined<T>(value: T | undefined): T {
	if (value === undefined) throw new Error("expected a value");
	return value;
}

describe("goal persistence and per-turn cost", () => {
	it("persist only on meaningful change: a 30-turn tool loop writes no state entry per turn and no turn_end handler runs", async () => {
		const turnEndSubscribed: boolean[] = [];
		const observe = () => {
			turnEndSubscribed.push(harness?.session.extensionRunner.hasHandlers("turn_end") === true);
			return toolCall("noop", { n: turnEndSubscribed.length });
		};
		harness = await createScriptedSession({
			extensions: [toolsExtension(), goalExtension({ settings: { automaticTurns: null } })],
			recorder: false,
			responses: [...Array.from({ length: 30 }, () => observe), completeGoal(), reply("done")],
		});
		await harness.prompt("/goal loop through the tools");
		await settle(harness);
		expect(lastState(harness)?.goal?.status).toBe("complete");
		// start + complete; per turn there was one entry each before issue 23.
		expect(stateEntries(harness)).toBe(2);
		// The first request carries the new contract (turn_end may be armed for it); later turns need none.
		expect(turnEndSubscribed.slice(2).every((subscribed) => !subscribed)).toBe(true);
	});

	it("restore replays the accounting after the last state entry: tokens spent after it still stop the goal at its budget", async () => {
		harness = await createScriptedSession({
			extensions: [toolsExtension(), goalExtension({ settings: { automaticTurns: null } })],
			session: "file",
			recorderPosition: "first",
			responses: [toolCall("noop"), toolCall("noop"), toolCall("noop"), reply("paused here")],
		});
		harness.setUsage({ input: 100, output: 0, totalTokens: 100 });
		await harness.prompt("/goal --tokens 1000 loop through the tools");
		await settle(harness);
		const state = defined(lastState(harness));
		expect(state.goal?.status).toBe("active");
		// A crash right after: 700 more tokens land on the branch after the newest state entry,
		// which a per-turn-free writer never recorded in a state entry.
		const manager = harness.session.sessionManager;
		for (let i = 0; i < 7; i++)
			manager.appendMessage({
				role: "assistant",
				content: [{ type: "text", text: `work ${i}` }],
				api: "faux",
				provider: "faux",
				model: "faux",
				usage: {
					input: 100,
					output: 0,
					cacheRead: 0,
					cacheWrite: 0,
					totalTokens: 100,
					cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
				},
				stopReason: "stop",
				timestamp: Date.now(),
			} as never);
		const file = defined(harness.sessionFile);
		await harness.dispose({ keepFiles: true });
		harness = await createScriptedSession({
			extensions: [toolsExtension(), goalExtension({ settings: { automaticTurns: null } })],
			session: { open: file },
			responses: [reply("should not be needed")],
		});
		await settle(harness);
		expect(lastState(harness)?.goal?.status).toBe("budget_limited");
		expect(harness.providerCalls).toBe(0);
	});

	it("restore replays the safety counters: automatic turns after the last state entry still count toward the cap", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension({ settings: { automaticTurns: 4 } })],
			session: "file",
			responses: [reply("step one"), reply("step two"), reply("step three")],
		});
		await harness.prompt("/goal write the three steps");
		await settle(harness);
		const file = defined(harness.sessionFile);
		await harness.dispose({ keepFiles: true });
		// A crash right after "step three" (kickoff reply manual, then 2 automatic responses): cut the
		// file there, so only the goal's start entry precedes the three replies.
		const lines = readFileSync(file, "utf8").split("\n");
		// (The reply, not a later state entry: the stuck detector's steps there quote it too.)
		const cut = lines.findLastIndex(
			(line) => line.includes('"role":"assistant"') && line.includes("step three"),
		);
		writeFileSync(file, `${lines.slice(0, cut + 1).join("\n")}\n`);
		expect(lines.slice(0, cut + 1).filter((line) => line.includes(STATE_ENTRY))).toHaveLength(1);
		// Three responses were replayed (the kickoff's too); the cap of 4 allows one more, not four.
		harness = await createScriptedSession({
			extensions: [goalExtension({ settings: { automaticTurns: 4 } })],
			session: { open: file },
			responses: [reply("four"), reply("five"), reply("six"), reply("seven")],
		});
		await settle(harness);
		expect(lastState(harness)?.goal).toMatchObject({ status: "paused", pauseReason: "automatic-turns" });
		expect(harness.providerCalls).toBe(1);
	});
});
