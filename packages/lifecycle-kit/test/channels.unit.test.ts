import { describe, expect, it, vi } from "vitest";
import {
	isResetAnnouncement,
	onResetAnnouncement,
	RESET_CHANNEL,
	readResetAnnouncement,
} from "../src/channels.js";

describe("pi-lifecycle:reset:v1", () => {
	it("uses the public channel name exactly", () => {
		expect(RESET_CHANNEL).toBe("pi-lifecycle:reset:v1");
	});

	it("accepts { session, windowId, entryId }", () => {
		expect(isResetAnnouncement({ session: {}, windowId: "w1", entryId: "e1" })).toBe(true);
	});

	it("rejects malformed payloads without throwing, including a throwing Proxy", () => {
		const hostile = new Proxy(
			{},
			{
				get() {
					throw new Error("hostile");
				},
			},
		);
		for (const payload of [
			undefined,
			null,
			"reset",
			{ session: null, windowId: "w", entryId: "e" },
			{ session: "s", windowId: "w", entryId: "e" },
			{ session: {}, windowId: 1, entryId: "e" },
			{ session: {}, windowId: "w" },
			hostile,
		]) {
			expect(isResetAnnouncement(payload)).toBe(false);
		}
	});

	// Reliability seed 20260812 (bus.property, sessionReset): a getter that answers a valid entryId
	// once and then throws or changes. Listeners must use one read, never the live payload.
	it("readResetAnnouncement reads each field once into a plain copy (a shifting getter cannot change it)", () => {
		const session = {};
		let reads = 0;
		const payload = {
			session,
			windowId: "w1",
			get entryId() {
				reads++;
				if (reads > 1) throw new Error("second read");
				return "e1";
			},
		};
		const read = readResetAnnouncement(payload);
		expect(read).toEqual({ session, windowId: "w1", entryId: "e1" });
		expect(read?.entryId).toBe("e1");
		expect(reads).toBe(1);
	});

	it("readResetAnnouncement returns undefined for malformed or hostile payloads", () => {
		const revocable = Proxy.revocable({}, {});
		revocable.revoke();
		for (const payload of [undefined, null, "x", { session: {}, windowId: 1, entryId: "e" }, revocable.proxy])
			expect(readResetAnnouncement(payload)).toBeUndefined();
	});
});

describe("onResetAnnouncement", () => {
	function bus() {
		const listeners: ((payload: unknown) => void)[] = [];
		return {
			on(channel: string, listener: (payload: unknown) => void) {
				expect(channel).toBe(RESET_CHANNEL);
				listeners.push(listener);
				return () => void listeners.splice(listeners.indexOf(listener), 1);
			},
			emit: (payload: unknown) => {
				for (const listener of listeners) listener(payload);
			},
		};
	}

	it("hands over announcements of the current session only, read once", () => {
		const events = bus();
		const session = {};
		let current: object | undefined;
		const seen: string[] = [];
		const off = onResetAnnouncement(
			events as never,
			"demo",
			() => current,
			(a) => void seen.push(a.entryId),
		);
		events.emit({ session, windowId: "w1", entryId: "before-bind" });
		current = session;
		events.emit({ session: {}, windowId: "w1", entryId: "other-session" });
		events.emit({ session, windowId: "w1", entryId: "e1" });
		events.emit({ session, windowId: 1, entryId: "malformed" });
		off();
		events.emit({ session, windowId: "w2", entryId: "after-unsubscribe" });
		expect(seen).toEqual(["e1"]);
	});

	it("a stale context is ignored and a listener error never reaches the emitter", () => {
		const events = bus();
		const session = {};
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		try {
			onResetAnnouncement(
				events as never,
				"demo",
				() => {
					throw new Error("stale ctx");
				},
				() => undefined,
			);
			onResetAnnouncement(
				events as never,
				"demo",
				() => session,
				() => {
					throw new Error("bug");
				},
			);
			expect(() => events.emit({ session, windowId: "w1", entryId: "e1" })).not.toThrow();
			expect(errors.mock.calls.map((call) => String(call[0]))).toEqual([
				"demo: handling a reset announcement failed (bug)",
			]);
		} finally {
			errors.mockRestore();
		}
	});
});
