import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { RESET_CHANNEL } from "@pi-lifecycle/lifecycle-kit";
import { reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** Records, at each `context` hook, how many reset announcements it had received by then. */
function observer(seen: number[]): ExtensionFactory {
	return (pi) => {
		let announced = 0;
		pi.events.on(RESET_CHANNEL, () => {
			announced++;
		});
		pi.on("context", () => {
			seen.push(announced);
		});
	};
}

describe("reset announcement timing", () => {
	it.each(["before", "after"] as const)(
		"the reset is announced before the next request's context hooks run, with the observer loaded %s pi-reset",
		async (position) => {
			const seen: number[] = [];
			harness =
				position === "before"
					? await startSession({}, [observer(seen)])
					: await startSession({ extensions: [observer(seen)] });
			harness.script(toolCall("new_context", { handoff: "next step" }), reply("in the new window"));
			await harness.prompt("start");
			// Request 1 (before the reset) saw no announcement; request 2 (the new window) saw it.
			expect(seen).toEqual([0, 1]);
			expect(harness.errors).toEqual([]);
		},
	);
});
