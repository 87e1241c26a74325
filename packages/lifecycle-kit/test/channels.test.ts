import { describe, expect, it } from "vitest";
import { isResetAnnouncement, RESET_CHANNEL } from "../src/channels.js";

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
});
