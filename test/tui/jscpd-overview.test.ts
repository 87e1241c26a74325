/**
 * What a user sees in the real interactive pi (tmux): bare `/jscpd` opens the overview without
 * scanning (status title, four entries, footer unchanged), "Run a project scan" reports the clone
 * pair, and "Browse findings" then lists it as `path:start-end ≈ path:start-end`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { duplicatedFunction } from "../support/duplicates.js";
import { choose, command, footer, type PiTui, startPi } from "./driver.js";

let tui: PiTui | undefined;
afterEach(() => {
	tui?.close();
	tui = undefined;
});

describe("the bare /jscpd overview in pi's TUI", () => {
	it("never scans on open: shows the status and four entries; a project scan from it reports the duplicate, which Browse then lists", async () => {
		tui = await startPi({
			projectFiles: { "src/a.ts": duplicatedFunction("alpha"), "src/b.ts": duplicatedFunction("beta") },
		});
		const session = tui;
		// The session baseline (the start-of-session scan) has finished: the footer is idle.
		await session.waitForScreen(/jscpd ready/, 30_000);

		await command(session, "/jscpd");
		const menu = await session.waitForScreen(/Browse findings \(0\)/);
		expect(menu).toMatch(
			/jscpd overview · checkpoint on · jscpd [\d.]+ · baseline accepted \(1 group\) · 0 changed files/,
		);
		expect(menu).toMatch(
			/Run the changed check[\s\S]*Run a project scan[\s\S]*Browse findings \(0\)[\s\S]*Help/,
		);
		// Nothing scans on open: no check running, no scan result.
		expect(footer(menu)).toMatch(/jscpd ready/);
		expect(menu).not.toMatch(/checking|duplicated block/);

		await choose(session, /Run a project scan/);
		const scanned = await session.waitForScreen(/jscpd: 1 duplicated block in 2 files\./, 30_000);
		expect(scanned).toMatch(/src\/a\.ts:1-\d+ ≈ src\/b\.ts:1-\d+/);

		await command(session, "/jscpd");
		await session.waitForScreen(/Browse findings \(1\)/);
		await choose(session, /Browse findings \(1\)/);
		await session.waitForScreen(/jscpd findings from the last project scan \(1\)/);
		session.sendKeys("Enter");
		const detail = await session.waitForScreen(/Duplicated block \(from the last project scan\)/);
		expect(detail).toMatch(/\d+ lines, \d+ tokens, typescript/);
	});
});
