/** The masking plan's rules (core/masking.ts), each a named function. */
import { describe, expect, it } from "vitest";
import {
	advance,
	answered,
	describeCall,
	EMPTY_PLAN,
	LARGE_OUTPUT_CHARS,
	largeOutputHorizon,
	type MaskPlan,
	MIN_MASKED_CHARS,
	maskable,
	maskingHorizon,
	observe,
	type PlanMessage,
	seenByModel,
	stubText,
} from "../src/core/masking.js";
import { MAX_RECALL_CHARS } from "../src/core/recall.js";

const big = "x".repeat(MIN_MASKED_CHARS);
/** A high surrogate without its low half, or a low half without its high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const user = (text = big): PlanMessage => ({ role: "user", content: [{ type: "text", text }] });
const assistant = (): PlanMessage => ({ role: "assistant", content: [] });
const result = (id: string, text = big, isError = false): PlanMessage => ({
	role: "toolResult",
	toolCallId: id,
	isError,
	content: [{ type: "text", text }],
});

/** A window of `turns` tool turns: user, then (assistant, result) × turns. */
function window(turns: number): PlanMessage[] {
	const messages: PlanMessage[] = [user("go")];
	for (let t = 1; t <= turns; t++) messages.push(assistant(), result(`c${t}`));
	return messages;
}

const settings = { keepTurns: 3, stepTurns: 2, keepLargeTurns: 3 };

function plan(messages: readonly PlanMessage[], from: MaskPlan = EMPTY_PLAN) {
	return advance(observe(from, messages), settings);
}

describe("masking plan rules", () => {
	it("maskable: only successful tool results worth a stub; errors, user and assistant messages never", () => {
		expect(maskable(result("a"))).toBe(true);
		expect(maskable(result("a", "short"))).toBe(false);
		expect(maskable(result("a", big, true))).toBe(false);
		expect(maskable(user())).toBe(false);
		expect(maskable({ role: "assistant", content: [{ type: "text", text: big }] })).toBe(false);
		expect(maskable({ role: "custom", content: big })).toBe(false);
		expect(
			maskable({ role: "toolResult", toolCallId: "i", content: [{ type: "image", data: "", mimeType: "" }] }),
		).toBe(true);
	});

	it("maskingHorizon: moves only in whole steps, at least keepTurns back", () => {
		const horizons = Array.from({ length: 12 }, (_, turns) => maskingHorizon(turns, settings));
		expect(horizons).toEqual([0, 0, 0, 0, 0, 2, 2, 4, 4, 6, 6, 8]);
		for (const [turns, horizon] of horizons.entries())
			if (horizon > 0) expect(turns - horizon).toBeGreaterThanOrEqual(3);
		// Silly settings cannot mask what was not answered.
		expect(maskingHorizon(5, { keepTurns: 0, stepTurns: 0 })).toBe(4);
	});

	it("seenByModel: a result is seen once an assistant message follows it", () => {
		expect(seenByModel({ toolCallId: "a", index: 2, turn: 1 }, 1)).toBe(false);
		expect(seenByModel({ toolCallId: "a", index: 2, turn: 1 }, 2)).toBe(true);
	});

	it("answered: a failed or aborted answer is not a turn that saw the results before it", () => {
		expect(answered(assistant())).toBe(true);
		expect(answered({ role: "assistant", stopReason: "error", content: [] })).toBe(false);
		expect(answered({ role: "assistant", stopReason: "aborted", content: [] })).toBe(false);
		const failed = [
			user("go"),
			assistant(),
			result("c1"),
			{ role: "assistant", stopReason: "error" },
			user("again"),
		];
		const { plan: next } = advance(observe(EMPTY_PLAN, failed), {
			keepTurns: 1,
			stepTurns: 1,
			keepLargeTurns: 1,
		});
		expect(next.turns).toBe(1);
		expect(next.masked).toEqual([]);
	});

	it("nothing the model has not seen is masked: results after the newest assistant message are not even committed", () => {
		const messages = window(8);
		const { plan: next } = plan(messages);
		// The last result has no answer after it: it is left for the next request.
		expect(next.committed).toBe(messages.length - 1);
		for (const candidate of next.masked) expect(seenByModel(candidate, next.turns)).toBe(true);
		expect(next.masked.map((c) => c.toolCallId)).toEqual(["c1", "c2", "c3", "c4"]);
	});

	it("errors and the user's own messages are never masked, however old and large", () => {
		const messages: PlanMessage[] = [user(), assistant(), result("err", big, true)];
		for (let t = 0; t < 10; t++) messages.push(assistant(), result(`c${t}`));
		messages.push(assistant());
		const { plan: next } = plan(messages);
		const masked = new Set(next.masked.map((c) => c.index));
		expect(masked.has(0)).toBe(false);
		expect(masked.has(2)).toBe(false);
		expect(next.masked.length).toBeGreaterThan(0);
	});

	it("the plan is incremental: request by request it masks what one pass over the last request masks", () => {
		const full = window(20);
		let incremental: MaskPlan = EMPTY_PLAN;
		const steps: number[] = [];
		for (let length = 1; length <= full.length; length++) {
			const { plan: next, newlyMasked } = plan(full.slice(0, length), incremental);
			if (newlyMasked.length > 0) steps.push(length);
			incremental = next;
		}
		const once = plan(full).plan;
		expect(incremental.masked).toEqual(once.masked);
		expect(incremental.turns).toBe(once.turns);
		// Masks moved only at steps (every stepTurns assistant messages), never request by request.
		expect(steps.length).toBeLessThanOrEqual(Math.ceil(20 / settings.stepTurns));
	});

	it("largeOutputHorizon: large outputs are masked sooner, and only when the horizon moves", () => {
		const sized = { keepTurns: 5, stepTurns: 4, keepLargeTurns: 1 };
		expect(largeOutputHorizon(0, sized)).toBe(0);
		expect(largeOutputHorizon(4, sized)).toBe(8);
		// Never later than the horizon, never past keepTurns back; silly settings mask nothing unseen.
		expect(largeOutputHorizon(4, { ...sized, keepLargeTurns: 9 })).toBe(4);
		expect(largeOutputHorizon(4, { ...sized, keepLargeTurns: 0 })).toBe(8);
		const huge = "y".repeat(LARGE_OUTPUT_CHARS);
		const messages: PlanMessage[] = [user("go")];
		for (let t = 1; t <= 16; t++) messages.push(assistant(), result(`c${t}`, t % 2 === 0 ? huge : big));
		messages.push(assistant());
		let incremental: MaskPlan = EMPTY_PLAN;
		const stepsAt: number[] = [];
		for (let length = 1; length <= messages.length; length++) {
			const { plan: next, newlyMasked } = advance(observe(incremental, messages.slice(0, length)), sized);
			if (newlyMasked.length > 0) stepsAt.push(next.turns);
			for (const candidate of newlyMasked) expect(seenByModel(candidate, next.turns)).toBe(true);
			incremental = next;
		}
		// Steps only where the horizon moves (turns 9, 13, 17 with keep 5 and step 4).
		expect(stepsAt).toEqual([9, 13, 17]);
		// After 17 answers: small outputs up to turn 12 masked, large ones up to turn 16.
		const masked = new Set(incremental.masked.map((c) => c.toolCallId));
		expect([...masked].filter((id) => Number(id.slice(1)) % 2 === 1).sort()).toEqual(
			["c1", "c3", "c5", "c7", "c9", "c11"].sort(),
		);
		expect([...masked].filter((id) => Number(id.slice(1)) % 2 === 0).sort()).toEqual(
			["c2", "c4", "c6", "c8", "c10", "c12", "c14", "c16"].sort(),
		);
	});

	it("stubs are stable text: the same facts give the same line, with no clock or counter", () => {
		const facts = {
			call: describeCall("read", { path: "src/a.ts" }),
			chars: 6210,
			images: 0,
			ref: "ab12cd34",
		};
		expect(stubText(facts)).toBe(stubText({ ...facts }));
		expect(stubText(facts)).toBe(
			"[pi-reset] Old output hidden to save context: read src/a.ts (6210 characters). context_recall ref ab12cd34 returns it.",
		);
		expect(stubText(facts)).not.toMatch(/\n/);
	});

	it("stubs are true about what recall returns: an output longer than recall returns says it comes back cut", () => {
		const facts = { call: "fetch big", chars: MAX_RECALL_CHARS + 1, images: 0, ref: "r1" };
		expect(stubText(facts)).toContain(`returns its first ${MAX_RECALL_CHARS} characters`);
		expect(stubText({ ...facts, chars: MAX_RECALL_CHARS })).toContain("context_recall ref r1 returns it.");
	});

	it("describeCall names the path or command, else the arguments, on one bounded line", () => {
		expect(describeCall("bash", { command: "ls -la\n  src" })).toBe("bash ls -la src");
		expect(describeCall("grep", { pattern: "foo", path: "src" })).toBe("grep src pattern=foo");
		expect(describeCall("custom", { a: 1 })).toBe('custom {"a":1}');
		expect(describeCall("none", {})).toBe("none");
		expect(describeCall("bash", { command: "y".repeat(500) }).length).toBeLessThanOrEqual(125);
	});

	it("describeCall tells calls of one tool on one path apart: the other short arguments follow the main one", () => {
		expect(describeCall("read", { path: "src/a.ts", offset: 200, limit: 100 })).toBe(
			"read src/a.ts offset=200 limit=100",
		);
		expect(describeCall("grep", { pattern: "TODO", path: "src", ignoreCase: true })).toBe(
			"grep src pattern=TODO ignoreCase=true",
		);
		// Contents and long values are not names: they stay out of the stub.
		expect(describeCall("write", { path: "a.ts", content: "x".repeat(500) })).toBe("write a.ts");
		expect(describeCall("edit", { path: "a.ts", edits: [{ oldText: "a", newText: "b" }] })).toBe("edit a.ts");
		expect(describeCall("bash", { command: "ls", timeout: 30 })).toBe("bash ls timeout=30");
	});

	it("describeCall never splits a character: a cut inside an emoji leaves no lone surrogate in the stub", () => {
		// Every cut position falls once between the halves of an emoji (path, command, arguments as JSON).
		for (let pad = 100; pad < 124; pad++) {
			const long = `${"x".repeat(pad)}${"😀".repeat(40)}`;
			for (const args of [{ path: long }, { command: long }, { name: long }]) {
				const call = describeCall("tool", args);
				expect(call).not.toMatch(LONE_SURROGATE);
				expect(stubText({ call, chars: 900, images: 0, ref: "r1" })).not.toMatch(LONE_SURROGATE);
			}
		}
	});
});
