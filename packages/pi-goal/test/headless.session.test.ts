/**
 * The headless contract on Pi's real session (print mode, a recording sink in place of the
 * process): the exit code per outcome, the summary written at shutdown, the in-process wait for a
 * near goal_wait deadline (fake time), and an SDK host (a sink that does not own the process)
 * left alone. The real CLI runs the same cases in test/cli/goal-headless.test.ts at the root.
 */
import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { HeadlessSink } from "../src/adapters/headless.js";
import { completeGoalAfterWork, fakeTime, goalExtension, goalTool } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.restoreAllMocks();
});

/** A sink that records what would reach the process; `sleep` moves fake time and fires its timers. */
function recorder(time = fakeTime(), owns = true) {
	const stdout: string[] = [];
	const codes: number[] = [];
	const slept: number[] = [];
	const fired = new Set<unknown>();
	const sink: HeadlessSink = {
		owns: () => owns,
		writeStdout: (text) => void stdout.push(text),
		setExitCode: (code) => void codes.push(code),
		async sleep(ms) {
			slept.push(ms);
			time.now += ms;
			for (const timer of time.live())
				if (!fired.has(timer) && timer.ms <= ms) {
					fired.add(timer);
					timer.fn();
				}
			await new Promise((resolve) => setImmediate(resolve));
		},
	};
	return { sink, stdout, codes, slept, time };
}

async function headlessGoal(
	rec: ReturnType<typeof recorder>,
	responses: Parameters<ScriptedSession["script"]>,
	prompt = "/goal Do both parts",
	settings: unknown = { noProgressTurns: null },
) {
	vi.spyOn(console, "error").mockImplementation(() => undefined);
	vi.spyOn(console, "log").mockImplementation(() => undefined);
	harness = await createScriptedSession({
		extensions: [
			goalExtension({ headless: rec.sink, now: () => rec.time.now, timers: rec.time.timers, settings }),
		],
		responses,
	});
	await harness.prompt(prompt);
	// Pi's CLI emits session_shutdown when it disposes the runtime (the harness does not): the
	// summary or the json line is written there.
	const runner = harness.session.extensionRunner as unknown as { emit(event: unknown): Promise<unknown> };
	await runner.emit({ type: "session_shutdown", reason: "quit" });
	await harness.dispose();
	harness = undefined;
}

describe("headless exit codes and stdout (scripted print-mode session)", () => {
	it("completed: exit code 0, and the summary is written at shutdown", async () => {
		const rec = recorder();
		await headlessGoal(rec, [reply("part one"), completeGoalAfterWork("Both parts done.")]);
		expect(rec.codes).toEqual([0]);
		expect(rec.stdout).toEqual(["Both parts done.\n"]);
	});

	it("blocked: exit code 3 and nothing on stdout", async () => {
		const rec = recorder();
		await headlessGoal(rec, [goalTool("goal_blocked", { reason: "No key.", evidence: "401" })]);
		expect(rec.codes).toEqual([3]);
		expect(rec.stdout).toEqual([]);
	});

	it("paused by the response limit: exit code 4", async () => {
		const rec = recorder();
		const replies = Array.from({ length: 5 }, (_, i) => reply(`step ${i}`));
		await headlessGoal(rec, replies, "/goal Do both parts", { automaticTurns: 2, noProgressTurns: null });
		expect(rec.codes).toEqual([4]);
	});

	it("a malformed /goal starts nothing: exit code 2", async () => {
		const rec = recorder();
		await headlessGoal(rec, [], "/goal --tokens nope Do it");
		expect(rec.codes).toEqual([2]);
	});

	it("a goal_wait deadline beyond the bound ends the run at once: exit code 7, no sleep", async () => {
		const rec = recorder();
		await headlessGoal(rec, [goalTool("goal_wait", { reason: "nightly", resume_after_ms: 3_600_000 })]);
		expect(rec.codes).toEqual([7]);
		expect(rec.slept).toEqual([]);
	});

	it("a goal_wait deadline within the bound is waited for in-process, then the goal goes on to complete", async () => {
		const rec = recorder();
		await headlessGoal(rec, [
			goalTool("goal_wait", { reason: "the deploy", resume_after_ms: 60_000 }),
			completeGoalAfterWork("Deployed and checked."),
		]);
		expect(rec.slept[0]).toBe(60_000);
		expect(rec.codes).toEqual([0]);
		expect(rec.stdout).toEqual(["Deployed and checked.\n"]);
	});

	it("an SDK host (the sink does not own the process) gets no exit code and no stdout", async () => {
		const rec = recorder(fakeTime(), false);
		await headlessGoal(rec, [goalTool("goal_blocked", { reason: "No key.", evidence: "401" })]);
		expect(rec.codes).toEqual([]);
		expect(rec.stdout).toEqual([]);
	});
});
