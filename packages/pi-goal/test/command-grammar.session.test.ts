/**
 * The `/goal` grammar has no traps (scripted sessions): a subcommand word that takes no text,
 * followed by text, begins an objective; `edit <text>` asks in the TUI and edits without a UI;
 * `/goal -- <objective>` takes the objective literally.
 */
import {
	createDialogStub,
	createScriptedSession,
	type DialogStub,
	deferred,
	reply,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { NO_TEXT_SUBCOMMANDS } from "../src/core/command-parse.js";
import { completeGoal, completeGoalAfterWork, goalExtension, lastGoal, settle } from "./helpers.js";

let h: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await h?.dispose();
	h = undefined;
});

async function session(stub?: DialogStub): Promise<ScriptedSession> {
	h = await createScriptedSession({
		...(stub ? { ui: { context: stub.ui } } : {}),
		extensions: [goalExtension()],
	});
	return h;
}

/** Starts a goal and lets the model complete it at once. */
async function completedGoal(s: ScriptedSession, objective: string): Promise<void> {
	s.script(completeGoal(), completeGoal(), reply("Done."));
	await s.session.prompt(`/goal ${objective}`);
	await settle(s);
	expect(lastGoal(s)).toMatchObject({ objective, status: "complete" });
}

/** A paused goal in a TUI session (Escape while the model answers). */
async function pausedGoal(stub: DialogStub): Promise<ScriptedSession> {
	const s = await session(stub);
	const gate = deferred();
	s.script(async () => {
		await gate.promise;
		return reply("Part one.");
	});
	await s.session.prompt("/goal Write the two parts");
	await s.abort();
	gate.resolve();
	await settle(s);
	expect(lastGoal(s)).toMatchObject({ objective: "Write the two parts", status: "paused" });
	return s;
}

describe("/goal grammar without traps", () => {
	it("an objective that starts with a subcommand word that takes no text starts a goal", async () => {
		const s = await session();
		for (const word of NO_TEXT_SUBCOMMANDS) await completedGoal(s, `${word} the build warnings in src/`);
		await completedGoal(s, "Clear the cache, then rebuild");
	});

	it("/goal -- <objective> starts a goal with the objective taken literally", async () => {
		const s = await session();
		s.script(completeGoal(), completeGoal(), reply("Done."));
		await s.session.prompt("/goal -- edit the README to name the new flag");
		await settle(s);
		expect(lastGoal(s)).toMatchObject({
			objective: "edit the README to name the new flag",
			status: "complete",
		});
	});

	it("without a UI, /goal edit <text> edits the current objective", async () => {
		const s = await session();
		await completedGoal(s, "Write the changelog");
		await s.session.prompt("/goal edit the changelog and the README");
		expect(lastGoal(s)).toMatchObject({ objective: "the changelog and the README" });
	});

	it("without a UI and without a goal, /goal edit <text> changes nothing and names /goal --", async () => {
		const errors: string[] = [];
		vi.spyOn(console, "error").mockImplementation((text: unknown) => void errors.push(String(text)));
		const s = await session();
		await s.session.prompt("/goal edit the README");
		expect(lastGoal(s)).toEqual({});
		expect(errors.join("\n")).toContain("/goal -- edit the README");
		expect(s.providerCalls).toBe(0);
	});

	it("in the TUI, /goal edit <text> asks: editing the objective keeps the goal", async () => {
		const stub = createDialogStub();
		const s = await pausedGoal(stub);
		const command = s.session.prompt("/goal edit the README first");
		const dialog = await stub.dialog(0);
		expect(dialog.kind).toBe("select");
		expect(dialog.options).toEqual([
			expect.stringMatching(/^Edit the objective of goal g-\w+ to: the README first$/),
			"Start a new goal: edit the README first (replaces the current goal)",
		]);
		dialog.answer(dialog.options?.[0]);
		await command;
		expect(lastGoal(s)).toMatchObject({ objective: "the README first", status: "paused" });
	});

	it("in the TUI, /goal edit <text> asks: starting a new goal takes the whole text", async () => {
		const stub = createDialogStub();
		const s = await pausedGoal(stub);
		s.script(completeGoalAfterWork(), reply("Done."));
		const command = s.session.prompt("/goal edit the README first");
		const dialog = await stub.dialog(0);
		dialog.answer(dialog.options?.[1]);
		await command;
		await settle(s);
		expect(lastGoal(s)).toMatchObject({ objective: "edit the README first", status: "complete" });
		expect(stub.opened).toBe(1); // the choice already said it replaces the goal: no second confirm
	});

	it("in the TUI, Escape on the /goal edit question changes nothing", async () => {
		const stub = createDialogStub();
		const s = await pausedGoal(stub);
		const before = lastGoal(s);
		const command = s.session.prompt("/goal edit the README first");
		(await stub.dialog(0)).answer(undefined);
		await command;
		expect(lastGoal(s)).toEqual(before);
		expect(stub.notices.at(-1)?.message).toBe("Nothing changed.");
	});

	it("/goal edit --tokens N <objective> is unambiguous and edits without asking", async () => {
		const stub = createDialogStub();
		const s = await pausedGoal(stub);
		await s.session.prompt("/goal edit --tokens 50k the README first");
		expect(stub.opened).toBe(0);
		expect(lastGoal(s)).toMatchObject({ objective: "the README first", tokenBudget: 50_000 });
	});

	it("in the TUI, an answer to the /goal edit question does nothing when the goal changed while it was open", async () => {
		const stub = createDialogStub();
		const s = await pausedGoal(stub);
		const gate = deferred();
		s.script(async () => {
			await gate.promise;
			return reply("Resumed part.");
		});
		const command = s.session.prompt("/goal edit the README first");
		const dialog = await stub.dialog(0);
		await s.session.prompt("/goal resume"); // a new goal id while the question is open
		const resumed = lastGoal(s);
		dialog.answer(dialog.options?.[0]); // "Edit the objective of goal <old id> to: …"
		await command;
		expect(lastGoal(s)).toMatchObject({ id: resumed.id, objective: "Write the two parts" });
		expect(stub.notices.at(-1)?.message).toMatch(/changed while the dialog was open; nothing was done/);
		await s.abort();
		gate.resolve();
		await settle(s);
	});
});
