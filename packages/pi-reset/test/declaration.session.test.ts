/**
 * Issue 20: `new_context`'s declaration goes with every request of every session, so it carries
 * only what a model needs to choose the tool. What used to be in it is where the model needs it,
 * and these tests prove each piece is there: the checkpoint warning asks for a handoff and says
 * what goes in it; the boot text of the new window says it starts with only the handoff and the
 * user's latest request, that the full history stays in the session file, and where the rest of
 * an over-long handoff is; the results say the reset follows the tool batch and one is pending.
 */
import { reply, type ScriptedSession, toolCall, toolCalls } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_HANDOFF_CHARS } from "../src/core/texts.js";
import { allText, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

type SystemMessage = { role: string; sections?: Record<string, string>; toolsAdded?: { name: string }[] };

/** The provider-visible declaration of new_context and the system prompt of the first request. */
function declared(h: ScriptedSession): { declaration: string; systemPrompt: string } {
	const system = h.requests[0]?.messages.filter(
		(m) => (m.role as string) === "system",
	) as unknown as SystemMessage[];
	const tool = system.flatMap((m) => m.toolsAdded ?? []).find((t) => t.name === "new_context");
	return {
		declaration: JSON.stringify(tool),
		systemPrompt: system.map((m) => Object.values(m.sections ?? {}).join("\n")).join("\n"),
	};
}

describe("new_context declaration (issue 20)", () => {
	it("is short, keeps the optional string handoff, and adds no system-prompt line", async () => {
		harness = await startSession();
		harness.script(reply("ok"));
		await harness.prompt("hello");
		const { declaration, systemPrompt } = declared(harness);
		expect(declaration.length).toBeLessThanOrEqual(200);
		const parsed = JSON.parse(declaration);
		expect(parsed.parameters.properties.handoff.type).toBe("string");
		expect(parsed.parameters.required ?? []).not.toContain("handoff");
		expect(systemPrompt).not.toContain("new_context");
	});

	it("the checkpoint warning (when the window is nearly full) asks for new_context with a handoff and says what goes in it", async () => {
		harness = await startSession();
		harness.setUsage({ totalTokens: 100_000, input: 100_000 });
		harness.script(reply("big"), reply("warned"));
		await harness.prompt("one");
		await harness.prompt("two");
		const warned = allText(harness.requests[1]);
		expect(warned).toContain("call new_context with a handoff");
		for (const part of [
			"Goal: the task.",
			"Done: what is finished and how you verified it.",
			"Remaining: what is left.",
			"Next action: the exact next step.",
			"Files: the paths that matter.",
		])
			expect(warned).toContain(part);
	});

	it("the new window's boot text says it starts with only the handoff and the latest request, and where the history is", async () => {
		harness = await startSession();
		harness.script(toolCall("new_context", { handoff: "HANDOFF-NOTE" }), reply("fresh"));
		await harness.prompt("LATEST-REQUEST");
		const fresh = allText(harness.requests[1]);
		expect(fresh).toContain(
			"Earlier conversation is not in this window; the full history stays in the session file.",
		);
		expect(fresh).toContain("HANDOFF-NOTE");
		expect(fresh).toContain("LATEST-REQUEST");
	});

	it(`a handoff over ${MAX_HANDOFF_CHARS} characters is accepted and cut, and the boot text says where the rest is`, async () => {
		harness = await startSession();
		const long = `START${"h".repeat(MAX_HANDOFF_CHARS)}`;
		harness.script(toolCall("new_context", { handoff: long }), reply("fresh"));
		await harness.prompt("go");
		const fresh = allText(harness.requests[1]);
		expect(fresh).toContain("START");
		expect(fresh).toContain("more characters are in the tool call in the session file");
		expect(harness.errors).toEqual([]);
	});

	it("the results say the reset follows the tool batch, and a second call in the window is answered as already pending", async () => {
		harness = await startSession();
		harness.script(
			toolCalls([
				{ name: "new_context", args: { handoff: "one" } },
				{ name: "new_context", args: { handoff: "two" } },
			]),
			reply("fresh"),
		);
		await harness.prompt("go");
		const results = harness.session.sessionManager
			.getBranch()
			.flatMap((e) =>
				e.type === "message" && e.message.role === "toolResult" ? [JSON.stringify(e.message.content)] : [],
			);
		expect(results[0]).toContain("It happens after this tool batch");
		expect(results[1]).toContain("already pending; this call changed nothing");
	});
});
