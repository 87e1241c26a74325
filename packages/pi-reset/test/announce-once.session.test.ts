/**
 * The announcement on pi-lifecycle:reset:v1 comes exactly once per committed reset, whatever the
 * reset's kind: new_context twice in one batch beside a failing tool, an idle /reset whose run
 * calls new_context, a threshold reset.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { RESET_CHANNEL, type ResetAnnouncement } from "@pi-lifecycle/lifecycle-kit";
import { reply, type ScriptedSession, toolCall, toolCalls } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

function listener(seen: ResetAnnouncement[]): ExtensionFactory {
	return (pi) => {
		pi.events.on(RESET_CHANNEL, (data) => {
			seen.push(data as ResetAnnouncement);
		});
	};
}

function resets(h: ScriptedSession): string[] {
	return h.session.sessionManager
		.getBranch()
		.flatMap((entry) => (entry.type === "compaction" ? [entry.id] : []));
}

function results(h: ScriptedSession): string[] {
	return h.session.sessionManager
		.getBranch()
		.flatMap((entry) =>
			entry.type === "message" && entry.message.role === "toolResult"
				? [(entry.message.content[0] as { text: string }).text]
				: [],
		);
}

describe("announced exactly once per committed reset", () => {
	it("new_context twice in one batch beside a failing tool: one reset, one announcement", async () => {
		const seen: ResetAnnouncement[] = [];
		harness = await startSession({ extensions: [listener(seen)] });
		harness.script(
			toolCalls([
				{ name: "new_context", args: { handoff: "FIRST" } },
				{ name: "read", args: { path: "does-not-exist.txt" } },
				{ name: "new_context", args: { handoff: "SECOND" } },
			]),
			reply("fresh"),
		);
		await harness.prompt("go");
		expect(resets(harness)).toHaveLength(1);
		expect(seen.map((a) => a.entryId)).toEqual(resets(harness));
		expect(results(harness).some((text) => text.includes("already pending"))).toBe(true);
	});

	it("idle /reset, then new_context in that run: each committed reset announced once, in order", async () => {
		const seen: ResetAnnouncement[] = [];
		harness = await startSession({ extensions: [listener(seen)] });
		harness.script(reply("OLD"));
		await harness.prompt("before");
		await harness.prompt("/reset USER");
		harness.script(toolCall("new_context", { handoff: "MODEL" }), reply("next"));
		await harness.prompt("task");
		harness.script(reply("after"));
		await harness.prompt("more");
		// The model's new_context replaces the pending next-run commit: that run's window ends with its handoff.
		expect(resets(harness).length).toBeGreaterThanOrEqual(1);
		expect(seen.map((a) => a.entryId)).toEqual(resets(harness));
	});

	it("a threshold reset with a slow session_before_compact elsewhere: one announcement", async () => {
		const seen: ResetAnnouncement[] = [];
		const slow: ExtensionFactory = (pi) => {
			pi.on("session_before_compact", async () => {
				await new Promise((resolve) => setTimeout(resolve, 20));
				return undefined;
			});
		};
		harness = await startSession({
			settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
			extensions: [slow, listener(seen)],
		});
		harness.script(reply("one"), reply("two"), reply("three"));
		harness.setUsage((m) => (m.stopReason === "stop" ? { totalTokens: 120_000, input: 120_000 } : undefined));
		await harness.prompt("first");
		harness.setUsage(undefined);
		await harness.prompt("second");
		await harness.prompt("third");
		expect(resets(harness)).toHaveLength(1);
		expect(seen.map((a) => a.entryId)).toEqual(resets(harness));
	});
});
