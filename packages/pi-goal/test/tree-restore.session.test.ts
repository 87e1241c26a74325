import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { goalExtension, goalTool, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
});

/** What `/goal status` prints in print mode. */
async function status(h: ScriptedSession): Promise<string> {
	const printed: string[] = [];
	const spy = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
		printed.push(args.join(" "));
	});
	try {
		await h.prompt("/goal status");
	} finally {
		spy.mockRestore();
	}
	return printed.join("\n");
}

describe("/tree restores the goal of the target branch", () => {
	it("navigating before the goal shows no goal, and back to its branch restores the waiting goal with its deadline", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [
				reply("hello back"),
				goalTool("goal_wait", { reason: "waiting for CI", resume_after_ms: 3_600_000 }),
			],
		});
		await harness.prompt("hello");
		const beforeGoal = harness.session.sessionManager.getLeafId();
		await harness.prompt("/goal Ship the release after CI passes");
		await settle(harness);
		const goalLeaf = harness.session.sessionManager.getLeafId();
		const waiting = await status(harness);
		expect(waiting).toMatch(/Goal g-[0-9a-f]+: waiting/);
		const deadline = /until (\S+)/.exec(waiting)?.[1];
		expect(deadline).toBeDefined();

		await harness.session.navigateTree(beforeGoal ?? "", { summarize: false });
		expect(await status(harness)).toContain("No goal.");

		await harness.session.navigateTree(goalLeaf ?? "", { summarize: false });
		const restored = await status(harness);
		expect(restored).toMatch(/Goal g-[0-9a-f]+: waiting/);
		// The wait deadline is restored, not extended.
		expect(/until (\S+)/.exec(restored)?.[1]).toBe(deadline);
		expect(harness.errors).toEqual([]);
	});
});
