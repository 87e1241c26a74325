/**
 * What a user sees in the real interactive pi (tmux): the footer during a goal, the /goal manager
 * menu, its confirmations and their identity re-check, and starting a goal from the menu.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { choose, fauxScript, footer, type PiTui, startPi, submit } from "./driver.js";

let tui: PiTui | undefined;
afterEach(() => {
	tui?.close();
	tui = undefined;
});

describe("the /goal manager menu in pi's TUI", () => {
	it("during a goal the footer shows the goal, reset and jscpd statuses; bare /goal opens the menu; a clear confirmed after the goal changed does nothing", async () => {
		tui = await startPi({ script: fauxScript("gated-goal.mjs"), gated: true });
		const session = tui;
		submit(session, "/goal --tokens 100k Write the two parts");
		const during = await session.waitForScreen(/goal: active \d+s · 0\/25 responses · budget [\d.k]+\/100k/);
		expect(footer(during)).toMatch(/jscpd/);
		expect(footer(during)).toMatch(/reset: w0/);

		submit(session, "/goal");
		const menu = await session.waitForScreen(/Full status/);
		expect(menu).toMatch(/Goal g-[a-z0-9]+ · active · Write the two parts/);
		expect(menu).toMatch(/Pause[\s\S]*Edit the objective[\s\S]*Clear the goal…[\s\S]*Settings…/);
		expect(menu).not.toMatch(/Resume/);

		await choose(session, /Clear the goal/);
		await session.waitForScreen(/Clear goal g-[a-z0-9]+\?/);
		// The model completes the goal while the confirmation is open.
		session.openGate();
		await session.waitForScreen(/goal: complete · budget/, 20_000);
		session.sendKeys("Enter"); // "Yes"
		const after = await session.waitForScreen(/The goal changed while the dialog was open; nothing was done/);
		expect(footer(after)).toMatch(/goal: complete · budget/);

		// Now clearing from a fresh menu works after the confirmation.
		submit(session, "/goal");
		await session.waitForScreen(/Goal g-[a-z0-9]+ · complete/);
		await choose(session, /Clear the goal/);
		await session.waitForScreen(/Clear goal g-[a-z0-9]+\?/);
		session.sendKeys("Enter");
		const cleared = await session.waitForScreen(/Goal cleared\./);
		expect(footer(cleared)).not.toMatch(/complete/);
	});

	it("starting a goal with a token budget from the menu asks for the objective and the budget (again after an invalid one); settings save from the menu", async () => {
		// The gate stays closed: the goal stays active.
		tui = await startPi({ script: fauxScript("gated-goal.mjs"), gated: true });
		const session = tui;
		submit(session, "/goal");
		const menu = await session.waitForScreen(/Goal · none/);
		expect(menu).not.toMatch(/Pause|Clear the goal/);
		await choose(session, /Start a goal with a token budget/);
		await session.waitForScreen(/Objective of the new goal/);
		submit(session, "Tidy the README");
		await session.waitForScreen(/Token budget/);
		// An invalid budget is explained and asked again (the dialog stays open).
		submit(session, "lots");
		await session.waitForScreen(/Invalid token budget "lots"[\s\S]{0,300}Token budget/);
		submit(session, "50k");
		const started = await session.waitForScreen(/Goal g-[a-z0-9]+ started\./);
		expect(footer(started)).toMatch(/goal: active \d+s · 0\/25 responses · budget [\d.k]+\/50k/);
		// The model request is held (gate closed): no event arrives, yet the footer's clock moves on.
		const later = await session.waitForScreen(/goal: active [3-9]s · 0\/25 responses/, 15_000);
		expect(footer(later)).toMatch(/goal: active [3-9]s/);

		// Settings: automaticTurns is saved to the global settings file and the footer follows.
		submit(session, "/goal");
		await choose(session, /Settings…/);
		await session.waitForScreen(/automaticTurns: 25 · responses the agent may give/);
		await choose(session, /automaticTurns: 25/);
		// Each setting is explained in one line, in the list and in the input's title.
		await session.waitForScreen(/automaticTurns: responses the agent may give for a goal/);
		submit(session, "40");
		const saved = await session.waitForScreen(/automaticTurns is now 40; saved to/);
		expect(footer(saved)).toMatch(/0\/40 responses/);
		const file = JSON.parse(
			readFileSync(join(session.dirs.agentDir, "pi-lifecycle", "pi-goal.json"), "utf8"),
		);
		expect(file).toEqual({ automaticTurns: 40 });
	});
});
