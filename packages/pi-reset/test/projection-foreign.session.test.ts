/**
 * The first request after an idle `/reset` keeps what other extensions' `context` hooks add,
 * wherever they put it: a message inserted before the user's prompt (a memory or reminder
 * extension loaded before pi-reset) is not part of the old window and is kept too.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, outsideBoot, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("the first request after an idle /reset", () => {
	it("keeps a message another extension's context hook prepends, and still drops the old window", async () => {
		const prepender: ExtensionFactory = (pi) => {
			pi.on("context", (event) => ({
				messages: [
					{ role: "user", content: [{ type: "text", text: "PREPENDED-NOTE" }], timestamp: Date.now() },
					...event.messages,
				],
			}));
		};
		harness = await startSession({}, [prepender]);
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		expect(allText(harness.requests[0])).toContain("PREPENDED-NOTE");
		await harness.prompt("/reset HANDOFF-IDLE");
		harness.script(reply("done"), reply("later"));
		await harness.prompt("FRESH-TASK");
		const first = allText(harness.requests[1]);
		expect(first).toContain("HANDOFF-IDLE");
		expect(first).toContain("FRESH-TASK");
		expect(outsideBoot(first)).not.toContain("OLD-ANSWER");
		expect(outsideBoot(first)).not.toContain("earlier topic");
		expect(first).toContain("PREPENDED-NOTE");
	});
});
