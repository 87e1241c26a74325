/** External waits: deadlines, cleanup, quiet elapsed time and wake boundaries. */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	providerError,
	reply,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
	completeGoalAfterWork,
	fakeTime,
	goalExtension,
	goalPrompts,
	goalTool,
	lastGoal,
	settle,
} from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

async function waitingGoal(
	resumeAfter?: number,
	extra: { extensions?: { name: string; factory: (pi: ExtensionAPI) => void }[] } = {},
) {
	const time = fakeTime();
	harness = await createScriptedSession({
		extensions: [goalExtension({ now: () => time.now, timers: time.timers }), ...(extra.extensions ?? [])],
		responses: [
			goalTool("goal_wait", { reason: "CI", ...(resumeAfter ? { resume_after_ms: resumeAfter } : {}) }),
		],
	});
	await harness.prompt("/goal land it");
	await settle(harness);
	return { h: harness, time };
}

describe("external waits", () => {
	it("a deadline wakes the goal once through the idle dispatcher", async () => {
		const { h, time } = await waitingGoal(60_000);
		expect(lastGoal(h).wait).toMatchObject({ kind: "explicit", resumeAt: time.now + 60_000 });
		h.script(completeGoalAfterWork());
		time.now += 60_000;
		const timer = time.live().at(-1);
		timer?.fn();
		timer?.fn();
		// Pi asks once more after a batch of goal_complete beside other tool work.
		await vi.waitFor(() => expect(h.providerCalls).toBe(3));
		await settle(h);
		expect(goalPrompts(h, "wake")).toHaveLength(1);
		expect(lastGoal(h).status).toBe("complete");
	});

	it("cleanup: /goal clear cancels the deadline timer and nothing is sent", async () => {
		const { h, time } = await waitingGoal(60_000);
		const timer = time.live().at(-1);
		await h.prompt("/goal clear");
		expect(timer?.cleared).toBe(true);
		time.now += 60_000;
		timer?.fn();
		await settle(h);
		expect(h.providerCalls).toBe(1);
	});

	it("quiet elapsed time: a wait adds no active time", async () => {
		const { h, time } = await waitingGoal();
		const before = (lastGoal(h).clock as { activeMs: number }).activeMs;
		time.now += 3_600_000;
		await h.prompt("/goal pause"); // folds the clock
		expect((lastGoal(h).clock as { activeMs: number }).activeMs).toBe(before);
	});

	it("wake boundaries: a message from another extension does not end an explicit wait; a user message does", async () => {
		let api: ExtensionAPI | undefined;
		const other = {
			name: "other",
			factory: (pi: ExtensionAPI) => {
				api = pi;
			},
		};
		const { h } = await waitingGoal(undefined, { extensions: [other] });
		h.script(reply("answered the extension"));
		api?.sendUserMessage("status ping");
		await settle(h);
		expect(lastGoal(h).wait?.kind).toBe("explicit");
		h.script(completeGoalAfterWork());
		await h.prompt("CI is green");
		await settle(h);
		expect(lastGoal(h).status).toBe("complete");
	});

	it("an explicit wait accepted before a later non-usage error keeps its reason and deadline", async () => {
		let api: ExtensionAPI | undefined;
		const other = {
			name: "other",
			factory: (pi: ExtensionAPI) => {
				api = pi;
			},
		};
		const { h } = await waitingGoal(60_000, { extensions: [other] });
		const wait = lastGoal(h).wait;
		h.script(providerError("400 bad request"));
		api?.sendUserMessage("status ping");
		await settle(h);
		expect(lastGoal(h).wait).toEqual(wait);
	});
});
