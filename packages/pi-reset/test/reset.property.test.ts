/**
 * pi-reset's control reducer under random interleavings of requests (tool and command, streaming
 * and idle), runs, boundaries, confirmations, threshold/overflow/manual compactions (aborted or
 * failed), usage warnings, settles (aborted or not), toggles, invalidation and restores.
 *
 * Invariants: one proposal per boundary and never a second one while one is unconfirmed; never a
 * proposal for a stale or aborted request or while off; every proposal renders a boot text naming
 * its window; a commit only for the proposed window; an accepted request is never dropped without a
 * named effect (cancelled / toggled / commit-missing / a generation move).
 */

import { runs, SCHEDULES, Tally } from "@pi-lifecycle/seed-plan";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { nextRunBoot } from "../src/adapters/boundary.js";
import {
	initialState,
	type ResetEffect,
	type ResetEvent,
	type ResetRequest,
	type ResetState,
	reduceReset,
} from "../src/core/reducer.js";
import { bootText } from "../src/core/texts.js";

const tally = new Tally();
const seen = { proposals: 0, commits: 0, folded: 0, cancelled: 0, blockedSecondProposal: 0 };
afterAll(() => {
	tally.covered("reset.property", seen);
	tally.verify("reset.property", { resetReducer: SCHEDULES.resetReducer });
});

type Command =
	| {
			readonly t: "request";
			readonly source: "tool" | "command";
			readonly streaming: boolean;
			readonly handoff: string | undefined;
	  }
	| { readonly t: "run-start" }
	| { readonly t: "boundary"; readonly aborted: boolean }
	| { readonly t: "confirm"; readonly match: "proposed" | "other" | "none" }
	| {
			readonly t: "compaction";
			readonly reason: "manual" | "threshold" | "overflow";
			readonly aborted: boolean;
	  }
	| { readonly t: "compacted"; readonly match: "proposed" | "other" | "none" }
	| { readonly t: "compaction-failed" }
	| { readonly t: "usage"; readonly remaining: number }
	| { readonly t: "take-warning" }
	| { readonly t: "settled"; readonly aborted: boolean }
	| { readonly t: "toggle"; readonly enabled: boolean }
	| { readonly t: "invalidate" | "restore" | "reload" };

const command: fc.Arbitrary<Command> = fc.oneof(
	{
		weight: 4,
		arbitrary: fc.record({
			t: fc.constant("request" as const),
			source: fc.constantFrom("tool" as const, "command" as const),
			streaming: fc.boolean(),
			handoff: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
		}),
	},
	{ weight: 2, arbitrary: fc.constant({ t: "run-start" as const }) },
	{ weight: 4, arbitrary: fc.record({ t: fc.constant("boundary" as const), aborted: fc.boolean() }) },
	{
		weight: 3,
		arbitrary: fc.record({
			t: fc.constant("confirm" as const),
			match: fc.constantFrom("proposed" as const, "proposed" as const, "other" as const, "none" as const),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			t: fc.constant("compaction" as const),
			reason: fc.constantFrom("manual" as const, "threshold" as const, "overflow" as const),
			aborted: fc.boolean(),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			t: fc.constant("compacted" as const),
			match: fc.constantFrom("proposed" as const, "other" as const, "none" as const),
		}),
	},
	{ weight: 1, arbitrary: fc.constant({ t: "compaction-failed" as const }) },
	{
		weight: 1,
		arbitrary: fc.record({
			t: fc.constant("usage" as const),
			remaining: fc.integer({ min: 0, max: 60_000 }),
		}),
	},
	{ weight: 1, arbitrary: fc.constant({ t: "take-warning" as const }) },
	{ weight: 3, arbitrary: fc.record({ t: fc.constant("settled" as const), aborted: fc.boolean() }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant("toggle" as const), enabled: fc.boolean() }) },
	{
		weight: 1,
		arbitrary: fc.record({
			t: fc.constantFrom("invalidate" as const, "restore" as const, "reload" as const),
		}),
	},
);

/** Where the model last saw an accepted request. */
type Tracked = { readonly request: ResetRequest } | undefined;

function holds(state: ResetState, request: ResetRequest): boolean {
	return (
		state.request === request || state.nextRun?.request === request || sameRequest(state.request, request)
	);
}

function sameRequest(a: ResetRequest | undefined, b: ResetRequest): boolean {
	// `settled` turns a boundary request into a next-run request (a new object, same origin).
	return a !== undefined && a.source === b.source && a.handoff === b.handoff && a.generation === b.generation;
}

/** The boot text an effect's drafts open the new window with (as the adapters render it). */
function bootOf(effect: ResetEffect): { windowId: string; text: string } | undefined {
	if (effect.type === "propose-reset")
		return {
			windowId: effect.proposal.windowId,
			text: bootText({
				windowId: effect.proposal.windowId,
				cause: effect.request.source === "tool" ? "new_context" : "/reset",
				handoff: effect.request.handoff,
				userRequest: undefined,
				kept: "nothing",
			}),
		};
	if (effect.type === "propose-next-run")
		return { windowId: effect.proposal.windowId, text: nextRunBoot(effect.nextRun) };
	if (effect.type === "reset-compaction")
		return {
			windowId: effect.proposal.windowId,
			text: bootText({
				windowId: effect.proposal.windowId,
				cause: effect.request ? (effect.request.source === "tool" ? "new_context" : "/reset") : effect.reason,
				handoff: effect.request?.handoff,
				userRequest: undefined,
				kept: "nothing",
			}),
		};
	return undefined;
}

function runSchedule(commands: readonly Command[]): void {
	let state = initialState();
	let generation = 1;
	let minted = 0;
	let tracked: Tracked;
	state = reduceReset(state, {
		type: "restore",
		enabled: true,
		window: state.window,
		generation,
		handoff: undefined,
	}).state;

	for (const cmd of commands) {
		const before = state;
		let event: ResetEvent;
		switch (cmd.t) {
			case "request":
				event = { type: "request", source: cmd.source, handoff: cmd.handoff, streaming: cmd.streaming };
				break;
			case "run-start":
				event = { type: "run-start", baseLeafId: "leaf", newWindowId: `w-${++minted}` };
				break;
			case "boundary":
				event = { type: "boundary", aborted: cmd.aborted, newWindowId: `w-${++minted}` };
				break;
			case "confirm":
			case "compacted": {
				const proposal = before.proposal;
				// The adapters confirm boundary proposals and match compactions to compaction proposals.
				if (cmd.t === "confirm" && proposal?.kind === "compaction") continue;
				if (cmd.t === "compacted" && proposal?.kind !== "compaction") continue;
				const found =
					cmd.match === "none"
						? undefined
						: {
								entryId: `e${minted}`,
								windowId: cmd.match === "proposed" && proposal ? proposal.windowId : "w-other",
							};
				event = { type: cmd.t, found };
				break;
			}
			case "compaction":
				event = {
					type: "compaction",
					reason: cmd.reason,
					aborted: cmd.aborted,
					newWindowId: `w-${++minted}`,
				};
				break;
			case "compaction-failed":
				event = { type: "compaction-failed" };
				break;
			case "usage":
				event = { type: "usage", remaining: cmd.remaining, threshold: 28_672, reserve: 16_384 };
				break;
			case "take-warning":
				event = { type: "take-warning" };
				break;
			case "settled":
				event = { type: "settled", aborted: cmd.aborted };
				break;
			case "toggle":
				if (!cmd.enabled) generation++;
				event = { type: "toggle", enabled: cmd.enabled, generation };
				break;
			case "invalidate":
				event = { type: "invalidate", generation: ++generation };
				break;
			case "restore":
			case "reload":
				event = {
					type: "restore",
					enabled: before.enabled,
					window: before.window,
					generation: ++generation,
					handoff: before.handoff,
				};
				break;
		}
		const step = reduceReset(before, event);
		const effect = step.effect;
		state = step.state;

		// --- one proposal per boundary, never a second while one is unconfirmed
		const proposes = effect.type === "propose-reset" || effect.type === "propose-next-run";
		if (proposes) {
			seen.proposals++;
			expect(before.proposal, "a second proposal while one was unconfirmed").toBeUndefined();
			expect(before.enabled, "a proposal while pi-reset is off").toBe(true);
		}
		if (event.type === "boundary" && before.proposal) seen.blockedSecondProposal++;
		// --- never a proposal for a stale or aborted request
		if (effect.type === "propose-reset") {
			expect(effect.request.generation, "a stale request was proposed").toBe(before.generation);
			expect(event.type === "boundary" && event.aborted, "an aborted run's request was proposed").toBe(false);
		}
		if (effect.type === "propose-next-run") {
			expect(effect.nextRun.request.generation, "a stale next-run request was proposed").toBe(
				before.generation,
			);
		}
		// --- every reset proposal carries a boot text for exactly its window
		const boot = bootOf(effect);
		if (boot) {
			expect(boot.text.startsWith(`[pi-reset] Context window ${boot.windowId} starts here`)).toBe(true);
			expect(state.proposal?.windowId).toBe(boot.windowId);
		}
		if (effect.type === "reset-compaction") {
			seen.proposals++;
			if (effect.request) seen.folded++;
			expect(before.enabled).toBe(true);
		}
		// --- commits only for the proposed window, one reset per commit
		if (effect.type === "announce") {
			seen.commits++;
			expect(effect.committed.windowId).toBe(before.proposal?.windowId);
			expect(state.window.id).toBe(effect.committed.windowId);
			expect(state.window.resets).toBe(effect.proposal.resets);
			expect(state.window.warned).toBe(false);
		}
		// A pi-reset compaction that is not the proposed one (Pi ran two at once) is the live window
		// without a commit of the proposal (ownWindow); the proposal stays outstanding.
		const ownOther =
			event.type === "compacted" && event.found && event.found.windowId !== before.proposal?.windowId
				? event.found
				: undefined;
		if (ownOther) {
			expect(state.window.id).toBe(ownOther.windowId);
			expect(state.proposal).toBe(before.proposal);
		} else if (state.window.id !== before.window.id && event.type !== "restore") {
			expect(effect.type, "the window changed without a commit").toBe("announce");
		}

		// --- never a lost eligible intent
		if (effect.type === "arm-boundary" || effect.type === "queued-next-run") {
			tracked = { request: effect.request };
		}
		// A /reset note given while the reset is pending becomes its handoff (alreadyPending): the
		// same reset, now with the note.
		if (effect.type === "already-pending" && effect.handoff === "this" && state.request) {
			expect(before.request && sameRequest(before.request, tracked?.request ?? before.request)).toBe(true);
			tracked = { request: state.request };
		}
		if (tracked) {
			const request = tracked.request;
			const named =
				(effect.type === "cancelled" && sameRequest(effect.request, request)) ||
				// /reset off tells the user that no reset is pending any more (command.ts).
				(effect.type === "toggled" && !effect.enabled) ||
				effect.type === "commit-missing" ||
				event.type === "invalidate" ||
				event.type === "restore";
			if (effect.type === "cancelled") seen.cancelled++;
			const served =
				(effect.type === "propose-reset" && sameRequest(effect.request, request)) ||
				(effect.type === "propose-next-run" && sameRequest(effect.nextRun.request, request)) ||
				(effect.type === "reset-compaction" &&
					effect.request !== undefined &&
					sameRequest(effect.request, request));
			if (served || named) tracked = undefined;
			else
				expect(holds(state, request), `the request was dropped silently by ${JSON.stringify(event)}`).toBe(
					true,
				);
		}
	}
}

describe("pi-reset: control reducer under random interleavings", () => {
	it("one proposal per boundary, never stale/aborted/off, boot for every window, no silently lost request", () => {
		fc.assert(
			fc.property(fc.array(command, { minLength: 1, maxLength: 40, size: "max" }), (commands) => {
				runSchedule(commands);
				tally.hit("resetReducer");
			}),
			runs(10, SCHEDULES.resetReducer),
		);
	});
});

describe("pi-reset: a request folded into a Pi-started compaction", () => {
	// Regression test for a fixed defect (pi-reset, src/reducer.ts, reduceReset "compaction" + "compaction-failed"): a pending
	// /reset or new_context request is folded into the compaction proposal and cleared from the state;
	// when that compaction then fails (session_compact_failed), the proposal is dropped with effect
	// "none" and the request is gone: no reset happens, no notice is given, /reset status says
	// "No reset is pending". Expected: the request is restored (or a cancelled notice is emitted).
	it("a failed compaction gives the folded request back (never a lost eligible intent)", () => {
		let state = initialState();
		state = reduceReset(state, {
			type: "restore",
			enabled: true,
			window: state.window,
			generation: 1,
			handoff: undefined,
		}).state;
		const requested = reduceReset(state, {
			type: "request",
			source: "command",
			handoff: "keep going",
			streaming: true,
		});
		expect(requested.effect.type).toBe("arm-boundary");
		const folded = reduceReset(requested.state, {
			type: "compaction",
			reason: "threshold",
			aborted: false,
			newWindowId: "w1-x",
		});
		expect(folded.effect.type).toBe("reset-compaction");
		const failed = reduceReset(folded.state, { type: "compaction-failed" });
		const kept = failed.state.request ?? failed.state.nextRun?.request;
		const reported = failed.effect.type === "cancelled";
		expect(kept !== undefined || reported, "the folded request vanished without a notice").toBe(true);
	});
});

describe("pi-reset: a failed compaction never overwrites a newer request", () => {
	// Regression test for random seed 1398303631 (CI, reliability pass with a random seed): a request folded
	// into a manual compaction, /reset off, /reset on, a new new_context request, then the compaction fails.
	// The reducer revived the old, already-dropped request over the new one: the new request vanished silently.
	it("keeps the request made after the fold when the compaction fails (seed 1398303631)", () => {
		let state = reduceReset(initialState(), {
			type: "restore",
			enabled: true,
			window: initialState().window,
			generation: 1,
			handoff: undefined,
		}).state;
		state = reduceReset(state, {
			type: "request",
			source: "tool",
			handoff: undefined,
			streaming: false,
		}).state;
		state = reduceReset(state, {
			type: "compaction",
			reason: "manual",
			aborted: false,
			newWindowId: "w1-a",
		}).state;
		state = reduceReset(state, { type: "toggle", enabled: false, generation: 2 }).state;
		state = reduceReset(state, { type: "toggle", enabled: true, generation: 3 }).state;
		const newer = reduceReset(state, {
			type: "request",
			source: "tool",
			handoff: undefined,
			streaming: false,
		});
		expect(newer.effect.type).toBe("queued-next-run");
		const failed = reduceReset(newer.state, { type: "compaction-failed" });
		expect(failed.state.request).toEqual(newer.state.request);
		expect(failed.state.request?.generation).toBe(3);
		expect(failed.effect.type).toBe("none");
	});

	it("does not revive a request that /reset off dropped while the compaction ran", () => {
		let state = reduceReset(initialState(), {
			type: "restore",
			enabled: true,
			window: initialState().window,
			generation: 1,
			handoff: undefined,
		}).state;
		state = reduceReset(state, {
			type: "request",
			source: "command",
			handoff: undefined,
			streaming: true,
		}).state;
		state = reduceReset(state, {
			type: "compaction",
			reason: "threshold",
			aborted: false,
			newWindowId: "w1-b",
		}).state;
		state = reduceReset(state, { type: "toggle", enabled: false, generation: 2 }).state;
		state = reduceReset(state, { type: "toggle", enabled: true, generation: 3 }).state;
		const failed = reduceReset(state, { type: "compaction-failed" });
		expect(failed.state.request).toBeUndefined();
		expect(failed.effect.type).toBe("none");
	});
});
