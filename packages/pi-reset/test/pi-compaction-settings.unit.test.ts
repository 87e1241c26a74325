/**
 * Rule "Pi's compaction settings as Pi resolves them": the model's override, the ordinary setting,
 * then Pi's default, for the reserve and the keep-recent budget alike; a value Pi refuses is skipped.
 */
import { DEFAULT_COMPACTION_SETTINGS, type ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import {
	autoCompactionEnabled,
	compactionTokens,
	keepRecentTokens,
	reserveTokens,
} from "../src/adapters/pi-compaction-settings.js";
import { DEFAULT_RESERVE_TOKENS } from "../src/core/texts.js";

type Settings = ReturnType<ExtensionAPI["getSettings"]>;

/** What pi-reset reads of Pi: `getSettings()` only. */
function piWith(compaction: unknown): Pick<ExtensionAPI, "getSettings"> {
	return { getSettings: () => ({ compaction }) as Settings };
}

const model = { model: { provider: "p", id: "m" } } as Parameters<typeof reserveTokens>[1];
const noModel = { model: undefined };

describe("Pi's compaction settings (compactionTokens)", () => {
	it("the model's override wins, then the ordinary setting, then Pi's default", () => {
		const pi = piWith({
			reserveTokens: 1000,
			keepRecentTokens: 2000,
			modelOverrides: { "p/m": { reserveTokens: 10, keepRecentTokens: 20 } },
		});
		expect(reserveTokens(pi, model)).toBe(10);
		expect(keepRecentTokens(pi, model)).toBe(20);
		expect(reserveTokens(pi, noModel)).toBe(1000);
		expect(keepRecentTokens(pi, noModel)).toBe(2000);
		expect(reserveTokens(piWith(undefined), model)).toBe(DEFAULT_RESERVE_TOKENS);
		expect(keepRecentTokens(piWith({}), model)).toBe(DEFAULT_COMPACTION_SETTINGS.keepRecentTokens);
	});

	it("a value Pi refuses (not a non-negative safe integer) is skipped for the next layer", () => {
		const pi = piWith({
			reserveTokens: 1000,
			keepRecentTokens: -1,
			modelOverrides: { "p/m": { reserveTokens: "10", keepRecentTokens: 1.5 } },
		});
		expect(compactionTokens(pi, model, "reserveTokens")).toBe(1000);
		expect(compactionTokens(pi, model, "keepRecentTokens")).toBe(
			DEFAULT_COMPACTION_SETTINGS.keepRecentTokens,
		);
		expect(compactionTokens(piWith({ keepRecentTokens: 0 }), model, "keepRecentTokens")).toBe(0);
	});

	it("settings that cannot be read give Pi's defaults, never a throw", () => {
		const pi = {
			getSettings: () => {
				throw new Error("stale");
			},
		};
		expect(reserveTokens(pi, model)).toBe(DEFAULT_RESERVE_TOKENS);
		expect(keepRecentTokens(pi, model)).toBe(DEFAULT_COMPACTION_SETTINGS.keepRecentTokens);
		expect(autoCompactionEnabled(pi)).toBe(true);
		expect(autoCompactionEnabled(piWith({ enabled: false }))).toBe(false);
	});
});
