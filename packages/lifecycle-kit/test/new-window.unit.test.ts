import { EventEmitter } from "node:events";
import type { SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { NEW_WINDOW_CHANNEL, NewWindowCollector, offerNewWindowDrafts } from "../src/new-window.js";

/** A synchronous bus shaped like `pi.events`. */
function bus() {
	const emitter = new EventEmitter();
	return {
		emit: (channel: string, data: unknown) => {
			emitter.emit(channel, data);
		},
		on: (channel: string, handler: (data: unknown) => void) => {
			emitter.on(channel, handler);
			return () => emitter.off(channel, handler);
		},
	};
}

const contract: SessionBoundaryDraft = {
	type: "custom_message",
	customType: "c",
	content: "x",
	display: false,
};

describe("pi-lifecycle:new-window:v1", () => {
	it("uses the public channel name exactly", () => {
		expect(NEW_WINDOW_CHANNEL).toBe("pi-lifecycle:new-window:v1");
	});

	it("an offer nobody listens to is not accepted (the offerer keeps its own turn_end)", () => {
		expect(offerNewWindowDrafts(bus(), {}, "pi-goal", () => [contract])).toBe(false);
	});

	it("an offer is accepted only while a reset is pending", () => {
		const b = bus();
		const collector = new NewWindowCollector();
		let pending = false;
		collector.listen(b, () => pending);
		const session = {};
		expect(offerNewWindowDrafts(b, session, "pi-goal", () => [contract])).toBe(false);
		expect(collector.size).toBe(0);
		pending = true;
		expect(offerNewWindowDrafts(b, session, "pi-goal", () => [contract])).toBe(true);
		expect(collector.size).toBe(1);
	});

	it("drafts are produced when the reset is proposed, once, for the offer's session only", () => {
		const b = bus();
		const collector = new NewWindowCollector();
		collector.listen(b, () => true);
		const session = {};
		let calls = 0;
		offerNewWindowDrafts(b, session, "pi-goal", () => {
			calls++;
			return [contract];
		});
		offerNewWindowDrafts(b, {}, "other", () => [contract]);
		expect(calls).toBe(0);
		expect(collector.take(session)).toEqual([contract]);
		expect(calls).toBe(1);
		expect(collector.take(session)).toEqual([]);
		expect(calls).toBe(1);
	});

	it("one offer per owner (the latest), owners in offer order", () => {
		const b = bus();
		const collector = new NewWindowCollector();
		collector.listen(b, () => true);
		const session = {};
		const a: SessionBoundaryDraft = { type: "custom", customType: "a", data: 1 };
		const b2: SessionBoundaryDraft = { type: "custom", customType: "b", data: 2 };
		offerNewWindowDrafts(b, session, "one", () => [a]);
		offerNewWindowDrafts(b, session, "two", () => [b2]);
		offerNewWindowDrafts(b, session, "one", () => [a, a]);
		expect(collector.take(session)).toEqual([a, a, b2]);
	});

	it("a reset, an edit of the old window or a throwing offer is never proposed", () => {
		const b = bus();
		const collector = new NewWindowCollector();
		collector.listen(b, () => true);
		const session = {};
		offerNewWindowDrafts(b, session, "resets", () => [
			{ type: "compaction", summary: "s", firstKeptEntryId: null },
			{ type: "context_edit", targetId: "e1", replacement: "r" } as unknown as SessionBoundaryDraft,
			contract,
		]);
		offerNewWindowDrafts(b, session, "throws", () => {
			throw new Error("stale");
		});
		offerNewWindowDrafts(b, session, "half", () => [contract, null as unknown as SessionBoundaryDraft]);
		expect(collector.take(session)).toEqual([contract]);
	});

	it("malformed payloads are ignored without throwing, including a throwing Proxy", () => {
		const b = bus();
		const collector = new NewWindowCollector();
		collector.listen(b, () => true);
		const hostile = new Proxy(
			{},
			{
				get() {
					throw new Error("hostile");
				},
			},
		);
		for (const payload of [undefined, null, "x", { session: {}, owner: 1, drafts: () => [] }, hostile])
			expect(() => b.emit(NEW_WINDOW_CHANNEL, payload)).not.toThrow();
		expect(collector.size).toBe(0);
	});

	it("an emitter that throws is an offer not accepted", () => {
		const throwing = {
			emit: () => {
				throw new Error("stale runtime");
			},
		};
		expect(offerNewWindowDrafts(throwing, {}, "pi-goal", () => [contract])).toBe(false);
	});

	it("clear forgets the offers", () => {
		const b = bus();
		const collector = new NewWindowCollector();
		collector.listen(b, () => true);
		const session = {};
		offerNewWindowDrafts(b, session, "pi-goal", () => [contract]);
		collector.clear();
		expect(collector.take(session)).toEqual([]);
	});
});
