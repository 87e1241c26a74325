/**
 * A safety pause in the real interactive pi (tmux): it leaves one line in the transcript with the
 * reason in plain words and the next step, besides the footer (issue 30: before, only the footer
 * changed).
 */
import { afterEach, describe, expect, it } from "vitest";
import { fauxScript, footer, type PiTui, startPi, submit } from "./driver.js";

let tui: PiTui | undefined;
afterEach(() => {
	tui?.close();
	tui = undefined;
});

describe("goal stops in pi's TUI transcript", () => {
	it("a safety pause (the response limit) shows one transcript line with the reason and the next step", async () => {
		tui = await startPi({
			script: fauxScript("progress-goal.mjs"),
			agentFiles: { "pi-lifecycle/pi-goal.json": JSON.stringify({ automaticTurns: 2 }) },
		});
		submit(tui, "/goal Write the parts");
		const screen = await tui.waitForScreen(/paused: it used its 2 responses\. Next: \/goal resume/, 60_000);
		expect(screen.match(/paused: it used its 2 responses/g)).toHaveLength(1);
		expect(screen).toMatch(/Warning: Goal g-[a-z0-9]+ paused: it used its 2 responses/);
		expect(footer(screen)).toMatch(/goal: paused · limit 2\/2/);
	});

	it("a stuck pause shows one transcript line naming what repeated and the next step", async () => {
		tui = await startPi({ script: fauxScript("stuck-goal.mjs") });
		submit(tui, "/goal Load the config");
		const screen = await tui.waitForScreen(/failed 4 times in a row/, 60_000);
		expect(screen).toMatch(/Warning: Goal g-[a-z0-9]+ paused: its work repeated itself\./);
		expect(screen.match(/failed 4 times in a row/g)).toHaveLength(1);
		expect(footer(screen)).toMatch(/goal: paused · stuck/);
	});
});
