/** Where the checkpoint warning stands in later requests (core/warning-place.ts). */
import { describe, expect, it } from "vitest";
import {
	messageKey,
	type PlacedMessage,
	WARNED_AFTER_KEY,
	warningWhereSent,
} from "../src/core/warning-place.js";

const W = "pi-reset/warning";
const user: PlacedMessage = { role: "user", timestamp: 1 };
const call = (t: number): PlacedMessage => ({ role: "assistant", timestamp: t });
const result = (t: number, id: string): PlacedMessage => ({
	role: "toolResult",
	timestamp: t,
	toolCallId: id,
});
const warning = (after: PlacedMessage): PlacedMessage => ({
	role: "custom",
	customType: W,
	timestamp: 99,
	details: { [WARNED_AFTER_KEY]: messageKey(after) },
});

describe("warningWhereSent", () => {
	it("moves the warning back to where it was sent: after the message it followed, before the answer to it", () => {
		const before = result(3, "a");
		const messages = [
			user,
			call(2),
			before,
			call(4),
			result(5, "b"),
			result(5, "c"),
			warning(before),
			call(6),
		];
		expect(warningWhereSent(messages, W)).toBe(true);
		expect(messages.map((m) => m.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"custom",
			"assistant",
			"toolResult",
			"toolResult",
			"assistant",
		]);
	});

	it("leaves a warning that is where it was sent, or whose message is gone, and never splits a call from its result", () => {
		const before = result(3, "a");
		const sent = [user, call(2), before, warning(before)];
		expect(warningWhereSent(sent, W)).toBe(false);
		const gone = [user, call(4), result(5, "b"), warning(result(3, "zz"))];
		expect(warningWhereSent(gone, W)).toBe(false);
		// The message it followed is a tool call's answer without an assistant message after it.
		const odd = [user, call(2), before, result(3, "x"), warning(before)];
		expect(warningWhereSent(odd, W)).toBe(false);
		expect(odd.at(-1)?.role).toBe("custom");
	});

	it("results of one batch that share a time are told apart by their call id", () => {
		const first = result(3, "a");
		const second = result(3, "b");
		const messages = [user, call(2), first, second, call(4), warning(second)];
		expect(warningWhereSent(messages, W)).toBe(true);
		expect(messages[4]?.role).toBe("custom");
	});
});
