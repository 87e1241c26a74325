/**
 * Rule "a bounded text never splits a character": a masked result's stub names its call cut to a
 * bound; a call argument of emoji puts a surrogate pair at the cut. The model must receive
 * well-formed text (a lone surrogate makes some providers reject every later request).
 */
import { hasLoneSurrogate } from "@pi-lifecycle/lifecycle-kit";
import { reply, requestTexts, type ScriptedSession, toolCalls } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startSession } from "./helpers.js";
import { agentDirWith, emitTool, stubs } from "./masking-helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.unstubAllEnvs();
});

describe("text bounds", () => {
	it("a stub naming a call whose argument is emoji reaches the model without a lone surrogate", async () => {
		vi.stubEnv("PI_CODING_AGENT_DIR", agentDirWith({ maskAfterTurns: 1, maskStepTurns: 1 }));
		harness = await startSession({ extensions: [{ name: "emit", factory: emitTool }] });
		// `{"name":"x` and then emoji: the stub's bound on the call falls inside an emoji.
		const name = `x${"😀".repeat(100)}`;
		// Whole lines of the emit tool's output, so the output itself is well-formed.
		const size = `${name}: lorem ipsum dolor sit amet ${name.length}\n`.length * 4;
		harness.script(
			...Array.from({ length: 4 }, (_, t) =>
				toolCalls([{ name: "emit", args: { name, size }, id: `e-${t}` }]),
			),
			reply("done"),
		);
		await harness.prompt("work");
		expect(stubs(harness.requests.at(-1)).length).toBeGreaterThan(0);
		for (const request of harness.requests)
			expect(hasLoneSurrogate(requestTexts(request).join("\n"))).toBe(false);
	});
});
