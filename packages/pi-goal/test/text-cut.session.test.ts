/**
 * Rule "a bounded text never splits a character": the completion guard quotes the model's open
 * items cut to a bound; an item of emoji puts a surrogate pair at the cut. The model must receive
 * well-formed text (a lone surrogate makes some providers reject every later request).
 */
import { hasLoneSurrogate } from "@pi-lifecycle/lifecycle-kit";
import {
	createScriptedSession,
	messageText,
	reply,
	type ScriptedSession,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { toolsExtension } from "./fixtures.js";
import { goalExtension, goalIdIn, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("text bounds", () => {
	it("an open item of emoji quoted by the completion guard reaches the model without a lone surrogate", async () => {
		// "x" and then emoji: every bound at an even length falls inside an emoji.
		const item = `x${"😀".repeat(200)}`;
		harness = await createScriptedSession({
			extensions: [toolsExtension(), goalExtension()],
			responses: [
				(context) =>
					toolCalls([
						{ name: "bash", args: { command: "true" } },
						{
							name: "goal_complete",
							args: { goal_id: goalIdIn(context.messages), summary: "Done.", open_items: [item] },
						},
					]) as never,
				reply("still working"),
			],
		});
		await harness.prompt("/goal tidy the emoji table");
		await settle(harness);
		const result = harness.requests[1]?.messages.at(-1);
		const text = result ? messageText(result) : "";
		expect(text).toContain("Not completed yet: open_items lists 1 open item(s)");
		expect(hasLoneSurrogate(text)).toBe(false);
	});
});
