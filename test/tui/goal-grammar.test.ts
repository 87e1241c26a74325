/**
 * The /goal grammar in the real interactive pi (tmux): `/goal edit <text>` is ambiguous, so the TUI
 * asks whether to edit the current objective or start a new goal with the whole text; a subcommand
 * that takes no text, followed by text, starts a goal. The faux model (scripts/abortable-goal.mjs)
 * holds each response until the gate opens or Pi aborts the request.
 */
import { afterEach, describe, expect, it } from "vitest";
import { choose, command, fauxScript, type PiTui, startPi, submit } from "./driver.js";

let tui: PiTui | undefined;
afterEach(() => {
	tui?.close();
	tui = undefined;
});

const QUESTION = /\/goal edit: edit the current objective or start a new goal\?/;

/** Starts pi with a goal, then pauses it, so the dialog is answered with the model idle. */
async function pausedGoal(): Promise<PiTui> {
	const session = await startPi({ script: fauxScript("abortable-goal.mjs"), gated: true });
	submit(session, "/goal Write the two parts");
	await session.waitForScreen(/^goal: active/m);
	await command(session, "/goal pause");
	await session.waitForScreen(/^goal: paused/m);
	return session;
}

describe("/goal grammar in pi's TUI", () => {
	it("/goal edit <text> asks: Edit keeps the goal under a new id with the new objective; Start a new goal takes the whole text", async () => {
		tui = await pausedGoal();
		const session = tui;

		await command(session, "/goal edit the README first");
		const question = await session.waitForScreen(QUESTION);
		expect(question).toMatch(/Edit the objective of goal g-[a-z0-9]+ to: the README first/);
		expect(question).toMatch(/Start a new goal: edit the README first \(replaces the current goal\)/);
		await choose(session, /Edit the objective of goal/);
		await session.waitForScreen(/Goal edited; new goal id g-[a-z0-9]+ \(paused: you paused it\)\./);
		await command(session, "/goal status");
		await session.waitForScreen(/Objective: the README first\n/);

		await command(session, "/goal edit the README first");
		await session.waitForScreen(QUESTION);
		await choose(session, /Start a new goal: edit the README first/);
		await session.waitForScreen(/Goal g-[a-z0-9]+ started\./);
		await session.waitForScreen(/^goal: active/m);
		await command(session, "/goal pause");
		await session.waitForScreen(/^goal: paused/m);
		await command(session, "/goal status");
		await session.waitForScreen(/Objective: edit the README first\n/);
	});

	it("a subcommand that takes no text, followed by text, starts a goal with the whole text", async () => {
		tui = await startPi({ script: fauxScript("abortable-goal.mjs"), gated: true });
		const session = tui;
		await command(session, "/goal clear the build warnings in src/");
		await session.waitForScreen(/Goal g-[a-z0-9]+ started\./);
		await session.waitForScreen(/^goal: active/m);
		await command(session, "/goal pause");
		await session.waitForScreen(/^goal: paused/m);
		await command(session, "/goal status");
		await session.waitForScreen(/Objective: clear the build warnings in src\/\n/);
	});
});
