import type { SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import {
	applyProposal,
	createBoundaryParticipant,
	isResetDraft,
	mergeBoundaryDrafts,
	WINDOW_KEY,
} from "../src/boundary.js";

const reset = (summary = "handoff"): SessionBoundaryDraft => ({
	type: "compaction",
	summary,
	firstKeptEntryId: null,
});
const message = (customType: string, closing = false): SessionBoundaryDraft => ({
	type: "custom_message",
	customType,
	content: customType,
	display: false,
	...(closing ? { details: { [WINDOW_KEY]: "closing" } } : {}),
});
const custom = (customType: string, closing = false): SessionBoundaryDraft => ({
	type: "custom",
	customType,
	...(closing ? { data: { [WINDOW_KEY]: "closing" } } : {}),
});
const edit: SessionBoundaryDraft = { type: "context_edit", targetId: "e1", replacement: null };

/** Readable names for assertions. */
function names(drafts: readonly SessionBoundaryDraft[]): string[] {
	return drafts.map((draft) =>
		draft.type === "compaction"
			? `reset:${draft.summary}`
			: draft.type === "context_edit"
				? "edit"
				: draft.customType,
	);
}

describe("isResetDraft", () => {
	it("only a retain-none compaction is a reset", () => {
		expect(isResetDraft(reset())).toBe(true);
		expect(isResetDraft({ type: "compaction", summary: "s", firstKeptEntryId: "e1" })).toBe(false);
		expect(isResetDraft(message("m"))).toBe(false);
	});
});

describe("mergeBoundaryDrafts rules", () => {
	it("additions without a reset are appended in order", () => {
		const merged = mergeBoundaryDrafts([message("a")], [custom("b"), message("c")]);
		expect(names(merged)).toEqual(["a", "b", "c"]);
	});

	it("a reset is inserted before the first proposed draft meant for the new window, so drafts that an earlier handler proposed for the next request (a goal continuation) survive the reset", () => {
		const merged = mergeBoundaryDrafts([message("goal-continue")], [reset(), message("reset-continue")]);
		expect(names(merged)).toEqual(["reset:handoff", "goal-continue", "reset-continue"]);
	});

	it("proposed drafts marked as belonging to the closing window stay before the reset", () => {
		const merged = mergeBoundaryDrafts(
			[message("goal-continue"), custom("goal-state", true), message("note", true), edit],
			[reset()],
		);
		expect(names(merged)).toEqual(["goal-state", "note", "edit", "reset:handoff", "goal-continue"]);
	});

	it("the owner's own drafts keep their side of its reset: those listed before it close the old window, those listed after it open the new one (after the drafts already proposed for it)", () => {
		const merged = mergeBoundaryDrafts(
			[message("goal-continue")],
			[custom("reset-state"), reset(), message("reset-continue")],
		);
		expect(names(merged)).toEqual(["reset-state", "reset:handoff", "goal-continue", "reset-continue"]);
	});

	it("if a reset is already proposed, a second one is dropped (one boundary, one new window) and the owner's other drafts go around the existing reset by the same rules (new-window drafts last)", () => {
		const merged = mergeBoundaryDrafts(
			[custom("first-state"), reset("first"), message("first-continue")],
			[custom("second-state"), reset("second"), message("second-continue")],
		);
		expect(names(merged)).toEqual([
			"first-state",
			"second-state",
			"reset:first",
			"first-continue",
			"second-continue",
		]);
		expect(merged.filter(isResetDraft)).toHaveLength(1);
	});

	it("an owner's drafts marked as belonging to the closing window go before the reset, wherever it is", () => {
		// A later owner without a reset adds a closing-window state entry after an existing reset.
		const afterExisting = mergeBoundaryDrafts(
			[reset(), message("reset-continue")],
			[message("goal-continue"), custom("goal-state", true)],
		);
		expect(names(afterExisting)).toEqual(["goal-state", "reset:handoff", "reset-continue", "goal-continue"]);
		// The owner of the reset lists a closing-window entry after its own reset.
		const afterOwn = mergeBoundaryDrafts([], [reset(), custom("late-state", true), message("continue")]);
		expect(names(afterOwn)).toEqual(["late-state", "reset:handoff", "continue"]);
	});

	it("an owner listing two resets gets one", () => {
		const merged = mergeBoundaryDrafts([], [reset("one"), reset("two"), message("continue")]);
		expect(names(merged)).toEqual(["reset:one", "continue"]);
	});

	it("the reset lands before the continuation whichever handler ran first", () => {
		const continuation = [message("goal-continue")];
		const resetDrafts = [reset(), message("reset-continue")];
		const goalFirst = mergeBoundaryDrafts(mergeBoundaryDrafts([], continuation), resetDrafts);
		const resetFirst = mergeBoundaryDrafts(mergeBoundaryDrafts([], resetDrafts), continuation);
		for (const merged of [goalFirst, resetFirst]) {
			expect(names(merged)[0]).toBe("reset:handoff");
			expect(names(merged)).toContain("goal-continue");
		}
	});

	it("merging is pure: inputs are not modified", () => {
		const proposed = Object.freeze([message("a")]);
		const additions = Object.freeze([reset(), message("b")]);
		const merged = mergeBoundaryDrafts(proposed, additions);
		expect(names(proposed)).toEqual(["a"]);
		expect(merged).not.toBe(proposed);
	});
});

describe("applyProposal", () => {
	const state = (entries: SessionBoundaryDraft[] = [], cont = false) => ({ entries, continue: cont });

	it("no proposal, or an empty one, leaves the boundary alone", () => {
		expect(applyProposal(state(), undefined)).toBeUndefined();
		expect(applyProposal(state(), {})).toBeUndefined();
		expect(applyProposal(state(), { drafts: [], continue: false })).toBeUndefined();
	});

	it("continue alone keeps the proposed entries", () => {
		const entries = [message("a")];
		expect(applyProposal(state(entries), { continue: true })).toEqual({ entries, continue: true });
	});

	it("continue is an OR across owners: a proposal never withdraws another owner's continue", () => {
		expect(applyProposal(state([], true), { drafts: [message("x")], continue: false })?.continue).toBe(true);
		expect(applyProposal(state([], true), { drafts: [message("x")] })?.continue).toBe(true);
		expect(applyProposal(state([], false), { drafts: [message("x")] })?.continue).toBe(false);
		expect(applyProposal(state([], false), { continue: true })?.continue).toBe(true);
	});

	it("drafts are merged with the boundary rules", () => {
		const result = applyProposal(state([message("goal-continue")]), { drafts: [reset()], continue: true });
		expect(names(result?.entries ?? [])).toEqual(["reset:handoff", "goal-continue"]);
	});
});

describe("createBoundaryParticipant", () => {
	/** Counts subscriptions made through `on` (the real unsubscription is proven in boundary-orders.session.test.ts). */
	function counter() {
		const live = new Map<number, string>();
		let next = 0;
		const on = ((name: string) => {
			const id = next++;
			live.set(id, name);
			return () => live.delete(id);
		}) as unknown as Parameters<typeof createBoundaryParticipant>[0]["on"];
		return { live, pi: { on } };
	}

	it("arm is idempotent: arming twice subscribes once per event", () => {
		const { live, pi } = counter();
		const participant = createBoundaryParticipant(pi, {
			events: ["turn_end", "agent_before_settle"],
			propose: () => undefined,
		});
		expect(participant.armed).toBe(false);
		expect(live.size).toBe(0);
		participant.arm();
		participant.arm();
		expect(participant.armed).toBe(true);
		expect([...live.values()].sort()).toEqual(["agent_before_settle", "turn_end"]);
	});

	it("disarm is idempotent and removes every subscription", () => {
		const { live, pi } = counter();
		const participant = createBoundaryParticipant(pi, { events: ["turn_end"], propose: () => undefined });
		participant.disarm();
		participant.arm();
		participant.disarm();
		participant.disarm();
		expect(participant.armed).toBe(false);
		expect(live.size).toBe(0);
		participant.arm();
		expect(live.size).toBe(1);
	});

	it("nothing is subscribed until armed", () => {
		const { live, pi } = counter();
		createBoundaryParticipant(pi, { events: ["turn_end", "agent_before_settle"], propose: () => undefined });
		expect(live.size).toBe(0);
	});
});
