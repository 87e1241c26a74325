/**
 * `/reset off` while a boundary reset is proposed but not yet confirmed: if Pi already committed
 * it, the reset is confirmed and announced on `pi-lifecycle:reset:v1` before off clears the state.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { RESET_CHANNEL, type ResetAnnouncement } from "@pi-lifecycle/lifecycle-kit";
import { deferred, reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("/reset off with a committed, unconfirmed boundary reset", () => {
	it("a boundary reset Pi committed before /reset off is confirmed and announced exactly once", async () => {
		const announced: string[] = [];
		const paused = deferred<void>();
		const resume = deferred<void>();
		// Loaded before pi-reset: its turn_start runs first, so the second turn stops right after Pi
		// committed the reset drafts of turn 1 and before pi-reset confirms them.
		const holder: ExtensionFactory = (pi) => {
			pi.events.on(RESET_CHANNEL, (payload) => {
				announced.push((payload as ResetAnnouncement).windowId);
			});
			pi.on("turn_start", async (event) => {
				if (event.turnIndex !== 1) return;
				paused.resolve();
				await resume.promise;
			});
		};
		harness = await startSession({}, [holder]);
		harness.script(toolCall("new_context", { handoff: "next step" }), reply("in the new window"));
		const run = harness.prompt("start");
		await paused.promise;
		const committed = harness.session.sessionManager
			.getBranch()
			.filter((entry) => entry.type === "compaction");
		expect(committed).toHaveLength(1);
		expect(announced).toEqual([]);

		await harness.prompt("/reset off");
		const details = committed[0]?.details as { "pi-reset"?: { windowId: string } } | undefined;
		const windowId = details?.["pi-reset"]?.windowId;
		expect(windowId).toBeTruthy();
		expect(announced).toEqual([windowId]);

		resume.resolve();
		await run;
		await harness.session.waitForIdle();
		expect(announced).toEqual([windowId]);
		expect(harness.errors).toEqual([]);
	});
});
