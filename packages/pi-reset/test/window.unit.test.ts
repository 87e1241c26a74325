import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { bootText, bound } from "../src/core/texts.js";
import {
	erasedPrefixLength,
	othersAnsweredIn,
	resetDetails,
	restoreFromBranch,
	turnInProgress,
} from "../src/core/window.js";

let n = 0;
const base = () => ({ id: `e${++n}`, parentId: null, timestamp: new Date(0).toISOString() });
const msg = (role: string, extra: object = {}) =>
	({
		...base(),
		type: "message",
		message: { role, content: [], timestamp: 0, ...extra },
	}) as unknown as SessionEntry;
const compaction = (details?: unknown, firstKeptEntryId?: string) => {
	const b = base();
	return {
		...b,
		type: "compaction",
		summary: "",
		firstKeptEntryId: firstKeptEntryId ?? b.id,
		tokensBefore: 0,
		details,
	} as SessionEntry;
};
const custom = (customType: string, data: unknown) =>
	({ ...base(), type: "custom", customType, data }) as SessionEntry;
const warning = () =>
	({
		...base(),
		type: "custom_message",
		customType: "pi-reset/warning",
		content: "",
		display: false,
	}) as SessionEntry;

describe("othersAnsweredIn", () => {
	const hooked = (details?: unknown) => ({ ...compaction(details), fromHook: true }) as SessionEntry;
	it("othersAnsweredIn: only a compaction an extension made that is not pi-reset's", () => {
		expect(othersAnsweredIn([msg("user"), compaction()])).toBe(false);
		expect(othersAnsweredIn([msg("user"), hooked(resetDetails("w1-a", 1, "/reset"))])).toBe(false);
		expect(othersAnsweredIn([msg("user"), hooked(), msg("user")])).toBe(true);
	});
});

describe("restoreFromBranch", () => {
	it("reads the window, resets and warning of the current window and the last on/off", () => {
		const branch = [
			custom("pi-reset/state", { enabled: false }),
			warning(),
			compaction({ "pi-reset": { v: 1, windowId: "w1-x", resets: 1, cause: "tool" } }),
			custom("pi-reset/state", { enabled: true }),
			compaction({ "pi-reset": { v: 1, windowId: "w2-y", resets: 2, cause: "tool" } }),
			warning(),
		];
		expect(restoreFromBranch(branch)).toEqual({
			enabled: true,
			window: { id: "w2-y", resets: 2, warned: true },
			malformed: 0,
		});
	});

	it("an empty branch is the initial window with no switch recorded", () => {
		expect(restoreFromBranch([])).toEqual({
			enabled: undefined,
			window: { id: "w0", resets: 0, warned: false },
			malformed: 0,
		});
	});

	it("malformed pi-reset entries are counted and ignored: the switch and window fall back safely", () => {
		const branch = [
			custom("pi-reset/state", { enabled: false }),
			compaction({ "pi-reset": { v: 1, windowId: "w1-x", resets: 1, cause: "tool" } }),
			compaction({ "pi-reset": { windowId: "w".repeat(5000), resets: -5 } }),
			custom("pi-reset/state", { enabled: "yes" }),
			custom("pi-reset/state", []),
		];
		const restored = restoreFromBranch(branch);
		expect(restored.malformed).toBe(3);
		expect(restored.enabled).toBe(false);
		expect(restored.window.id).not.toContain("www");
		expect(restored.window.resets).toBe(1);
	});

	it("a warning before the newest compaction does not count", () => {
		const branch = [warning(), compaction({ "pi-reset": { v: 1, windowId: "w1", resets: 1, cause: "x" } })];
		expect(restoreFromBranch(branch).window.warned).toBe(false);
	});
});

describe("turnInProgress", () => {
	it("keeps from the assistant whose tool results end the window", () => {
		const assistant = msg("assistant");
		expect(turnInProgress([msg("user"), assistant, msg("toolResult"), msg("toolResult")])).toMatchObject({
			firstKeptEntryId: assistant.id,
			index: 1,
		});
	});

	it("keeps nothing when the window ends with an answer or a user message", () => {
		expect(turnInProgress([msg("user"), msg("assistant")])).toBeUndefined();
		expect(turnInProgress([msg("user")])).toBeUndefined();
	});

	it("skips an attempt omitted by a context edit (overflow recovery)", () => {
		const assistant = msg("assistant");
		const failed = msg("assistant", { stopReason: "error" });
		const edit = {
			...base(),
			type: "context_edit",
			targetId: failed.id,
			replacement: null,
		} as unknown as SessionEntry;
		expect(turnInProgress([msg("user"), assistant, msg("toolResult"), failed, edit])?.firstKeptEntryId).toBe(
			assistant.id,
		);
		expect(turnInProgress([msg("user"), failed, edit])).toBeUndefined();
	});
});

describe("erasedPrefixLength", () => {
	it("cuts everything before the newest compaction, except what it kept", () => {
		const kept = msg("assistant");
		const span = [
			msg("user"),
			msg("assistant"),
			kept,
			msg("toolResult"),
			compaction(undefined, kept.id),
			msg("user"),
		];
		expect(erasedPrefixLength(span)).toBe(2);
		const none = [msg("user"), msg("assistant"), compaction(), msg("user")];
		expect(erasedPrefixLength(none)).toBe(2);
		expect(erasedPrefixLength([msg("user")])).toBe(0);
	});
});

describe("texts", () => {
	it("bounds long text and says where the rest is", () => {
		expect(bound("abcdef", 3)).toBe("abc\n[… 3 more characters are in the session file]");
		expect(bound("abc", 3)).toBe("abc");
	});

	it("the boot text names the window, the handoff and the user's request", () => {
		const text = bootText({
			windowId: "w3",
			cause: "new_context",
			handoff: "H",
			userRequest: "R",
			kept: "nothing",
		});
		expect(text).toContain("w3");
		expect(text).toContain("Handoff from the previous window:\nH");
		expect(text).toContain("verbatim:\nR");
		expect(text).toContain("full history stays in the session file");
	});
});
