import { describe, expect, it } from "vitest";
import { idleResetMayCompact } from "../src/core/compaction-peers.js";
import {
	INITIAL_WINDOW,
	initialState,
	type ResetEvent,
	type ResetState,
	reduceReset,
	type Step,
} from "../src/core/reducer.js";

function run(state: ResetState, ...events: ResetEvent[]): Step {
	let step: Step = { state, effect: { type: "none" } };
	for (const event of events) step = reduceReset(Object.freeze(step.state), Object.freeze(event));
	return step;
}

const on = run(initialState(), {
	type: "restore",
	enabled: true,
	window: INITIAL_WINDOW,
	generation: 1,
	handoff: undefined,
}).state;
const toolRequest: ResetEvent = { type: "request", source: "tool", handoff: "H", streaming: true };

describe("reduceReset", () => {
	it("a request while streaming arms the boundary; a second one in the window is already pending", () => {
		const first = run(on, toolRequest);
		expect(first.effect.type).toBe("arm-boundary");
		const second = run(first.state, { ...toolRequest, handoff: undefined });
		expect(second.effect).toMatchObject({ type: "already-pending", request: { handoff: "H" } });
		expect(second.state).toBe(first.state);
	});

	it("alreadyPending: a /reset note given while a reset is pending is its handoff, after which the model's handoff stays; the model's second call changes nothing", () => {
		const first = run(on, toolRequest);
		expect(run(first.state, { ...toolRequest, handoff: "other" }).state).toBe(first.state);
		const second = run(first.state, { type: "request", source: "command", handoff: "note", streaming: true });
		expect(second.effect).toMatchObject({ type: "already-pending", handoff: "this" });
		const both = "The user's note for this reset (/reset): note\n\nH";
		expect(second.state.request?.handoff).toBe(both);
		expect(second.state.handoff).toMatchObject({ text: both, source: "command" });
		// The user's own later note replaces the user's earlier one.
		const third = run(second.state, { type: "request", source: "command", handoff: "n2", streaming: true });
		expect(third.state.request?.handoff).toBe("n2");
	});

	it("alreadyPending: /reset --fresh while a reset is pending makes it a fresh start, with or without a note", () => {
		const first = run(on, { type: "request", source: "command", handoff: undefined, streaming: false });
		const bare = run(first.state, {
			type: "request",
			source: "command",
			handoff: undefined,
			streaming: false,
			fresh: true,
		});
		expect(bare.effect).toMatchObject({ type: "already-pending", fresh: true });
		expect(bare.state.request).toMatchObject({ fresh: true, handoff: undefined });
		const noted = run(first.state, {
			type: "request",
			source: "command",
			handoff: "N",
			streaming: false,
			fresh: true,
		});
		expect(noted.effect).toMatchObject({ type: "already-pending", fresh: true, handoff: "this" });
		expect(noted.state.request).toMatchObject({ fresh: true, handoff: "N" });
		// Fresh already: nothing changes.
		expect(
			run(bare.state, {
				type: "request",
				source: "command",
				handoff: undefined,
				streaming: false,
				fresh: true,
			}).state,
		).toBe(bare.state);
	});

	it("a request while idle waits for the next run", () => {
		const step = run(on, { type: "request", source: "command", handoff: undefined, streaming: false });
		expect(step.effect).toMatchObject({ type: "queued-next-run", request: { mode: "next-run" } });
	});

	it("off rejects requests, never warns and hands compaction back to Pi", () => {
		const off = run(on, { type: "toggle", enabled: false, generation: 2 }).state;
		expect(run(off, toolRequest).effect.type).toBe("rejected-off");
		expect(run(off, { type: "usage", remaining: 0, threshold: 10, reserve: 5 }).effect.type).toBe("none");
		expect(
			run(off, { type: "compaction", reason: "threshold", aborted: false, newWindowId: "w1" }).effect.type,
		).toBe("native-compaction");
	});

	it("toggling off drops the pending request", () => {
		const step = run(on, toolRequest, { type: "toggle", enabled: false, generation: 2 });
		expect(step.effect).toMatchObject({ type: "toggled", enabled: false, dropped: { handoff: "H" } });
		expect(step.state.request).toBeUndefined();
	});

	it("the boundary proposes the reset once and the confirmation opens the new window", () => {
		const proposed = run(on, toolRequest, { type: "boundary", aborted: false, newWindowId: "w1-a" });
		expect(proposed.effect).toMatchObject({
			type: "propose-reset",
			proposal: { windowId: "w1-a", resets: 1 },
		});
		expect(run(proposed.state, { type: "boundary", aborted: false, newWindowId: "w1-b" }).effect.type).toBe(
			"none",
		);
		const committed = run(proposed.state, { type: "confirm", found: { entryId: "e1", windowId: "w1-a" } });
		expect(committed.effect).toMatchObject({ type: "announce", committed: { entryId: "e1" } });
		expect(committed.state.window).toEqual({ id: "w1-a", resets: 1, warned: false });
	});

	it("a boundary that Pi did not commit is reported and the window stays", () => {
		const proposed = run(on, toolRequest, { type: "boundary", aborted: false, newWindowId: "w1-a" });
		const missing = run(proposed.state, { type: "confirm", found: undefined });
		expect(missing.effect.type).toBe("commit-missing");
		expect(missing.state.window).toBe(on.window);
	});

	it("foreignWindow: a compaction another extension answered opens a new, unwarned window with the restore's id", () => {
		const warned: ResetState = { ...on, window: { id: "w2-abcd", resets: 2, warned: true } };
		const proposed = run(warned, {
			type: "compaction",
			reason: "threshold",
			aborted: false,
			newWindowId: "w3-x",
		});
		const replaced = run(proposed.state, {
			type: "compacted",
			found: undefined,
			foreignEntryId: "1234abcd99",
		});
		expect(replaced.effect.type).toBe("commit-missing");
		expect(replaced.state.window).toEqual({ id: "x-1234abcd", resets: 2, warned: false });
		// Without a proposal of ours (off, or a compaction nobody asked pi-reset about): the same window.
		const off = run(warned, { type: "compacted", found: undefined, foreignEntryId: "1234abcd99" });
		expect(off.effect.type).toBe("none");
		expect(off.state.window).toEqual({ id: "x-1234abcd", resets: 2, warned: false });
	});

	it("idleResetMayCompact: not once another extension answered a compaction with its own summary (kept through a restore)", () => {
		expect(idleResetMayCompact(on)).toBe(true);
		const native = run(on, {
			type: "compacted",
			found: undefined,
			foreignEntryId: "aaaa1111",
			fromExtension: false,
		});
		expect(idleResetMayCompact(native.state)).toBe(true);
		const proposed = run(on, { type: "compaction", reason: "manual", aborted: false, newWindowId: "w1-x" });
		const answered = run(proposed.state, {
			type: "compacted",
			found: undefined,
			foreignEntryId: "bbbb2222",
			fromExtension: true,
		});
		expect(idleResetMayCompact(answered.state)).toBe(false);
		const restored = run(answered.state, {
			type: "restore",
			enabled: true,
			window: INITIAL_WINDOW,
			generation: 2,
			handoff: undefined,
		});
		expect(idleResetMayCompact(restored.state)).toBe(false);
	});

	it("othersAnswerCompactions: a restore that read another extension's answer from the session file keeps idle resets off Pi's compaction", () => {
		const restored = run(on, {
			type: "restore",
			enabled: true,
			window: INITIAL_WINDOW,
			generation: 2,
			handoff: undefined,
			othersAnswered: true,
		});
		expect(idleResetMayCompact(restored.state)).toBe(false);
		const again = run(restored.state, {
			type: "restore",
			enabled: true,
			window: INITIAL_WINDOW,
			generation: 3,
			handoff: undefined,
		});
		expect(idleResetMayCompact(again.state)).toBe(false);
	});

	it("ownWindow: a pi-reset compaction that is not the awaited one is the live window; the awaited proposal stays and commits later", () => {
		const first = run(on, { type: "compaction", reason: "manual", aborted: false, newWindowId: "w1-a" });
		const second = run(first.state, {
			type: "compaction",
			reason: "manual",
			aborted: false,
			newWindowId: "w1-b",
		});
		const older = run(second.state, {
			type: "compacted",
			found: { entryId: "e1", windowId: "w1-a" },
			foundResets: 1,
		});
		expect(older.effect.type).toBe("none");
		expect(older.state.window).toEqual({ id: "w1-a", resets: 1, warned: false });
		expect(older.state.proposal?.windowId).toBe("w1-b");
		const newer = run(older.state, {
			type: "compacted",
			found: { entryId: "e2", windowId: "w1-b" },
			foundResets: 1,
		});
		expect(newer.effect.type).toBe("announce");
		expect(newer.state.window.id).toBe("w1-b");
	});

	it("an aborted boundary cancels the pending reset", () => {
		const step = run(on, toolRequest, { type: "boundary", aborted: true, newWindowId: "w1" });
		expect(step.effect).toMatchObject({ type: "cancelled", why: "aborted" });
		expect(step.state.request).toBeUndefined();
	});

	it("an aborted settle cancels a pending boundary request; a normal settle defers it to the next run", () => {
		expect(run(on, toolRequest, { type: "settled", aborted: true }).effect).toMatchObject({
			type: "cancelled",
		});
		const deferred = run(on, toolRequest, { type: "settled", aborted: false });
		expect(deferred.effect).toMatchObject({ type: "queued-next-run", request: { mode: "next-run" } });
	});

	it("a request from an older generation is stale at the boundary", () => {
		const requested = run(on, toolRequest).state;
		const moved = { ...requested, generation: requested.generation + 1 };
		expect(run(moved, { type: "boundary", aborted: false, newWindowId: "w1" }).effect).toMatchObject({
			type: "cancelled",
			why: "stale",
		});
	});

	it("invalidation clears every outstanding attempt", () => {
		const step = run(on, toolRequest, { type: "invalidate", generation: 5 });
		expect(step.state).toMatchObject({
			request: undefined,
			nextRun: undefined,
			proposal: undefined,
			generation: 5,
		});
	});

	it("an idle request becomes a next run at run start and a kept-prompt compaction at its first boundary", () => {
		const step = run(
			on,
			{ type: "request", source: "command", handoff: "H", streaming: false },
			{ type: "run-start", baseLeafId: "leaf", newWindowId: "w1-n" },
		);
		expect(step.effect).toMatchObject({
			type: "project-next-run",
			nextRun: { baseLeafId: "leaf", windowId: "w1-n" },
		});
		const boundary = run(step.state, { type: "boundary", aborted: false, newWindowId: "ignored" });
		expect(boundary.effect).toMatchObject({
			type: "propose-next-run",
			proposal: { windowId: "w1-n", kind: "next-run" },
		});
	});

	it("a Pi compaction resets instantly, carrying a pending request's handoff; an aborted one is cancelled", () => {
		const step = run(on, toolRequest, {
			type: "compaction",
			reason: "overflow",
			aborted: false,
			newWindowId: "w1",
		});
		expect(step.effect).toMatchObject({
			type: "reset-compaction",
			reason: "overflow",
			request: { handoff: "H" },
		});
		expect(step.state.request).toBeUndefined();
		expect(
			run(on, { type: "compaction", reason: "manual", aborted: true, newWindowId: "w1" }).effect.type,
		).toBe("cancel-compaction");
		const done = run(step.state, { type: "compacted", found: { entryId: "c", windowId: "w1" } });
		expect(done.effect.type).toBe("announce");
	});

	it("the warning fires once per window at the threshold and is taken once for persistence", () => {
		const usage = (remaining: number): ResetEvent => ({
			type: "usage",
			remaining,
			threshold: 100,
			reserve: 40,
		});
		expect(run(on, usage(101)).effect.type).toBe("none");
		const warned = run(on, usage(100));
		expect(warned.effect).toMatchObject({ type: "warn", warning: { tokensLeft: 60 } });
		expect(run(warned.state, usage(10)).effect.type).toBe("none");
		const taken = run(warned.state, { type: "take-warning" });
		expect(taken.effect.type).toBe("persist-warning");
		expect(run(taken.state, { type: "take-warning" }).effect.type).toBe("none");
	});

	it("no warning while a reset is pending", () => {
		expect(
			run(on, toolRequest, { type: "usage", remaining: 0, threshold: 100, reserve: 40 }).effect.type,
		).toBe("none");
	});
	it("a failed compaction gives the folded request back", () => {
		const folded = run(on, toolRequest, {
			type: "compaction",
			reason: "threshold",
			aborted: false,
			newWindowId: "w1-c",
		});
		expect(folded.effect).toMatchObject({ type: "reset-compaction", request: { handoff: "H" } });
		expect(folded.state.request).toBeUndefined();
		// While the compaction runs, the folded request counts as pending.
		expect(run(folded.state, toolRequest).effect.type).toBe("already-pending");
		const failed = run(folded.state, { type: "compaction-failed" });
		expect(failed.effect).toMatchObject({ type: "requeued", request: { handoff: "H", mode: "boundary" } });
		expect(failed.state.request).toMatchObject({ handoff: "H", mode: "boundary" });
		expect(failed.state.proposal).toBeUndefined();
	});

	it("a failed compaction gives a folded next-run projection back", () => {
		const started = run(
			on,
			{ type: "request", source: "command", handoff: "N", streaming: false },
			{ type: "run-start", baseLeafId: "b", newWindowId: "w1-n" },
		);
		const failed = run(
			started.state,
			{ type: "compaction", reason: "overflow", aborted: false, newWindowId: "w1-c" },
			{ type: "compaction-failed" },
		);
		expect(failed.effect).toMatchObject({ type: "requeued", request: { handoff: "N" } });
		expect(failed.state.nextRun).toEqual(started.state.nextRun);
		expect(failed.state.request).toBeUndefined();
	});

	it("a failed compaction with nothing folded changes nothing else", () => {
		const failed = run(
			on,
			{ type: "compaction", reason: "manual", aborted: false, newWindowId: "w1-c" },
			{ type: "compaction-failed" },
		);
		expect(failed.effect.type).toBe("none");
		expect(failed.state.request).toBeUndefined();
		expect(failed.state.proposal).toBeUndefined();
	});
});
