/**
 * The checkpoint warning is true: it tells the model to call new_context only when the model has
 * that tool. Another extension may narrow the active tools (a read-only plan mode calling
 * setActiveTools); then the warning must not send the model to a tool it cannot call.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const nearlyFull = { totalTokens: 100_000, input: 100_000 };

describe("checkpoint warning truth", () => {
	it("is not given while another extension left new_context out of the active tools", async () => {
		const planMode: ExtensionFactory = (pi) => {
			pi.on("before_agent_start", () => {
				pi.setActiveTools(["read", "echo"]);
			});
		};
		harness = await startSession({ extensions: [planMode] });
		harness.script(reply("small"), reply("big"), reply("third"));
		await harness.prompt("one");
		harness.setUsage(nearlyFull);
		await harness.prompt("two");
		await harness.prompt("three");
		const third = allText(harness.requests[2]);
		expect(third).not.toContain("call new_context");
	});
});
