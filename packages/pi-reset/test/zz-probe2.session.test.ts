import {
	providerError,
	reply,
	type ScriptedSession,
	toolCall,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startSession } from "./helpers.js";
import { agentDirWith, emitTool, resultTexts, stubs } from "./masking-helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.unstubAllEnvs();
});
describe("probe2", () => {
	it("P7 error turn", async () => {
		vi.stubEnv("PI_CODING_AGENT_DIR", agentDirWith({ maskAfterTurns: 1, maskStepTurns: 1 }));
		harness = await startSession({ extensions: [{ name: "emit", factory: emitTool }] });
		const h = harness;
		h.script(toolCall("emit", { name: "n0", size: 2000 }), providerError("boom"));
		await h.prompt("work");
		h.script(reply("ok"));
		await h.prompt("again");
		console.log(
			"P7",
			h.requests.length,
			h.requests.map((r) =>
				r.messages.map((m) => m.role + ((m as any).stopReason ? ":" + (m as any).stopReason : "")).join(","),
			),
			stubs(h.requests.at(-1)),
		);
		expect(stubs(h.requests.at(-1))).toEqual([]);
	});
});
