/**
 * What a user sees in the real interactive pi (tmux): bare `/jscpd` opens the overview without
 * scanning (status title, four entries, footer unchanged), "Run a project scan" reports the clone
 * pair, and "Browse findings" then lists it as `path:start-end ≈ path:start-end`. Replacing the
 * session while the overview is open dismisses it, and nothing it offered runs.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { duplicatedFunction } from "../support/duplicates.js";
import { choose, command, editorText, fixtureExtension, footer, type PiTui, startPi } from "./driver.js";

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
		await session.waitForScreen(/jscpd: ready/, 30_000);

		await command(session, "/jscpd");
		const menu = await session.waitForScreen(/Browse findings \(0\)/);
		expect(menu).toMatch(
			/jscpd overview · checkpoint on · jscpd [\d.]+ · baseline accepted \(1 group\) · 0 changed files/,
		);
		expect(menu).toMatch(
			/Run the changed check[\s\S]*Run a project scan[\s\S]*Browse findings \(0\)[\s\S]*Help/,
		);
		// Nothing scans on open: no check running, no scan result.
		expect(footer(menu)).toMatch(/jscpd: ready/);
		expect(menu).not.toMatch(/checking|duplicated block/);

		await choose(session, /Run a project scan/);
		const scanned = await session.waitForScreen(/jscpd: 1 duplicated block \(2 files checked\)\./, 30_000);
		expect(scanned).toMatch(/src\/a\.ts:1-\d+ ≈ src\/b\.ts:1-\d+/);

		await command(session, "/jscpd");
		// Pre-existing clones are not new duplicates (the footer's count): listed after them.
		await session.waitForScreen(/Browse findings \(0 · 1 from the last scan\)/);
		await choose(session, /Browse findings \(0 · 1 from the last scan\)/);
		await session.waitForScreen(/jscpd findings, newest first \(0 · 1 from the last scan\)/);
		session.sendKeys("Enter");
		const detail = await session.waitForScreen(/Finding 1: existing clone \(from the project scan\)/);
		expect(detail).toMatch(/\d+ lines, \d+ tokens, typescript/);
		session.sendKeys("Escape");
	});
});

/** Polls the screen until `done` holds. */
async function until(done: () => boolean, session: PiTui, timeoutMs = 10_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!done()) {
		if (Date.now() > deadline) throw new Error(`Timed out; screen:\n${session.capture()}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

describe("session replacement closes the open /jscpd overview", () => {
	it("the overview's menu disappears when the session is replaced, and nothing it offered runs", async () => {
		tui = await startPi({
			projectFiles: { "src/a.ts": duplicatedFunction("alpha"), "src/b.ts": duplicatedFunction("beta") },
			extraExtensions: [fixtureExtension("replace-session.ts")],
		});
		const session = tui;
		await session.waitForScreen(/jscpd: ready/, 30_000);
		await command(session, "/replace-session-when replace-now");
		await session.waitForScreen(/Waiting for replace-now to replace the session\./);

		await command(session, "/jscpd");
		const menu = await session.waitForScreen(/Browse findings \(0\)/);
		expect(menu).toMatch(/→\s*Run the changed check/);
		writeFileSync(join(session.dirs.cwd, "replace-now"), "");

		// The menu is gone: a fresh session (the fixture's notice went with the old transcript).
		const replaced = await session.waitForNoMatch(/Browse findings \(0\)|jscpd overview ·/, 20_000);
		await session.waitForNoMatch(/Waiting for replace-now/, 20_000);
		expect(replaced).not.toMatch(/duplicated block|new duplicate|nothing was done|overview failed/);

		// Back in the main editor of the new session. (Measured: when the old dialog is left open —
		// no signal — the next overview never shows, so the wait for it below fails.)
		const after = await session.waitForScreen(/jscpd: ready/, 30_000);
		session.type("/jscpd");
		await until(() => editorText(session.capture()) === "/jscpd", session);
		// The new session's overview opens normally, with nothing to browse yet; no scan or check ran.
		// (An open autocomplete list takes the first Enter.)
		for (let attempt = 0; attempt < 3 && editorText(session.capture()) === "/jscpd"; attempt++) {
			session.sendKeys("Enter");
			await until(() => editorText(session.capture()) !== "/jscpd", session, 3_000).catch(() => {});
		}
		const fresh = await session.waitForScreen(/Browse findings \(0\)/);
		expect(fresh).toMatch(/jscpd overview · checkpoint on · jscpd [\d.]+ · baseline accepted \(1 group\)/);
		for (const screen of [after, fresh]) {
			expect(screen).not.toMatch(/duplicated block|jscpd changed:|nothing was done|overview failed/);
		}
		session.sendKeys("Escape");
		await session.waitForNoMatch(/Browse findings \(0\)/);
	});
});
