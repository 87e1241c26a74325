/**
 * What a user sees after `/reset <handoff>` typed while idle in the real interactive pi (tmux):
 * the reset is drawn where it was asked for, before the next message and the reply of the new
 * window, and the context meter measures the new window once it answered (issue 32).
 */
import { afterEach, describe, expect, it } from "vitest";
import { command, fauxScript, footer, type PiTui, startPi, submit } from "./driver.js";

let tui: PiTui | undefined;
afterEach(() => {
	tui?.close();
	tui = undefined;
});

/** About 10,000 tokens each by Pi's estimate: three of them make a window Pi can compact. */
const LARGE = `${"line of a large file to read\n".repeat(1_400)}`;

describe("an idle /reset in pi's TUI", () => {
	it("draws the reset before the next message and the reply of the new window, and the meter measures the new window", async () => {
		tui = await startPi({
			script: fauxScript("idle-reset.mjs"),
			projectFiles: { "a.txt": LARGE, "b.txt": LARGE, "c.txt": LARGE },
		});
		submit(tui, "read the three files");
		await tui.waitForScreen(/READ-THE-FILES/, 30_000);
		await command(tui, "/reset HANDOFF: go on with step two");
		await tui.waitForScreen(/^\s*Reset\b/m, 30_000);
		submit(tui, "go on please");
		const screen = await tui.waitForScreen(/REPLY-IN-FRESH-WINDOW[\s\S]*\/128k/, 30_000);
		const marker = screen.indexOf("[compaction]");
		expect(marker).toBeGreaterThanOrEqual(0);
		expect(marker).toBeLessThan(screen.indexOf("go on please"));
		expect(screen.indexOf("go on please")).toBeLessThan(screen.indexOf("REPLY-IN-FRESH-WINDOW"));
		expect(footer(screen)).not.toContain("?/128k");
		expect(footer(screen)).toMatch(/\d+\.\d%\/128k/);
		expect(footer(screen)).toMatch(/reset: w1-[a-z0-9]+/);
	});

	// A window Pi cannot compact (below compaction.keepRecentTokens): Pi gives extensions no way to
	// write the reset before the next run's first answer (docs/pi-reset-lifecycle.md, "Limits that
	// remain"). The nearest behaviour, pinned here: the notice confirms the reset where it was typed,
	// the reset line follows the first answer, and the meter has a number from the next answer on.
	// If the line ever comes before that answer, Pi changed: revisit the note.
	it("in a short window: the notice where /reset was typed, the reset line after the first answer, the meter back with the next answer", async () => {
		tui = await startPi({ script: fauxScript("idle-reset-short.mjs") });
		submit(tui, "say hello");
		await tui.waitForScreen(/SHORT-WINDOW-REPLY/, 30_000);
		await command(tui, "/reset HANDOFF: go on with step two");
		await tui.waitForScreen(/Reset queued/, 30_000);
		submit(tui, "go on please");
		const first = await tui.waitForScreen(/REPLY-IN-FRESH-WINDOW[\s\S]*\/128k/, 30_000);
		expect(first.indexOf("Reset queued")).toBeLessThan(first.indexOf("go on please"));
		expect(first.indexOf("go on please")).toBeLessThan(first.indexOf("REPLY-IN-FRESH-WINDOW"));
		expect(first.indexOf("[compaction]")).toBeGreaterThan(first.indexOf("REPLY-IN-FRESH-WINDOW"));
		expect(footer(first)).toContain("?/128k");
		submit(tui, "and once more");
		const second = await tui.waitForScreen(/SECOND-REPLY-IN-WINDOW[\s\S]*\d+\.\d%\/128k/, 30_000);
		expect(footer(second)).toMatch(/reset: w1-[a-z0-9]+/);
	});
});
