/**
 * Near-command refusals through `/goal` on Pi's real AgentSession (no UI: the refusal goes to
 * stderr): in every state class the refusal names a command that works there, and it never starts,
 * changes or stops a goal.
 */
import {
	createScriptedSession,
	deferred,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { toolsExtension } from "./fixtures.js";
import {
	completeGoal,
	completeGoalAfterWork,
	goalExtension,
	goalTool,
	lastGoal,
	lastState,
	settle,
} from "./helpers.js";

let h: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await h?.dispose();
	h = undefined;
});

async function session(extra: { tools?: boolean } = {}): Promise<ScriptedSession> {
	h = await createScriptedSession({
		extensions: [goalExtension(), ...(extra.tools ? [toolsExtension()] : [])],
		recorderPosition: "first",
	});
	return h;
}

/** Runs `/goal <text>` and returns the refusal; the goal state and the provider calls stay as they were. */
async function refused(s: ScriptedSession, text: string): Promise<string> {
	const errors: string[] = [];
	const spy = vi
		.spyOn(console, "error")
		.mockImplementation((line: unknown) => void errors.push(String(line)));
	const before = lastState(s);
	const calls = s.providerCalls;
	await s.session.prompt(`/goal ${text}`);
	spy.mockRestore();
	expect(lastState(s), text).toEqual(before);
	expect(s.providerCalls, text).toBe(calls);
	// The first line; the usage text follows it.
	const refusal = errors.find((line) => line.includes("is not a /goal command"))?.split("\n")[0] ?? "";
	expect(refusal, text).toContain(`/goal -- ${text}`);
	return refusal;
}

describe("near-command refusals fit the state", () => {
	it("no goal: budget 200k suggests /goal --tokens 200k <objective>, restart suggests starting one", async () => {
		const s = await session();
		expect(await refused(s, "budget 200k")).toContain("did you mean /goal --tokens 200k <objective>?");
		expect(await refused(s, "tokens 1.5m")).toContain("did you mean /goal --tokens 1.5m <objective>?");
		const restart = await refused(s, "restart");
		expect(restart).toContain("did you mean /goal <objective>");
		expect(restart).not.toContain("/goal resume");
		expect(await refused(s, "stop")).toContain("there is no goal");
		expect(lastGoal(s)).toEqual({});
	});

	it("a cleared goal: restart suggests starting one (resume cannot bring it back)", async () => {
		const s = await session();
		// Each goal_complete in a goal's first response without tool work is asked about once (issue 30).
		s.script(completeGoal(), completeGoal(), reply("Done."));
		await s.session.prompt("/goal Write the changelog");
		await settle(s);
		await s.session.prompt("/goal clear");
		const restart = await refused(s, "restart");
		expect(restart).toContain("did you mean /goal <objective>");
		expect(restart).not.toContain("/goal resume");
		expect(await refused(s, "budget 200k")).toContain("/goal --tokens 200k <objective>");
	});

	it("a complete goal: restart suggests /goal resume, budget suggests edit, and resume works", async () => {
		const s = await session();
		s.script(completeGoalAfterWork(), completeGoalAfterWork(), reply("Done."));
		await s.session.prompt("/goal Write the changelog");
		await settle(s);
		expect(await refused(s, "restart")).toContain("did you mean /goal resume?");
		expect(await refused(s, "budget 200k")).toContain("did you mean /goal edit --tokens 200k <objective>?");
		expect(await refused(s, "stop")).toContain("did you mean /goal clear");
		s.script(completeGoalAfterWork(), completeGoalAfterWork(), reply("Done again."));
		await s.session.prompt("/goal resume");
		await settle(s);
		// Pi asks once more after a batch of goal_complete beside other tool work.
		expect(s.providerCalls).toBe(6);
	});

	it("a paused goal: continue suggests /goal resume, stop suggests /goal clear", async () => {
		const s = await session();
		const gate = deferred();
		s.script(async () => {
			await gate.promise;
			return reply("Part one.");
		});
		const run = s.session.prompt("/goal Write the two parts");
		await vi.waitFor(() => expect(s.providerCalls).toBe(1));
		await s.session.prompt("/goal pause");
		gate.resolve();
		await run;
		await settle(s);
		expect(lastGoal(s)).toMatchObject({ status: "paused" });
		expect(await refused(s, "continue")).toContain("did you mean /goal resume?");
		const stop = await refused(s, "stop");
		expect(stop).toContain("did you mean /goal clear");
		expect(stop).not.toContain("/goal pause");
	});

	it("a budget-limited goal: restart suggests raising the budget (resume is refused)", async () => {
		const s = await session({ tools: true });
		s.setUsage({ totalTokens: 600 });
		s.script(toolCall("noop"), toolCall("noop"), reply("never"));
		await s.session.prompt("/goal --tokens 1k do it");
		await settle(s);
		expect(lastGoal(s)).toMatchObject({ status: "budget_limited" });
		expect(await refused(s, "restart")).toContain("did you mean /goal edit --tokens N <objective>");
		expect(await refused(s, "budget 200k")).toContain("did you mean /goal edit --tokens 200k <objective>?");
	});

	it("an active goal: restart suggests /goal status, stop suggests pause or clear", async () => {
		const s = await session();
		const gate = deferred();
		s.script(async () => {
			await gate.promise;
			return reply("Working.");
		});
		const run = s.session.prompt("/goal Write the two parts");
		await vi.waitFor(() => expect(s.providerCalls).toBe(1));
		expect(lastGoal(s)).toMatchObject({ status: "active" });
		expect(await refused(s, "restart")).toContain("did you mean /goal status");
		expect(await refused(s, "stop")).toContain("did you mean /goal pause (keeps the goal) or /goal clear");
		expect(await refused(s, "budget 200k")).toContain("did you mean /goal edit --tokens 200k <objective>?");
		await s.session.prompt("/goal clear");
		gate.resolve();
		await run;
		await settle(s);
	});

	it("a waiting goal: continue suggests /goal resume, which ends the wait", async () => {
		const s = await session();
		s.script(goalTool("goal_wait", { reason: "CI" }));
		await s.session.prompt("/goal land it");
		await settle(s);
		expect(lastGoal(s).wait).toMatchObject({ reason: "CI" });
		expect(await refused(s, "continue")).toContain("did you mean /goal resume (ends the wait)?");
		expect(await refused(s, "stop")).toContain("did you mean /goal pause (keeps the goal) or /goal clear");
	});
});
