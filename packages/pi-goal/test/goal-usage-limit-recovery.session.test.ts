/**
 * Optional usage-limit recovery (`retryUsageLimits`): the wait record, the 15-minute fallback, the
 * timer that only requests intent, re-arming on a further direct rejection, the accounting
 * exemption, model changes, disabling after the settings save commits, reload, and cleanup.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
	createScriptedSession,
	providerError,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { USAGE_FALLBACK_MS } from "../src/core/types.js";
import { toolsExtension } from "./fixtures.js";
import {
	agentDirWith,
	completeGoalAfterWork,
	fakeTime,
	goalExtension,
	goalPrompts,
	lastGoal,
	settle,
} from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const QUOTA =
	"429 insufficient_quota: You exceeded your current quota, please check your plan and billing details.";

async function limitedGoal(
	options: {
		responses?: NonNullable<Parameters<typeof createScriptedSession>[0]>["responses"];
		agentDir?: string;
	} = {},
) {
	const time = fakeTime();
	const agentDir = options.agentDir ?? agentDirWith({ retryUsageLimits: true });
	harness = await createScriptedSession({
		extensions: [goalExtension({ now: () => time.now, timers: time.timers, agentDir }), toolsExtension()],
		responses: options.responses ?? [reply("kickoff reply"), providerError(QUOTA)],
	});
	await harness.prompt("/goal ship it");
	await settle(harness);
	return { h: harness, time, agentDir };
}

/** Fires the live timer that is due at `resumeAt`. */
function fireDue(time: ReturnType<typeof fakeTime>, resumeAt: number) {
	time.now = resumeAt;
	const timer = time.live().at(-1);
	timer?.fn();
	return timer;
}

describe("usage-limit recovery", () => {
	it("enabled recovery waits with usageLimit metadata and an absolute 15-minute fallback deadline", async () => {
		const { h, time } = await limitedGoal();
		const goal = lastGoal(h);
		const model = h.session.model;
		expect(goal.status).toBe("active");
		expect(goal.wait).toMatchObject({
			kind: "usage_limit",
			resumeAt: time.now + USAGE_FALLBACK_MS,
			usageLimit: { provider: model?.provider, model: model?.id, api: model?.api },
		});
		expect(time.live().at(-1)?.ms).toBe(USAGE_FALLBACK_MS);
		expect(h.providerCalls).toBe(2);
	});

	it("the deadline requests one recovery request; a further direct rejection re-arms the wait without counting", async () => {
		const { h, time } = await limitedGoal();
		const id = lastGoal(h).id;
		const counted = lastGoal(h).safety?.automaticTurns ?? -1;
		expect(counted).toBe(2); // the kickoff reply and the original rejection count
		h.script(providerError(QUOTA));
		const first = lastGoal(h).wait?.resumeAt ?? 0;
		const timer = fireDue(time, first);
		timer?.fn(); // a repeated callback changes nothing
		await vi.waitFor(() => expect(h.providerCalls).toBe(3));
		await settle(h);
		expect(goalPrompts(h, "recovery")).toHaveLength(1);
		const rearmed = lastGoal(h);
		expect(rearmed).toMatchObject({ id, status: "active", wait: { kind: "usage_limit" } });
		expect(rearmed.wait?.resumeAt).toBe(time.now + USAGE_FALLBACK_MS);
		// The scheduled, work-free, directly rejected recovery request is exempt.
		expect(rearmed.safety?.automaticTurns).toBe(counted);
		// Successful work returns to normal processing with the same goal id.
		h.script(reply("limit reset, working"), completeGoalAfterWork());
		fireDue(time, rearmed.wait?.resumeAt ?? 0);
		// Pi asks once more after a batch of goal_complete beside other tool work.
		await vi.waitFor(() => expect(h.providerCalls).toBe(6));
		await settle(h);
		expect(lastGoal(h)).toMatchObject({ id, status: "complete" });
		// The recovery reply and the response that completed the goal both count.
		expect(lastGoal(h).safety?.automaticTurns).toBe(counted + 2);
	});

	it("a recovery request that does work before the rejection keeps normal accounting", async () => {
		const { h, time } = await limitedGoal();
		const counted = lastGoal(h).safety?.automaticTurns ?? -1;
		h.script(toolCall("noop"), providerError(QUOTA));
		fireDue(time, lastGoal(h).wait?.resumeAt ?? 0);
		await vi.waitFor(() => expect(h.providerCalls).toBe(4));
		await settle(h);
		expect(lastGoal(h).wait?.kind).toBe("usage_limit");
		expect(lastGoal(h).safety?.automaticTurns).toBe(counted + 2);
	});

	it("an observed model change stops recovery as usage_limited and cancels the timer", async () => {
		const { h, time } = await limitedGoal();
		const timer = time.live().at(-1);
		const model = h.session.model;
		if (!model) throw new Error("no model");
		await h.session.setModel({ ...model, id: "other-model" });
		expect(lastGoal(h).status).toBe("usage_limited");
		expect(timer?.cleared).toBe(true);
		expect(h.providerCalls).toBe(2);
	});

	it("disabling takes effect after the settings save commits; a failed save keeps the policy", async () => {
		const { h, agentDir } = await limitedGoal();
		// A file the kit refuses to overwrite (invalid): the save fails, recovery stays pending.
		const file = join(agentDir, "pi-lifecycle", "pi-goal.json");
		writeFileSync(file, "{ not json");
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		await h.prompt("/goal retry-usage-limits off");
		expect(lastGoal(h).wait?.kind).toBe("usage_limit");
		writeFileSync(file, JSON.stringify({ retryUsageLimits: true }));
		await h.prompt("/goal retry-usage-limits off");
		errors.mockRestore();
		expect(lastGoal(h).status).toBe("usage_limited");
		// Enabling again does not restart the stopped goal.
		await h.prompt("/goal retry-usage-limits on");
		expect(lastGoal(h).status).toBe("usage_limited");
		expect(h.providerCalls).toBe(2);
	});

	it("reload restores the absolute deadline without moving it", async () => {
		const { h, time } = await limitedGoal();
		const resumeAt = lastGoal(h).wait?.resumeAt ?? 0;
		time.now += 5 * 60 * 1000;
		await h.reload();
		await settle(h);
		expect(lastGoal(h).wait?.resumeAt).toBe(resumeAt);
		expect(time.live().at(-1)?.ms).toBe(resumeAt - time.now);
		expect(h.providerCalls).toBe(2);
	});

	it("pause and clear cancel the owned timer and send nothing", async () => {
		const { h, time } = await limitedGoal();
		const timer = time.live().at(-1);
		await h.prompt("/goal pause");
		expect(timer?.cleared).toBe(true);
		timer?.fn();
		await settle(h);
		expect(h.providerCalls).toBe(2);
		expect(lastGoal(h).status).toBe("paused");
	});
});
