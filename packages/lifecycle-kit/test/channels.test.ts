import { describe, expect, it } from "vitest";
import { isResetAnnouncement, RESET_CHANNEL, readResetAnnouncement } from "../src/channels.js";

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
