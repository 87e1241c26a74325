import { describe, expect, it } from "vitest";
import { handOver, handOverKey, takeHandedOver } from "../src/adapters/walk-handover.js";

describe("a reload keeps the last walk (walk-handover.ts)", () => {
	it("only the same session, root and trust takes the walk, once; any other start empties the slot", () => {
		const walk = { files: new Map() };
		handOver(handOverKey("s1", "/p", false), walk);
		expect(takeHandedOver(handOverKey("s1", "/p", true))).toBeUndefined();
		expect(takeHandedOver(handOverKey("s1", "/p", false))).toBeUndefined();
		handOver(handOverKey("s1", "/p", false), walk);
		expect(takeHandedOver(handOverKey("s2", "/p", false))).toBeUndefined();
		handOver(handOverKey("s1", "/p", false), walk);
		expect(takeHandedOver(handOverKey("s1", "/p", false))).toBe(walk);
		expect(takeHandedOver(handOverKey("s1", "/p", false))).toBeUndefined();
	});
});
