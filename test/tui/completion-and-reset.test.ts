/**
 * What a user sees in the real interactive pi (tmux): Tab completes every /goal and /reset
 * subcommand, `help` prints usage, and `/reset status` reports the window, the tokens left before
 * the checkpoint warning and the resets so far, before and after a reset.
 */
import { afterEach, describe, expect, it } from "vitest";
import { command, editorText, fauxScript, footer, type PiTui, startPi, submit } from "./driver.js";

let tui: PiTui | undefined;
afterEach(() => {
	tui?.close();
	tui = undefined;
});

/** The shortest prefix of each name that no other name shares. */
function uniquePrefixes(names: readonly string[]): Map<string, string> {
	const result = new Map<string, string>();
	for (const name of names) {
		let length = 1;
		while (names.some((other) => other !== name && other.startsWith(name.slice(0, length)))) length++;
		result.set(name, name.slice(0, length));
	}
	return result;
}

const GOAL_SUBCOMMANDS = ["status", "pause", "resume", "edit", "clear", "retry-usage-limits", "help"];
const RESET_SUBCOMMANDS = ["status", "on", "off", "help", "--fresh"];

describe("autocomplete, help and /reset status in pi's TUI", () => {
	it("every /goal and /reset subcommand completes with Tab; help prints usage; /reset status shows window, tokens left and resets", async () => {
		tui = await startPi({ script: fauxScript("reset.mjs") });
		const session = tui;
		for (const [name, list] of [
			["goal", GOAL_SUBCOMMANDS],
			["reset", RESET_SUBCOMMANDS],
		] as const) {
			for (const [sub, prefix] of uniquePrefixes(list)) {
				session.type(`/${name} ${prefix}`);
				// The completion list is open once the subcommand's name is listed under the editor.
				await session.waitForScreen(new RegExp(`^\\s*(→\\s*)?${sub}\\s`, "m"), 10_000);
				session.sendKeys("Tab");
				const screen = await session.waitForScreen(new RegExp(`^/${name} ${sub}\\s*$`, "m"), 10_000);
				expect(editorText(screen)).toBe(`/${name} ${sub}`);
				session.sendKeys("C-u");
				await session.waitForScreen(/^─{20,}\n\s*\n─{20,}$/m, 10_000);
			}
		}

		await command(session, "/goal help");
		const goalHelp = await session.waitForScreen(/\/goal retry-usage-limits/);
		expect(goalHelp).toMatch(/Usage:\n\s*\/goal <objective>/);
		await command(session, "/reset help");
		await session.waitForScreen(/\/reset status\s+window id, tokens left before the checkpoint warning/);

		await command(session, "/reset status");
		const before = await session.waitForScreen(/Resets so far: 0\./);
		expect(before).toMatch(/Window: w0\./);
		expect(before).toMatch(/Tokens left before the checkpoint warning: \d+\./);

		// The model ends its window with new_context; the footer and the status follow the reset.
		submit(session, "start the task");
		const reset = await session.waitForScreen(/Continuing in the fresh window\./, 20_000);
		expect(footer(reset)).toMatch(/reset: w1-[a-z0-9]+/);
		await command(session, "/reset status");
		const after = await session.waitForScreen(/Resets so far: 1\./);
		expect(after).toMatch(/Window: w1-[a-z0-9]+\./);
	});
});
