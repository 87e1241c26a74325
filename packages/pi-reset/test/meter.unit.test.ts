import type { Usage } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import {
	ARMING_SAFETY_TOKENS,
	armingPoint,
	createWindowMeter,
	nearArming,
	warningHookWanted,
	warningMargin,
} from "../src/core/meter.js";

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
		meter.reset(1);
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

	it("an answer's own estimate is computed only when its usage reads 0", () => {
		const meter = createWindowMeter(total);
		let estimated = 0;
		meter.answered(answer(5_000), () => ++estimated && 10);
		expect(meter.tokens()).toBe(5_000);
		meter.answered(answer(0), () => {
			estimated++;
			return 40;
		});
		expect(meter.tokens()).toBe(5_040);
		expect(meter.tokens()).toBe(5_040);
		expect(estimated).toBe(1);
	});

	it("reset forgets the window", () => {
		const meter = createWindowMeter(total);
		meter.answered(answer(5_000), 10);
		meter.syncedLeaf = "x";
		meter.reset(2);
		expect(meter.key).toBe(2);
		expect(meter.tokens()).toBeUndefined();
		expect(meter.syncedLeaf).toBeNull();
	});
});

describe("warningMargin (small windows scale, large windows keep the seed's rule)", () => {
	const reserve = 16_384;
	it("keeps reserve + 12288 on 128k and 1M windows", () => {
		expect(warningMargin(128_000, reserve, 12_288)).toBe(12_288);
		expect(warningMargin(1_000_000, reserve, 12_288)).toBe(12_288);
	});
	it("is a quarter of the usable window on a 32k window (warning at 75% of the usable room)", () => {
		expect(warningMargin(32_768, reserve, 12_288)).toBe(4_096);
		// Before: reserve + 12288 = 28672 left, i.e. a warning at 4096 tokens (12.5%) used.
		expect(32_768 - reserve - (warningMargin(32_768, reserve, 12_288) ?? 0)).toBe(12_288);
	});
	it("gives no warning on a 16k window, where Pi's default reserve leaves no usable room", () => {
		expect(warningMargin(16_384, reserve, 12_288)).toBeUndefined();
		expect(warningMargin(16_000, reserve, 12_288)).toBeUndefined();
		// With a smaller reserve the 16k window gets a quarter of what is left.
		expect(warningMargin(16_384, 4_096, 12_288)).toBe(3_072);
	});
	it("meets the seed's rule at a usable window of 4 × margin", () => {
		expect(warningMargin(reserve + 49_152, reserve, 12_288)).toBe(12_288);
		expect(warningMargin(reserve + 49_148, reserve, 12_288)).toBe(12_287);
		expect(warningMargin(0, reserve, 12_288)).toBeUndefined();
	});
});

describe("armingPoint and nearArming", () => {
	it("agree with warningHookWanted for every estimate", () => {
		for (const contextWindow of [0, 64_000, 128_000]) {
			const point = armingPoint(contextWindow, 28_672);
			for (const tokens of [undefined, 0, 50_000, 90_000, 91_136, 91_135, 128_000, 200_000]) {
				expect(nearArming(tokens, point), `${contextWindow}/${tokens}`).toBe(
					warningHookWanted({ contextWindow, threshold: 28_672, tokens }),
				);
			}
		}
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
