/**
 * pi-jscpd's checkpoint scheduler and delivery bookkeeping under random interleavings.
 *
 * Scheduler: mutations, automatic requests (at rest or not), explicit commands taking priority,
 * cancels (a new prompt), invalidation (tree navigation), scope changes (session replacement),
 * blocking (busy, baseline not ready), check completions of every kind and shutdown. Invariants:
 * a finding is only delivered (commit) for the current generation, epoch and scope and never after
 * an abort or shutdown; a generation counts as attempted only when its delivery succeeded (never an
 * acknowledgement without delivery); a queued request is never lost while nothing cancelled it.
 *
 * Deliveries: random branches of findings messages, `jscpd_run changed` results, answers and
 * resets; replayBranch acknowledges exactly what a simple oracle says was delivered and seen.
 */

import { runs, SCHEDULES, Tally } from "@pi-lifecycle/seed-plan";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type AckRecord, lostAtReset } from "../src/core/deliveries.js";
import { MutationState, type ReplayEntry, replayBranch } from "../src/core/mutations.js";
import { FINDINGS_MESSAGE } from "../src/core/presentation.js";
import { type AutomaticResult, CheckScheduler } from "../src/core/scheduler.js";

const tally = new Tally();
const seen = {
	delivered: 0,
	undelivered: 0,
	supersededOrStale: 0,
	drained: 0,
	deliveriesReplayed: 0,
	lostAtReset: 0,
};
afterAll(() => {
	tally.covered("jscpd.property", seen);
	tally.verify("jscpd.property", {
		jscpdScheduler: SCHEDULES.jscpdScheduler,
		jscpdDeliveries: SCHEDULES.jscpdDeliveries,
	});
});

// ---------------------------------------------------------------------------------------------
// Scheduler
// ---------------------------------------------------------------------------------------------

type Command =
	| { readonly t: "mutate" | "cancel" | "invalidate" | "scope" | "explicit" | "explicit-end" | "close" }
	| { readonly t: "request"; readonly atRest: boolean }
	| { readonly t: "block"; readonly value: boolean }
	| { readonly t: "finish"; readonly result: "findings" | "undelivered" | "clean" | "retryable" | "throw" };

const command: fc.Arbitrary<Command> = fc.oneof(
	{ weight: 3, arbitrary: fc.constant({ t: "mutate" as const }) },
	{ weight: 4, arbitrary: fc.record({ t: fc.constant("request" as const), atRest: fc.boolean() }) },
	{
		weight: 4,
		arbitrary: fc.record({
			t: fc.constant("finish" as const),
			result: fc.constantFrom(
				"findings" as const,
				"findings" as const,
				"undelivered" as const,
				"clean" as const,
				"retryable" as const,
				"throw" as const,
			),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.constantFrom(
			{ t: "cancel" as const },
			{ t: "invalidate" as const },
			{ t: "scope" as const },
		),
	},
	{ weight: 1, arbitrary: fc.constantFrom({ t: "explicit" as const }, { t: "explicit-end" as const }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant("block" as const), value: fc.boolean() }) },
	{ weight: 1, arbitrary: fc.constant({ t: "close" as const }) },
);

interface Check {
	readonly generation: number;
	readonly signal: AbortSignal;
	readonly epoch: number;
	readonly scope: string;
	finish(result: AutomaticResult | Error): void;
}

async function ticks(n = 6): Promise<void> {
	for (let i = 0; i < n; i++) await Promise.resolve();
}

async function runSchedule(commands: readonly Command[]): Promise<void> {
	let scope = "s1";
	let blocked = false;
	let epoch = 0;
	let closed = false;
	const checks: Check[] = [];
	const explicits: (() => void)[] = [];
	/** A queued request no one cancelled yet (must start when the scheduler is free). */
	let queued = false;
	let attemptedModel = 0;

	const scheduler = new CheckScheduler({
		scope: () => scope,
		blocker: () => (blocked ? "busy" : undefined),
		runAutomatic: (signal, generation) =>
			new Promise<AutomaticResult>((resolve, reject) => {
				const check: Check = {
					generation,
					signal,
					epoch,
					scope,
					finish(result) {
						if (result instanceof Error) reject(result);
						else resolve(result);
					},
				};
				checks.push(check);
				// Checks honour their signal: an aborted check ends as retryable.
				signal.addEventListener("abort", () => resolve({ kind: "retryable", reason: "cancelled" }), {
					once: true,
				});
			}),
	});

	const terminal = (check: Check, delivered: boolean): AutomaticResult => ({
		kind: "terminal",
		outcome: delivered ? "findings" : "undelivered",
		commit: () => {
			// Never a finding from a stale generation, epoch or scope; never after abort or shutdown.
			const snap = scheduler.snapshot();
			expect(check.signal.aborted, "delivered an aborted check").toBe(false);
			expect(closed, "delivered after shutdown").toBe(false);
			expect(check.generation, "delivered a stale generation").toBe(snap.mutationGeneration);
			expect(check.epoch, "delivered across an invalidation").toBe(epoch);
			expect(check.scope, "delivered into another session or branch").toBe(scope);
			if (delivered) {
				seen.delivered++;
				attemptedModel = Math.max(attemptedModel, check.generation);
			} else seen.undelivered++;
			return delivered;
		},
	});

	for (const cmd of commands) {
		switch (cmd.t) {
			case "mutate":
				scheduler.markMutation();
				break;
			case "request": {
				const answer = scheduler.requestAutomatic({ atRest: cmd.atRest });
				if (answer === "queued") queued = true;
				if (answer === "started") queued = false;
				if (closed) expect(answer).toBe("closed");
				break;
			}
			case "finish": {
				const check = checks.shift();
				if (!check) break;
				const result =
					cmd.result === "throw"
						? new Error("scan crashed")
						: cmd.result === "retryable"
							? ({ kind: "retryable", reason: "baseline pending" } as const)
							: cmd.result === "clean"
								? terminal(check, true)
								: terminal(check, cmd.result === "findings");
				if (check.signal.aborted || check.generation !== scheduler.snapshot().mutationGeneration)
					seen.supersededOrStale++;
				check.finish(result);
				await ticks();
				break;
			}
			case "cancel":
				scheduler.cancelAutomatic();
				queued = false;
				await ticks();
				break;
			case "invalidate":
				epoch++;
				scheduler.invalidate();
				queued = false;
				await ticks();
				break;
			case "scope":
				scope = `${scope}+`;
				break;
			case "explicit": {
				if (closed) break;
				const wasActive = scheduler.snapshot().automaticActive;
				let end!: () => void;
				void scheduler
					.runExplicit(() => new Promise<void>((resolve) => (end = resolve)))
					.catch(() => undefined);
				explicits.push(end);
				// Explicit work takes priority: an automatic check is cancelled and its request kept.
				expect(scheduler.snapshot().automaticActive).toBe(false);
				if (wasActive) queued = true;
				await ticks();
				break;
			}
			case "explicit-end":
				explicits.shift()?.();
				await ticks();
				break;
			case "block":
				blocked = cmd.value;
				break;
			case "close":
				closed = true;
				queued = false;
				for (const end of explicits.splice(0)) end();
				await scheduler.close();
				break;
		}
		const snap = scheduler.snapshot();
		// Never an acknowledgement without delivery: attempted moves only with a delivered commit.
		expect(snap.attemptedGeneration, "a generation was recorded without a delivery").toBe(attemptedModel);
		// Never a lost eligible request: once the scheduler is free, a queued request starts (or is
		// blocked, or has nothing to do).
		const free = !snap.automaticActive && snap.explicitActive === 0;
		if (queued && free && !closed) {
			if (!blocked && snap.mutationGeneration > snap.attemptedGeneration) {
				expect(snap.pending, "a queued request was lost").toBeUndefined();
			}
			queued = false;
		}
		if (queued && snap.automaticActive && checks.length > 0) seen.drained++;
	}
	closed = true;
	for (const end of explicits.splice(0)) end();
	for (const check of checks.splice(0)) check.finish({ kind: "retryable", reason: "end" });
	await scheduler.close();
}

describe("pi-jscpd: checkpoint scheduler under random interleavings", () => {
	it("delivers only for the current generation/epoch/scope, records only delivered checks, never loses a queued request", async () => {
		await fc.assert(
			fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 40, size: "max" }), async (commands) => {
				await runSchedule(commands);
				tally.hit("jscpdScheduler");
			}),
			runs(30, SCHEDULES.jscpdScheduler),
		);
	});
});

// ---------------------------------------------------------------------------------------------
// Deliveries and acknowledgements
// ---------------------------------------------------------------------------------------------

type BranchItem =
	| { readonly t: "findings"; readonly ids: readonly string[]; readonly malformed: boolean }
	| { readonly t: "changed"; readonly ids: readonly string[]; readonly isError: boolean }
	| { readonly t: "answer" }
	| { readonly t: "reset" }
	| { readonly t: "compaction-keep" }
	| { readonly t: "write"; readonly path: string };

const IDS = ["c1", "c2", "c3", "c4"];
const PATHS = ["src/a.ts", "src/b.ts"];
const item: fc.Arbitrary<BranchItem> = fc.oneof(
	fc.record({
		t: fc.constant("findings" as const),
		ids: fc.subarray(IDS, { minLength: 1 }),
		malformed: fc.boolean().map((b) => b && Math.random() < 2),
	}),
	fc.record({
		t: fc.constant("changed" as const),
		ids: fc.subarray(IDS, { minLength: 1 }),
		isError: fc.boolean(),
	}),
	fc.constant({ t: "answer" as const }),
	fc.constant({ t: "reset" as const }),
	fc.constant({ t: "compaction-keep" as const }),
	fc.record({ t: fc.constant("write" as const), path: fc.constantFrom(...PATHS) }),
);

function pathsOf(id: string): string[] {
	return [PATHS[Number(id.slice(1)) % 2] as string];
}

function buildBranch(items: readonly BranchItem[]): ReplayEntry[] {
	const entries: (ReplayEntry & { id: string; parentId: string | null })[] = [];
	let parent: string | null = null;
	const push = (entry: Omit<ReplayEntry, "id" | "parentId">) => {
		const id = `e${entries.length}`;
		entries.push({ ...(entry as ReplayEntry), id, parentId: parent });
		parent = id;
		return id;
	};
	for (const it of items) {
		switch (it.t) {
			case "findings":
				push({
					type: "custom_message",
					customType: FINDINGS_MESSAGE,
					details: it.malformed
						? { delivered: it.ids.map((identity) => ({ identity, paths: "not-an-array" })) }
						: { delivered: it.ids.map((identity) => ({ identity, paths: pathsOf(identity) })) },
				});
				break;
			case "changed":
				push({
					type: "message",
					message: {
						role: "toolResult",
						toolName: "jscpd_run",
						isError: it.isError,
						details: {
							command: "changed",
							findings: it.ids.map((identity) => ({
								identity,
								locations: pathsOf(identity).map((path) => ({ path })),
							})),
						},
					},
				});
				break;
			case "answer":
				push({ type: "message", message: { role: "assistant", content: [{ type: "text", text: "ok" }] } });
				break;
			case "reset": {
				const id = `e${entries.length}`;
				// A retain-none compaction as Pi stores it: it keeps from itself.
				push({ type: "compaction", firstKeptEntryId: id } as never);
				break;
			}
			case "compaction-keep": {
				// A compaction that keeps the previous entry: what it keeps stays visible.
				push({ type: "compaction", firstKeptEntryId: parent ?? "e0" } as never);
				break;
			}
			case "write": {
				const callId = `call${entries.length}`;
				push({
					type: "message",
					message: {
						role: "assistant",
						content: [{ type: "toolCall", name: "write", id: callId, arguments: { path: it.path } }],
					} as never,
				});
				push({
					type: "message",
					message: { role: "toolResult", toolName: "write", toolCallId: callId, isError: false } as never,
				});
				break;
			}
		}
	}
	return entries;
}

/** Oracle: acknowledged = delivered, not dropped unseen by a later reset, not invalidated by a write. */
function oracle(items: readonly BranchItem[]): Set<string> {
	const acked = new Map<string, string[]>();
	let unseen: string[] = [];
	for (const it of items) {
		if (it.t === "answer") unseen = [];
		if (it.t === "write") {
			unseen = unseen.filter(() => true);
			// An answer precedes the write's tool result (the assistant message with the tool call).
			unseen = [];
			for (const [id, paths] of acked) if (paths.includes(it.path)) acked.delete(id);
		}
		if (it.t === "reset") {
			for (const id of unseen) acked.delete(id);
			unseen = [];
		}
		const delivered =
			it.t === "findings" && !it.malformed ? it.ids : it.t === "changed" && !it.isError ? it.ids : [];
		for (const id of delivered) {
			acked.set(id, pathsOf(id));
			unseen.push(id);
		}
	}
	return new Set(acked.keys());
}

describe("pi-jscpd: acknowledgements replayed from random branches", () => {
	it("acknowledges exactly what was delivered and not dropped unseen by a reset; never a malformed or failed delivery", () => {
		fc.assert(
			fc.property(fc.array(item, { minLength: 1, maxLength: 30, size: "max" }), (items) => {
				const entries = buildBranch(items);
				const state = new MutationState();
				replayBranch(state, entries, { findingsType: FINDINGS_MESSAGE, canonical: (path) => path });
				const expected = oracle(items);
				for (const id of IDS) expect(state.isAcknowledged(id), `identity ${id}`).toBe(expected.has(id));
				if (expected.size > 0) seen.deliveriesReplayed++;
				// lostAtReset on the last reset agrees with the replay: nothing it returns is acknowledged later.
				const lastReset = [...entries]
					.reverse()
					.find(
						(e) =>
							e.type === "compaction" &&
							(e as { firstKeptEntryId?: string }).firstKeptEntryId === (e as { id?: string }).id,
					);
				if (lastReset) {
					const byId = new Map(entries.map((e) => [(e as { id: string }).id, e]));
					const lost: AckRecord[] = lostAtReset(
						{ getLeafId: () => (entries.at(-1) as { id: string }).id, getEntry: (id) => byId.get(id) },
						(lastReset as { id: string }).id,
						FINDINGS_MESSAGE,
					);
					if (lost.length > 0) seen.lostAtReset++;
					const replayed = new MutationState();
					replayBranch(replayed, entries, { findingsType: FINDINGS_MESSAGE, canonical: (path) => path });
					for (const ack of lost) {
						const deliveredAgain = entries
							.slice(entries.indexOf(lastReset) + 1)
							.some((e) => JSON.stringify(e).includes(`"identity":"${ack.identity}"`));
						if (!deliveredAgain) expect(replayed.isAcknowledged(ack.identity)).toBe(false);
					}
				}
				tally.hit("jscpdDeliveries");
			}),
			runs(31, SCHEDULES.jscpdDeliveries),
		);
	});
});
