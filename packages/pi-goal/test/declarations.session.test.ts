/**
 * Issue 20: the goal tools are declared on every request of every session, goal or no goal
 * (registered once with stable schemas, seed 002), so their declarations carry only what a model
 * needs to choose a tool. What used to be in them is where the model needs it, and each piece is
 * checked here: the contract (only while a goal exists) gives the exact goal id and when and how
 * to call each tool, including resume_after_ms; results and rejections say what happened.
 */
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { fakeTime, goalExtension, goalTool, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

type SystemMessage = { role: string; sections?: Record<string, string>; toolsAdded?: { name: string }[] };
const GOAL_TOOLS = ["goal_complete", "goal_blocked", "goal_wait"];

/** Tool result texts on the branch, in order. */
function toolResults(h: ScriptedSession): string[] {
	return h.session.sessionManager
		.getBranch()
		.flatMap((e) =>
			e.type === "message" && e.message.role === "toolResult"
				? [(e.message.content as { text?: string }[]).map((c) => c.text ?? "").join("")]
				: [],
		);
}

/** Every request text after the first, joined (what the model saw while a goal existed). */
function contractText(h: ScriptedSession): string {
	return JSON.stringify(h.requests.at(-1)?.messages);
}

describe("goal tool declarations (issue 20)", () => {
	it("are short, take goal_id, and add no system-prompt line", async () => {
		harness = await createScriptedSession({ extensions: [goalExtension()] });
		harness.script(reply("ok"));
		await harness.prompt("hello");
		const system = harness.requests[0]?.messages.filter(
			(m) => (m.role as string) === "system",
		) as unknown as SystemMessage[];
		const tools = system.flatMap((m) => m.toolsAdded ?? []).filter((t) => GOAL_TOOLS.includes(t.name));
		expect(tools.map((t) => t.name)).toEqual(GOAL_TOOLS);
		const bytes = tools.map((t) => JSON.stringify(t).length);
		expect(bytes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(700);
		for (const tool of tools)
			expect(JSON.parse(JSON.stringify(tool)).parameters.required).toContain("goal_id");
		const prompt = system.map((m) => Object.values(m.sections ?? {}).join("\n")).join("\n");
		for (const name of GOAL_TOOLS) expect(prompt).not.toContain(name);
	});

	it("the contract says, with the exact goal id, when and how to call goal_complete, goal_blocked and goal_wait", async () => {
		harness = await createScriptedSession({ extensions: [goalExtension()] });
		harness.script(reply("working"), reply("still working"));
		await harness.prompt("/goal make the tests pass");
		await settle(harness);
		const text = contractText(harness);
		const id = /Goal id: (g-[0-9a-f]+) \(active\)/.exec(text)?.[1] as string;
		expect(id).toBeTruthy();
		// goal_complete: only after verifying every requirement, with the evidence.
		expect(text).toContain(
			`check each against evidence (files, commands, tests); only then call goal_complete with goal_id \\"${id}\\" and that evidence.`,
		);
		// goal_blocked: a real, repeated blocker, with the reason and the evidence.
		expect(text).toContain(
			"Use goal_blocked (goal_id, reason, evidence) only when the same blocker stopped you",
		);
		// goal_wait: resume_after_ms, its minimum, and what omitting it means.
		expect(text).toContain(
			"then call goal_wait (goal_id, reason, resume_after_ms: at least 10000; omit it to wait for the user).",
		);
		expect(text).toContain(`Goal id: ${id} (active)`);
		expect(text).toContain("Only use this goal id.");
	});

	it("outside a goal, a goal tool is rejected with what the goal tools are for", async () => {
		harness = await createScriptedSession({ extensions: [goalExtension()] });
		harness.script(toolCall("goal_complete", { goal_id: "g-123", summary: "done" }), reply("ok"));
		await harness.prompt("finish");
		expect(toolResults(harness)[0]).toBe(
			"Rejected: there is no goal. Do not call goal tools unless a pi-goal contract is active.",
		);
	});

	it("a wrong goal id and an empty summary are rejected with what to do instead", async () => {
		harness = await createScriptedSession({ extensions: [goalExtension()] });
		harness.script(
			toolCall("goal_complete", { goal_id: "g-wrong", summary: "done" }),
			goalTool("goal_complete", { summary: "  " }),
			reply("ok"),
		);
		await harness.prompt("/goal make the tests pass");
		await settle(harness);
		const [wrongId, empty] = toolResults(harness);
		expect(wrongId).toContain('goal_id "g-wrong" is not the current goal');
		expect(empty).toBe("Rejected: the summary is empty. Give the evidence of completion.");
	});

	it("goal_wait's result says when the goal resumes: the 10 s minimum, or the user when no resume_after_ms is given", async () => {
		const time = fakeTime();
		harness = await createScriptedSession({
			extensions: [goalExtension({ now: () => time.now, timers: time.timers })],
		});
		harness.script(goalTool("goal_wait", { reason: "CI", resume_after_ms: 5 }));
		await harness.prompt("/goal land it");
		await settle(harness);
		expect(toolResults(harness)[0]).toBe(
			`Goal waiting until ${new Date(time.now + 10_000).toISOString()} (the shortest wait is 10 s).`,
		);
		await harness.dispose();
		harness = await createScriptedSession({ extensions: [goalExtension()] });
		harness.script(goalTool("goal_wait", { reason: "the user's answer" }));
		await harness.prompt("/goal land it");
		await settle(harness);
		expect(toolResults(harness)[0]).toBe(
			"Goal waiting until the user resumes it (no resume_after_ms was given).",
		);
	});
});
