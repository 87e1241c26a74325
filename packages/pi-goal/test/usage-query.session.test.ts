/**
 * The `usage:query:v1` client with scripted responders (fresh, stale, ambiguous, slow, cancelled,
 * missing) and the pure report reader.
 */
import {
	createScriptedSession,
	deferred,
	providerError,
	reply,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { USAGE_QUERY_DEADLINE_MS } from "../src/adapters/usage-query.js";
import { USAGE_FALLBACK_MS } from "../src/core/types.js";
import { selectResetHint } from "../src/core/usage-reset.js";
import { usageResponder } from "./fixtures.js";
import { agentDirWith, fakeTime, goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const QUOTA = "429 insufficient_quota: quota exceeded";
const HOUR = 60 * 60 * 1000;

type Responder = ReturnType<typeof usageResponder>;

async function limited(responders: Responder[]) {
	const time = fakeTime();
	harness = await createScriptedSession({
		extensions: [
			goalExtension({
				now: () => time.now,
				timers: time.timers,
				agentDir: agentDirWith({ retryUsageLimits: true }),
			}),
			...responders,
		],
		responses: [reply("kickoff reply"), providerError(QUOTA)],
	});
	await harness.prompt("/goal ship it");
	await settle(harness);
	return { h: harness, time, fallback: time.now + USAGE_FALLBACK_MS };
}

/** A report a usage service would give for the session's model. */
function report(
	h: () => ScriptedSession | undefined,
	now: () => number,
	over: Record<string, unknown> = {},
	bucket: Record<string, unknown> = {},
) {
	const model = h()?.session.model;
	return {
		version: 1,
		status: "ok",
		provider: model?.provider,
		fetchedAt: now(),
		expiresAt: now() + 60_000,
		buckets: [
			{ id: "5h", modelKeys: [model?.id], used: 100, limit: 100, resetsAt: now() + 2 * HOUR, ...bucket },
		],
		...over,
	};
}

describe("usage:query:v1 client", () => {
	it("a fresh, scoped report moves the deadline to the latest exhausted reset; the request is well-formed", async () => {
		let clock = () => 0;
		const service = usageResponder(() => {
			const r = report(() => harness, clock);
			return Promise.resolve({
				...r,
				buckets: [
					...r.buckets,
					{
						id: "week",
						modelKeys: [harness?.session.model?.id],
						used: 5,
						limit: 5,
						resetsAt: clock() + 30 * HOUR,
					},
					{ id: "other", modelKeys: ["other-model"], used: 9, limit: 9, resetsAt: clock() + 90 * HOUR },
				],
			});
		});
		const time = fakeTime();
		clock = () => time.now;
		harness = await createScriptedSession({
			extensions: [
				goalExtension({
					now: () => time.now,
					timers: time.timers,
					agentDir: agentDirWith({ retryUsageLimits: true }),
				}),
				service,
			],
			responses: [reply("kickoff reply"), providerError(QUOTA)],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		const h = harness;
		await vi.waitFor(() => expect(lastGoal(h).wait?.resumeAt).toBe(time.now + 30 * HOUR));
		const request = service.requests[0] as Record<string, unknown> & {
			signal: AbortSignal;
			deadline: number;
			requestedAt: number;
		};
		expect(request).toMatchObject({
			version: 1,
			refresh: true,
			provider: h.session.model?.provider,
			model: { id: h.session.model?.id },
		});
		expect(request.deadline - request.requestedAt).toBeLessThanOrEqual(USAGE_QUERY_DEADLINE_MS);
		expect(request.signal).toBeInstanceOf(AbortSignal);
		expect(service.requests).toHaveLength(1); // no poller
	});

	it("a stale report falls back to 15 minutes", async () => {
		const stale = usageResponder((r) =>
			report(
				() => harness,
				() => (r.requestedAt as number) - 60_000,
			),
		);
		const { h, fallback } = await limited([stale]);
		await settle(h);
		expect(lastGoal(h).wait?.resumeAt).toBe(fallback);
	});

	it("ambiguous answers fall back: unscoped buckets and two responders", async () => {
		const unscoped = await limited([
			usageResponder((r) =>
				report(
					() => harness,
					() => r.requestedAt as number,
					{},
					{ modelKeys: [] },
				),
			),
		]);
		await settle(unscoped.h);
		expect(lastGoal(unscoped.h).wait?.resumeAt).toBe(unscoped.fallback);
		await harness?.dispose();
		const answer = (r: Record<string, unknown>) =>
			report(
				() => harness,
				() => r.requestedAt as number,
			);
		const two = await limited([usageResponder(answer), usageResponder(answer)]);
		await settle(two.h);
		expect(lastGoal(two.h).wait?.resumeAt).toBe(two.fallback);
	});

	it("a slow responder times out at the deadline and cannot move the deadline later", async () => {
		const late = deferred<unknown>();
		const service = usageResponder(() => late.promise);
		const { h, time, fallback } = await limited([service]);
		const deadline = time.live().find((timer) => timer.ms === USAGE_QUERY_DEADLINE_MS);
		expect(deadline).toBeDefined();
		deadline?.fn();
		const signal = (service.requests[0] as { signal: AbortSignal }).signal;
		expect(signal.aborted).toBe(true);
		late.resolve(
			report(
				() => harness,
				() => time.now,
			),
		);
		await settle(h);
		expect(lastGoal(h).wait?.resumeAt).toBe(fallback);
	});

	it("a cancelled query (pause) aborts the request signal and a late answer changes nothing", async () => {
		const late = deferred<unknown>();
		const service = usageResponder(() => late.promise);
		const { h, time } = await limited([service]);
		await h.prompt("/goal pause");
		expect((service.requests[0] as { signal: AbortSignal }).signal.aborted).toBe(true);
		late.resolve(
			report(
				() => harness,
				() => time.now,
			),
		);
		await settle(h);
		expect(lastGoal(h)).toMatchObject({ status: "paused" });
		expect(lastGoal(h).wait).toBeUndefined();
	});

	it("a missing service leaves the 15-minute fallback", async () => {
		const { h, fallback } = await limited([]);
		expect(lastGoal(h).wait?.resumeAt).toBe(fallback);
	});
});

describe("selectResetHint (report reader)", () => {
	const scope = { provider: "p", modelId: "m", modelName: "Model M" };
	const now = 1_000_000;
	const base = {
		version: 1,
		status: "ok",
		provider: "p",
		fetchedAt: now,
		buckets: [{ id: "a", modelKeys: ["m"], used: 10, limit: 10, resetsAt: now + 5000 }],
	};
	const read = (over: Record<string, unknown>) => selectResetHint({ ...base, ...over }, scope, now - 1, now);
	it("accepts a fresh scoped report and matches the model name too", () => {
		expect(read({})).toEqual({ ok: true, resumeAt: now + 5000 });
		expect(read({ buckets: [{ ...base.buckets[0], modelKeys: ["Model M"] }] }).ok).toBe(true);
	});
	it.each([
		["malformed", { version: 2 }],
		["unavailable", { status: "unavailable" }],
		["another provider", { provider: "q" }],
		["stale fetch", { fetchedAt: now - 10 }],
		["expired cache", { expiresAt: now }],
		["duplicate ids", { buckets: [base.buckets[0], base.buckets[0]] }],
		["unscoped", { buckets: [{ ...base.buckets[0], modelKeys: undefined }] }],
		["missing measurements", { buckets: [{ id: "a", modelKeys: ["m"], resetsAt: now + 1 }] }],
		["contradictory", { buckets: [{ ...base.buckets[0], remaining: 5 }] }],
		["past reset", { buckets: [{ ...base.buckets[0], resetsAt: now - 1 }] }],
		["nothing exhausted", { buckets: [{ ...base.buckets[0], used: 1 }] }],
		["private ids are not scope", { buckets: [{ ...base.buckets[0], id: "m", modelKeys: ["x"] }] }],
	])("falls back on %s", (_name, over) => {
		expect(read(over).ok).toBe(false);
	});
});
