import type { Usage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { ARMING_SAFETY_TOKENS, createWindowMeter, warningHookWanted } from "../src/meter.js";

const total = (usage: Usage) => usage.totalTokens;

function answer(tokens: number): { usage: Usage } {
	return {
		usage: {
			input: tokens,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: tokens,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
	};
}

describe("window meter", () => {
	it("is unmeasured until the first answer, then usage plus what came after it", () => {
		const meter = createWindowMeter(total);
		meter.reset("g1:w0");
		meter.added(500);
		expect(meter.tokens()).toBeUndefined();
		meter.answered(answer(10_000), 50);
		expect(meter.tokens()).toBe(10_000);
		meter.added(3_000);
		meter.added(200);
		expect(meter.tokens()).toBe(13_200);
		meter.answered(answer(14_000), 50);
		expect(meter.tokens()).toBe(14_000);
	});

	it("reads an answer's usage when asked, so a rewrite after message_end is seen", () => {
		const meter = createWindowMeter(total);
		const message = answer(1_000);
		meter.answered(message, 10);
		Object.assign(message.usage, { totalTokens: 90_000 });
		expect(meter.tokens()).toBe(90_000);
	});

	it("an answer without usage is estimated on top of the previous figure", () => {
		const meter = createWindowMeter(total);
		meter.answered(answer(5_000), 10);
		meter.added(100);
		meter.answered(answer(0), 40);
		meter.added(7);
		expect(meter.tokens()).toBe(5_147);
	});

	it("reset forgets the window", () => {
		const meter = createWindowMeter(total);
		meter.answered(answer(5_000), 10);
		meter.syncedLeaf = "x";
		meter.reset("g1:w1-abcd");
		expect(meter.key).toBe("g1:w1-abcd");
		expect(meter.tokens()).toBeUndefined();
		expect(meter.syncedLeaf).toBeNull();
	});
});

describe("warningHookWanted", () => {
	const base = { contextWindow: 128_000, threshold: 28_672 };

	it("arms from the warning point minus the safety margin", () => {
		const armFrom = 128_000 - 28_672 - ARMING_SAFETY_TOKENS;
		expect(warningHookWanted({ ...base, tokens: armFrom - 1 })).toBe(false);
		expect(warningHookWanted({ ...base, tokens: armFrom })).toBe(true);
		expect(warningHookWanted({ ...base, tokens: 128_000 })).toBe(true);
	});

	it("arms while the window is unmeasured, never without a known context window", () => {
		expect(warningHookWanted({ ...base, tokens: undefined })).toBe(true);
		expect(warningHookWanted({ ...base, contextWindow: 0, tokens: undefined })).toBe(false);
	});
});
