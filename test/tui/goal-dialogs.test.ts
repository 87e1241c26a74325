/**
 * The /goal manager's pause/resume and edit dialogs in the real interactive pi (tmux), and open
 * dialogs closing when the session is replaced. The faux model (scripts/abortable-goal.mjs) holds
 * each response until the test opens the gate or Pi aborts the request, so a goal stays active while
 * the test looks at the screen and a pause or a replacement never waits for the gate.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
	choose,
	command,
	fauxScript,
	fixtureExtension,
	footer,
	type PiTui,
	startPi,
	submit,
} from "./driver.js";

let tui: PiTui | undefined;
afterEach(() => {
	tui?.close();
	tui = undefined;
});

/** The pi-goal footer status (`goal <state> …`) at the start of the statuses line. */
const footerStatus = (state: string) => new RegExp(`^goal: ${state}`, "m");
const ACTIVE = footerStatus("active \\d+s · \\d+/25 responses");

/** The id in the menu title `Goal <id> · <state> · <objective>`. */
function menuGoalId(screen: string, state: string): string {
	const id = new RegExp(`Goal (g-[a-z0-9]+) · ${state} · `).exec(screen)?.[1];
	if (!id) throw new Error(`No menu title for a ${state} goal:\n${screen}`);
	return id;
}

/** A menu entry line (with or without the cursor). */
const entry = (label: string) => new RegExp(`^\\s*(?:→\\s*)?${label}\\s*$`, "m");

/** Starts pi with the abortable gated script and a goal that stays active. */
async function startWithGoal(extraExtensions: readonly string[] = []): Promise<PiTui> {
	const session = await startPi({ script: fauxScript("abortable-goal.mjs"), gated: true, extraExtensions });
	submit(session, "/goal Write the two parts");
	await session.waitForScreen(ACTIVE);
	return session;
}

describe("pause, resume and edit from the /goal menu in pi's TUI", () => {
	it("Pause from the menu pauses the goal; the menu then offers Resume, which continues with a new goal id and the model goes on", async () => {
		tui = await startWithGoal();
		const session = tui;

		submit(session, "/goal");
		const menu = await session.waitForScreen(/Full status/);
		const oldId = menuGoalId(menu, "active");
		expect(menu).toMatch(entry("Pause"));
		expect(menu).not.toMatch(/Resume/);
		await choose(session, /Pause/);
		const paused = await session.waitForScreen(footerStatus("paused"));
		expect(paused).toMatch(new RegExp(`Goal ${oldId} paused\\.`));

		submit(session, "/goal");
		const pausedMenu = await session.waitForScreen(/Full status/);
		expect(menuGoalId(pausedMenu, "paused")).toBe(oldId);
		expect(pausedMenu).toMatch(entry("Resume \\(new goal id\\)"));
		expect(pausedMenu).not.toMatch(entry("Pause"));
		await choose(session, /Resume \(new goal id\)/);
		const resumed = await session.waitForScreen(/Goal (g-[a-z0-9]+) resumed\./);
		const newId = /Goal (g-[a-z0-9]+) resumed\./.exec(resumed)?.[1];
		expect(newId).toBeDefined();
		expect(newId).not.toBe(oldId);
		await session.waitForScreen(ACTIVE);

		// Active again: the menu shows the new id and offers Pause.
		submit(session, "/goal");
		const activeMenu = await session.waitForScreen(/Full status/);
		expect(menuGoalId(activeMenu, "active")).toBe(newId);
		expect(activeMenu).toMatch(entry("Pause"));
		session.sendKeys("Escape");
		await session.waitForNoMatch(/Full status/);

		// The model continues: the resume's request answers, then the goal completes under the new id.
		session.openGate();
		const done = await session.waitForScreen(footerStatus("complete"), 20_000);
		expect(done).toMatch(/Part two after the resume\./);
		await command(session, "/goal status");
		await session.waitForScreen(new RegExp(`Goal ${newId}: complete`));
	});

	it("Edit the objective opens Pi's editor prefilled with the objective; submitting changes it under a new id, Escape changes nothing", async () => {
		tui = await startWithGoal();
		const session = tui;

		submit(session, "/goal");
		const menu = await session.waitForScreen(/Full status/);
		const oldId = menuGoalId(menu, "active");
		await choose(session, /Edit the objective/);
		const editor = await session.waitForScreen(new RegExp(`Edit the objective of goal ${oldId}`));
		expect(editor).toMatch(/Write the two parts/);
		session.sendKeys("End");
		session.type(" and the tests");
		await session.waitForScreen(/Write the two parts and the tests/);
		session.sendKeys("Enter"); // tui.select.confirm submits Pi's editor dialog
		const edited = await session.waitForScreen(/Goal edited; new goal id (g-[a-z0-9]+) \(active\)\./);
		const newId = /Goal edited; new goal id (g-[a-z0-9]+)/.exec(edited)?.[1];
		expect(newId).not.toBe(oldId);
		expect(footer(edited)).toMatch(ACTIVE);

		await command(session, "/goal status");
		const status = await session.waitForScreen(new RegExp(`Goal ${newId}: active`));
		expect(status).toMatch(/Objective: Write the two parts and the tests/);

		// Cancel: Escape closes the editor; the goal, its id and its objective stay as they were.
		submit(session, "/goal");
		await session.waitForScreen(/Full status/);
		await choose(session, /Edit the objective/);
		await session.waitForScreen(new RegExp(`Edit the objective of goal ${newId}`));
		session.sendKeys("End");
		session.type(" DISCARDED");
		await session.waitForScreen(/and the tests DISCARDED/);
		session.sendKeys("Escape");
		await session.waitForNoMatch(/Edit the objective of goal|DISCARDED/);
		// The menu's title names the goal: same id, same objective.
		submit(session, "/goal");
		const after = await session.waitForScreen(/Full status/);
		expect(menuGoalId(after, "active")).toBe(newId);
		expect(after).toMatch(new RegExp(`Goal ${newId} · active · Write the two parts and the tests\\s*$`, "m"));
		expect(footer(after)).toMatch(ACTIVE);
		session.sendKeys("Escape");
		await session.waitForNoMatch(/Full status/);
	});

	it("an objective edited in the dialog is taken literally: a leading --tokens is text, not an option", async () => {
		tui = await startWithGoal();
		const session = tui;

		submit(session, "/goal");
		await session.waitForScreen(/Full status/);
		await choose(session, /Edit the objective/);
		await session.waitForScreen(/Edit the objective of goal g-[a-z0-9]+/);
		session.sendKeys("End", "C-u");
		await session.waitForNoMatch(/Write the two parts/);
		session.type("--tokens 5k is a flag the CLI must accept");
		await session.waitForScreen(/--tokens 5k is a flag the CLI must accept/);
		session.sendKeys("Enter");
		const edited = await session.waitForScreen(/Goal edited; new goal id (g-[a-z0-9]+) \(active\)\./);
		const newId = /Goal edited; new goal id (g-[a-z0-9]+)/.exec(edited)?.[1];

		await command(session, "/goal status");
		const status = await session.waitForScreen(new RegExp(`Goal ${newId}: active[\\s\\S]*Tokens: `));
		expect(status).toMatch(/Objective: --tokens 5k is a flag the CLI must accept\n/);
		expect(status).toMatch(/Tokens: \S+\n/); // no budget (a budget reads "Tokens: 0 of 5k")
		expect(footer(status)).not.toMatch(/budget/);
	});

	it("Change the token budget from the menu sets, then removes, the goal's budget; a bad value says why and asks again", async () => {
		tui = await startWithGoal();
		const session = tui;

		submit(session, "/goal");
		await session.waitForScreen(/Full status/);
		await choose(session, /Change the token budget…/);
		await session.waitForScreen(/Token budget of goal g-[a-z0-9]+ \(now no token budget\)/);
		// A bad value says why and asks again in the same dialog.
		submit(session, "lots");
		await session.waitForScreen(/Invalid token budget "lots"[\s\S]{0,300}Token budget of goal g-[a-z0-9]+/);
		submit(session, "80k");
		const set = await session.waitForScreen(/Goal g-[a-z0-9]+ now has a budget of 80k tokens \(active\)\./);
		expect(footer(set)).toMatch(/^goal: active \d+s · \d+\/25 responses · budget [\d.k]+\/80k/m);

		submit(session, "/goal");
		await session.waitForScreen(/Full status/);
		await choose(session, /Change the token budget…/);
		await session.waitForScreen(/\(now a budget of 80k tokens\)/);
		submit(session, "off");
		const removed = await session.waitForScreen(/Goal g-[a-z0-9]+ now has no token budget \(active\)\./);
		expect(footer(removed)).not.toMatch(/budget/);
	});
});

describe("session replacement closes an open /goal dialog", () => {
	/** Opens the dialog, replaces the session (fixture), and checks nothing was done. */
	async function replaceWhileOpen(openDialog: (session: PiTui) => Promise<RegExp>): Promise<void> {
		tui = await startWithGoal([fixtureExtension("replace-session.ts")]);
		const session = tui;
		await command(session, "/replace-session-when replace-now");
		await session.waitForScreen(/Waiting for replace-now to replace the session\./);

		const dialog = await openDialog(session);
		writeFileSync(join(session.dirs.cwd, "replace-now"), "");
		// The dialog disappears and the footer shows no goal: a fresh session.
		const replaced = await session.waitForNoMatch(dialog, 20_000);
		expect(replaced).not.toMatch(/Goal cleared|paused\.|nothing was done/);
		// A new session: the old transcript (the fixture's notice) and the goal's footer status go.
		const fresh = await session.waitForNoMatch(
			/^goal: (?:active|paused|complete)|Waiting for replace-now/m,
			20_000,
		);
		// The statuses line is drawn (the new session's reset window), without a goal.
		expect(footer(fresh)).toMatch(/^(?!goal: ).*reset: w\d/m);

		// Answering afterwards does nothing: Enter lands in the (empty) main editor.
		session.sendKeys("Enter");
		await command(session, "/goal status");
		const status = await session.waitForScreen(/No goal\. Start one with \/goal <objective>/);
		expect(status).not.toMatch(/Goal cleared|Goal g-[a-z0-9]+ paused|nothing was done/);
		expect(footer(status)).not.toMatch(/^goal: (?:active|paused)/m);
	}

	it("the manager menu disappears when the session is replaced, and its choice is never acted on", async () => {
		await replaceWhileOpen(async (session) => {
			submit(session, "/goal");
			const menu = await session.waitForScreen(/Full status/);
			expect(menu).toMatch(/→\s*Pause/);
			return /Full status/;
		});
	});

	it("the clear confirmation disappears when the session is replaced, and nothing is cleared", async () => {
		await replaceWhileOpen(async (session) => {
			submit(session, "/goal");
			await session.waitForScreen(/Full status/);
			await choose(session, /Clear the goal/);
			await session.waitForScreen(/Clear goal g-[a-z0-9]+\?/);
			return /Clear goal g-[a-z0-9]+\?/;
		});
	});
});
