/**
 * A reset request folded into a Pi-started compaction is given back when that compaction fails
 * (here: another extension cancels it after pi-reset proposed the new window).
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { allText, outsideBoot, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
});

/** Loaded after pi-reset: cancels every compaction after pi-reset's hook proposed it. */
const canceller: ExtensionFactory = (pi) => {
	pi.on("session_before_compact", () => ({ cancel: true }));
};

describe("a failed compaction gives the folded request back", () => {
	it("a /reset folded into a cancelled /compact stays pending, is reported, and the next run starts fresh with its handoff", async () => {
		const stderr = vi.spyOn(console, "error").mockImplementation(() => {});
		harness = await startSession({
			settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
			extensions: [canceller],
		});
		harness.script(reply("first answer about OLD-TOPIC"), reply("in the new window"));
		await harness.prompt("please discuss OLD-TOPIC");
		await harness.prompt("/reset HANDOFF: keep the migration going");
		await expect(harness.session.compact()).rejects.toThrow(/cancelled/i);

		// The request was not lost silently: one notice, and it is still pending.
		const notices = stderr.mock.calls.filter((call) => String(call[0]).includes("is still pending"));
		expect(notices).toHaveLength(1);
		expect(harness.session.sessionManager.getBranch().some((entry) => entry.type === "compaction")).toBe(
			false,
		);

		await harness.prompt("next task");
		const next = allText(harness.requests[1]);
		expect(next).toContain("HANDOFF: keep the migration going");
		expect(next).toContain("next task");
		expect(outsideBoot(next)).not.toContain("OLD-TOPIC");
		expect(harness.errors).toEqual([]);
	});
});
