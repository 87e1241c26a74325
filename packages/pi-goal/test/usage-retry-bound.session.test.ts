/**
 * Issue 30 (4): usage-limit retries (`retryUsageLimits` on) are at least the goal_wait floor apart,
 * whatever reset the usage service reports, and bounded: past `usageRetries` retries in a row the
 * goal stops as usage_limited with a reason. Confirmed defect: "resets in 200 ms" made about five
 * requests a second for as long as the goal ran. Controlled clock and timers, deterministic.
 */
import {
	createScriptedSession,
	providerError,
	reply,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MIN_WAIT_MS } from "../src/core/types.js";
import { usageResponder } from "./fixtures.js";
import { agentDirWith, fakeTime, goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const QUOTA = "429 insufficient_quota: quota exceeded";

/** A usage service that always says the limit resets in 200 ms. */
function soonService(now: () => number) {
	return usageResponder(() => {
		const model = harness?.session.model;
		return Promise.resolve({
			version: 1,
			status: "ok",
			provider: model?.provider,
			fetchedAt: now(),
			expiresAt: now() + 60_000,
			buckets: [{ id: "5h", modelKeys: [model?.id], used: 100, limit: 100, resetsAt: now() + 200 }],
		});
	});
}

async function stuckOnQuota(settings: Record<string, unknown>) {
	const time = fakeTime();
	harness = await createScriptedSession({
		extensions: [
			goalExtension({ now: () => time.now, timers: time.timers, agentDir: agentDirWith(settings) }),
			soonService(() => time.now),
		],
		responses: [reply("kickoff reply"), ...Array.from({ length: 40 }, () => providerError(QUOTA))],
	});
	await harness.prompt("/goal ship it");
	await settle(harness);
	return time;
}

/** Fires the deadline of the current usage-limit wait; returns the interval it had. */
async function fireWait(time: ReturnType<typeof fakeTime>): Promise<number | undefined> {
	const h = harness as ScriptedSession;
	const wait = lastGoal(h).wait;
	if (wait?.kind !== "usage_limit" || wait.resumeAt === null) return undefined;
	const interval = wait.resumeAt - time.now;
	time.now = wait.resumeAt;
	const before = h.providerCalls;
	for (const timer of time.live()) {
		timer.cleared = true;
		timer.fn();
	}
	await vi.waitFor(() => expect(h.providerCalls).toBeGreaterThan(before));
	await settle(h);
	return interval;
}

describe("usage-limit retries", () => {
	it("a reset hint of 200 ms still waits at least the goal_wait floor between attempts", async () => {
		const time = await stuckOnQuota({ retryUsageLimits: true, usageRetries: null });
		// The query answered: the deadline moved from the 15-minute fallback, but not below the floor.
		await vi.waitFor(() =>
			expect(lastGoal(harness as ScriptedSession).wait?.resumeAt).toBe(time.now + MIN_WAIT_MS),
		);
		const intervals: number[] = [];
		for (let i = 0; i < 6; i++) {
			await vi.waitFor(() =>
				expect(lastGoal(harness as ScriptedSession).wait?.resumeAt).toBe(time.now + MIN_WAIT_MS),
			);
			const interval = await fireWait(time);
			if (interval !== undefined) intervals.push(interval);
		}
		expect(intervals).toHaveLength(6);
		for (const interval of intervals) expect(interval).toBeGreaterThanOrEqual(MIN_WAIT_MS);
	});

	it("after usageRetries attempts in a row the goal stops as usage_limited with a reason", async () => {
		const time = await stuckOnQuota({ retryUsageLimits: true });
		const h = harness as ScriptedSession;
		for (let i = 0; i < 10 && lastGoal(h).status === "active"; i++) await fireWait(time);
		expect(lastGoal(h)).toMatchObject({ status: "usage_limited" });
		expect(lastGoal(h).outcome).toContain("after 5 retries");
		// The kickoff, the rejected continuation and the five retries: nothing after.
		expect(h.providerCalls).toBe(7);
	});

	it("a usable response resets the count", async () => {
		const time = fakeTime();
		harness = await createScriptedSession({
			extensions: [
				goalExtension({
					now: () => time.now,
					timers: time.timers,
					agentDir: agentDirWith({ retryUsageLimits: true, usageRetries: 2 }),
				}),
			],
			responses: [
				reply("kickoff reply"),
				providerError(QUOTA),
				providerError(QUOTA),
				reply("working again"),
				providerError(QUOTA),
				providerError(QUOTA),
				reply("and again"),
			],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(lastGoal(harness).usageRetries).toBe(1);
		await fireWait(time);
		expect(lastGoal(harness).usageRetries).toBe(2);
		await fireWait(time);
		// "working again" reset it; the next rejection starts again at 1.
		expect(lastGoal(harness)).toMatchObject({ status: "active", usageRetries: 1 });
	});
});
