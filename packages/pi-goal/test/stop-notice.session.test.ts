/**
 * Visible pauses (issue 30): every pause and stop the goal comes to on its own leaves one line in
 * the TUI transcript (a notification, which Pi's TUI adds to the transcript) with its reason in
 * plain words and the next step; nothing of it reaches the model. The user's own pause adds no
 * second line (the command already answered).
 */
import {
	createDialogStub,
	createScriptedSession,
	type DialogStub,
	providerError,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { STATE_ENTRY } from "../src/core/types.js";
import { completeGoal, goalExtension, goalTool, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const QUOTA =
	"429 insufficient_quota: You exceeded your current quota, please check your plan and billing details.";

/** Starts `/goal <prompt>` in a TUI session and lets it run until it settles. */
async function tuiGoal(
	stub: DialogStub,
	prompt: string,
	responses: Parameters<ScriptedSession["script"]>,
	settings: unknown = { noProgressTurns: null },
): Promise<ScriptedSession> {
	harness = await createScriptedSession({
		ui: { context: stub.ui },
		extensions: [goalExtension({ settings })],
		responses,
	});
	await harness.session.prompt(prompt);
	await settle(harness);
	return harness;
}

/** The transcript lines pi-goal added about goal g-… (not the answers to the user's commands). */
const stopLines = (stub: DialogStub) =>
	stub.notices.filter(
		(notice) => /^Goal g-[0-9a-f]+ /.test(notice.message) && !/started/.test(notice.message),
	);

/** Whether any request the model received contains `text`. */
const modelSaw = (session: ScriptedSession, text: string) =>
	session.requests.some((request) => JSON.stringify(request.messages).includes(text));

const varied = (n: number) =>
	Array.from({ length: n }, (_, i) => reply(`Step ${i + 1}: wrote part ${i + 1}.`));

describe("visible pauses: one transcript line per stop, with the reason and the next step", () => {
	it("a safety pause (the response limit) leaves one warning line in the transcript, not sent to the model", async () => {
		const stub = createDialogStub();
		const s = await tuiGoal(stub, "/goal Write the parts", varied(6), {
			automaticTurns: 2,
			noProgressTurns: null,
		});
		const lines = stopLines(stub);
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatchObject({ type: "warning" });
		expect(lines[0]?.message).toMatch(
			/^Goal g-[0-9a-f]+ paused: it used its 2 responses\. Next: \/goal resume continues/,
		);
		s.script(reply("anything else?"));
		await s.session.prompt("hello");
		expect(modelSaw(s, "it used its 2 responses")).toBe(false);
	});

	it("a stuck pause leaves one line naming what repeated and what to do next", async () => {
		const stub = createDialogStub();
		const stuck = Array.from({ length: 10 }, () => toolCall("bash", { command: "cat missing-config.json" }));
		await tuiGoal(stub, "/goal Load the config", stuck, {});
		const lines = stopLines(stub);
		expect(lines).toHaveLength(1);
		expect(lines[0]).toMatchObject({ type: "warning" });
		expect(lines[0]?.message).toMatch(/^Goal g-[0-9a-f]+ paused: its work repeated itself\. /);
		expect(lines[0]?.message).toContain(
			"`cat missing-config.json` failed 4 times in a row with the same output",
		);
		expect(lines[0]?.message).toContain("/goal resume");
	});

	it("a no-progress pause leaves one line saying the reply repeated and what to do next", async () => {
		const stub = createDialogStub();
		const same = Array.from({ length: 6 }, () => reply("I am still thinking about the parser."));
		await tuiGoal(stub, "/goal Write the parser", same, {});
		const lines = stopLines(stub);
		expect(lines).toHaveLength(1);
		expect(lines[0]?.message).toContain("the same reply 3 times in a row");
		expect(lines[0]?.message).toContain("/goal resume");
	});

	it("a used-up token budget leaves one line saying so and how to raise it", async () => {
		const stub = createDialogStub();
		await tuiGoal(stub, "/goal --tokens 1k Write the parts", varied(4));
		const lines = stopLines(stub);
		expect(lines).toHaveLength(1);
		expect(lines[0]?.message).toMatch(/stopped: its token budget is used up\. Next: \/goal edit --tokens N/);
	});

	it("a blocker leaves one line with the next step", async () => {
		const stub = createDialogStub();
		await tuiGoal(stub, "/goal Write the parts", [
			goalTool("goal_blocked", { reason: "Need the key.", evidence: "401" }),
		]);
		expect(stopLines(stub).map((line) => line.message)).toEqual([
			expect.stringMatching(/is blocked\. Next: remove the blocker, then \/goal resume/),
		]);
	});

	it("a wait leaves one line saying what it waits for and how it wakes", async () => {
		const stub = createDialogStub();
		await tuiGoal(stub, "/goal Write the parts", [goalTool("goal_wait", { reason: "the CI run" })]);
		expect(stopLines(stub).map((line) => line.message)).toEqual([
			expect.stringMatching(/is waiting: the CI run\. Next: send a message or \/goal resume/),
		]);
	});

	it("a usage limit leaves one line in plain words (no status identifier)", async () => {
		const stub = createDialogStub();
		await tuiGoal(stub, "/goal Write the parts", [providerError(QUOTA)]);
		const lines = stopLines(stub).map((line) => line.message);
		expect(lines).toEqual([
			expect.stringMatching(/stopped: the provider's usage limit was reached\. Next: /),
		]);
		expect(lines.join("\n")).not.toMatch(/usage_limited|budget_limited/);
	});

	it("completion leaves one info line; the user's own pause adds none beyond the command's answer", async () => {
		const stub = createDialogStub();
		// The first goal_complete, before any tool work, is asked about once (completion guard).
		await tuiGoal(stub, "/goal Write the parts", [
			completeGoal("Both parts done."),
			completeGoal("Both parts done."),
		]);
		expect(stopLines(stub)).toEqual([
			{ message: expect.stringMatching(/is complete\. Next: start a new goal/), type: "info" },
		]);

		const paused = createDialogStub();
		const s = await tuiGoal(paused, "/goal Write the parts", [goalTool("goal_wait", { reason: "CI" })]);
		const before = paused.notices.length;
		await s.session.prompt("/goal pause");
		expect(paused.notices.slice(before).map((notice) => notice.message)).toEqual([
			expect.stringMatching(/^Goal g-[0-9a-f]+ paused\. \/goal resume continues it\.$/),
		]);
	});

	it("navigating the tree back to a branch where the goal had stopped announces nothing (no stop just happened)", async () => {
		const stub = createDialogStub();
		const s = await tuiGoal(stub, "/goal Write the parts", varied(6), {
			automaticTurns: 2,
			noProgressTurns: null,
		});
		expect(stopLines(stub)).toHaveLength(1);
		const pausedLeaf = s.session.sessionManager.getLeafId() ?? "";
		const working = s.customEntries(STATE_ENTRY)[0]?.id ?? "";
		await s.session.navigateTree(working, { summarize: false });
		await s.session.navigateTree(pausedLeaf, { summarize: false });
		expect(stopLines(stub)).toHaveLength(1);
	});
});
