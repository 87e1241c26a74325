import { deferred, flushMicrotasks } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import { type AutomaticResult, type CheckRecord, CheckScheduler } from "../src/core/scheduler.js";

function harness(options: { blocker?: () => string | undefined } = {}) {
	const runs: {
		generation: number;
		signal: AbortSignal;
		result: ReturnType<typeof deferred<AutomaticResult>>;
	}[] = [];
	const records: CheckRecord[] = [];
	let scope = "s1";
	const commits: number[] = [];
	const scheduler = new CheckScheduler({
		runAutomatic: (signal, generation) => {
			const result = deferred<AutomaticResult>();
			runs.push({ generation, signal, result });
			return result.promise;
		},
		scope: () => scope,
		blocker: options.blocker,
		onSettled: (record) => records.push(record),
	});
	const terminal = (generation: number, delivered = true): AutomaticResult => ({
		kind: "terminal",
		outcome: "findings",
		commit: () => {
			commits.push(generation);
			return delivered;
		},
	});
	return {
		scheduler,
		runs,
		records,
		commits,
		terminal,
		setScope: (next: string) => {
			scope = next;
		},
	};
}

describe("CheckScheduler", () => {
	it("does not start a check when no mutation is newer than the last attempt", () => {
		const h = harness();
		expect(h.scheduler.requestAutomatic()).toBe("clean");
		expect(h.runs).toHaveLength(0);
	});

	it("coalesces repeated requests for the same generation into one check", () => {
		const h = harness();
		h.scheduler.markMutation();
		h.scheduler.markMutation();
		expect(h.scheduler.requestAutomatic()).toBe("started");
		expect(h.scheduler.requestAutomatic()).toBe("coalesced");
		expect(h.runs).toHaveLength(1);
		expect(h.runs[0]?.generation).toBe(2);
	});

	it("records a current terminal outcome once per generation and does not retry it", async () => {
		const h = harness();
		h.scheduler.markMutation();
		h.scheduler.requestAutomatic();
		h.runs[0]?.result.resolve(h.terminal(1));
		await h.scheduler.idle();
		expect(h.records.map((r) => r.disposition)).toEqual(["recorded"]);
		expect(h.scheduler.snapshot().attemptedGeneration).toBe(1);
		expect(h.scheduler.requestAutomatic()).toBe("clean");
		expect(h.runs).toHaveLength(1);
	});

	it("a newer mutation cancels the running check at once: its late result is stale and the next request starts the newer generation", async () => {
		const h = harness();
		h.scheduler.markMutation();
		h.scheduler.requestAutomatic();
		h.scheduler.markMutation();
		expect(h.runs[0]?.signal.aborted).toBe(true);
		expect(h.scheduler.snapshot().automaticActive).toBe(false);
		// The next trigger does not wait for the superseded check to finish.
		expect(h.scheduler.requestAutomatic()).toBe("started");
		expect(h.runs.map((r) => r.generation)).toEqual([1, 2]);
		h.runs[0]?.result.resolve(h.terminal(1));
		await flushMicrotasks();
		expect(h.records[0]).toMatchObject({
			generation: 1,
			disposition: "stale",
			detail: "superseded by a newer mutation",
		});
		expect(h.commits).toEqual([]);
		h.runs[1]?.result.resolve(h.terminal(2));
		await h.scheduler.idle();
		expect(h.commits).toEqual([2]);
		expect(h.scheduler.snapshot().attemptedGeneration).toBe(2);
	});

	it("keeps only the latest pending generation while explicit work runs", async () => {
		const h = harness();
		const explicit = deferred<void>();
		const done = h.scheduler.runExplicit(() => explicit.promise);
		h.scheduler.markMutation();
		expect(h.scheduler.requestAutomatic()).toBe("queued");
		h.scheduler.markMutation();
		h.scheduler.markMutation();
		expect(h.scheduler.requestAutomatic()).toBe("queued");
		expect(h.scheduler.snapshot().pending).toBe(3);
		expect(h.runs).toHaveLength(0);
		explicit.resolve();
		await done;
		expect(h.runs.map((r) => r.generation)).toEqual([3]);
		h.runs[0]?.result.resolve(h.terminal(3));
		await h.scheduler.idle();
		expect(h.scheduler.snapshot().attemptedGeneration).toBe(3);
	});

	it("cancellation does not consume the generation and discards the late completion", async () => {
		const h = harness();
		h.scheduler.markMutation();
		h.scheduler.requestAutomatic();
		expect(h.scheduler.cancelAutomatic()).toBe(true);
		expect(h.runs[0]?.signal.aborted).toBe(true);
		h.runs[0]?.result.resolve(h.terminal(1));
		await h.scheduler.idle();
		expect(h.commits).toEqual([]);
		expect(h.records[0]?.disposition).toBe("cancelled");
		expect(h.scheduler.dirty).toBe(true);
		expect(h.scheduler.requestAutomatic()).toBe("started");
	});

	it("a completion from another branch or project scope is stale and leaves the generation eligible", async () => {
		const h = harness();
		h.scheduler.markMutation();
		h.scheduler.requestAutomatic();
		h.setScope("s2");
		h.runs[0]?.result.resolve(h.terminal(1));
		await h.scheduler.idle();
		expect(h.records[0]?.disposition).toBe("stale");
		expect(h.commits).toEqual([]);
		expect(h.scheduler.dirty).toBe(true);
	});

	it("invalidate makes in-flight automatic work stale (tree navigation)", async () => {
		const h = harness();
		h.scheduler.markMutation();
		h.scheduler.requestAutomatic();
		h.scheduler.invalidate();
		h.runs[0]?.result.resolve(h.terminal(1));
		await h.scheduler.idle();
		expect(h.commits).toEqual([]);
		expect(h.scheduler.dirty).toBe(true);
	});

	it("retryable and undelivered outcomes do not consume the generation", async () => {
		const h = harness();
		h.scheduler.markMutation();
		h.scheduler.requestAutomatic();
		h.runs[0]?.result.resolve({ kind: "retryable", reason: "baseline pending" });
		await h.scheduler.idle();
		expect(h.scheduler.dirty).toBe(true);
		h.scheduler.requestAutomatic();
		h.runs[1]?.result.resolve(h.terminal(1, false));
		await h.scheduler.idle();
		expect(h.records.map((r) => r.disposition)).toEqual(["retryable", "undelivered"]);
		expect(h.scheduler.dirty).toBe(true);
	});

	it("explicit work takes priority: it cancels the automatic check, which resumes afterwards", async () => {
		const h = harness();
		h.scheduler.markMutation();
		h.scheduler.requestAutomatic();
		const explicit = deferred<string>();
		const done = h.scheduler.runExplicit(() => explicit.promise);
		expect(h.runs[0]?.signal.aborted).toBe(true);
		expect(h.scheduler.requestAutomatic()).toBe("queued");
		expect(h.runs).toHaveLength(1);
		explicit.resolve("scan");
		await expect(done).resolves.toBe("scan");
		expect(h.runs).toHaveLength(2);
		expect(h.runs[1]?.generation).toBe(1);
	});

	it("a blocked request (not idle, disabled, no baseline) starts nothing", () => {
		const h = harness({ blocker: () => "busy" });
		h.scheduler.markMutation();
		expect(h.scheduler.requestAutomatic()).toBe("blocked");
		expect(h.runs).toHaveLength(0);
	});

	it("close is idempotent, aborts owned work, awaits it and rejects later work", async () => {
		const h = harness();
		h.scheduler.markMutation();
		h.scheduler.requestAutomatic();
		const explicit = deferred<void>();
		let explicitSignal: AbortSignal | undefined;
		const work = h.scheduler.runExplicit((signal) => {
			explicitSignal = signal;
			return explicit.promise;
		});
		let closed = false;
		const closing = h.scheduler.close().then(() => {
			closed = true;
		});
		void h.scheduler.close();
		expect(explicitSignal?.aborted).toBe(true);
		await flushMicrotasks();
		expect(closed).toBe(false);
		explicit.resolve();
		h.runs[0]?.result.resolve(h.terminal(1));
		await closing;
		await work;
		expect(h.commits).toEqual([]);
		expect(h.scheduler.requestAutomatic()).toBe("closed");
		await expect(h.scheduler.runExplicit(async () => 1)).rejects.toThrow(/shutting down/);
	});
});
