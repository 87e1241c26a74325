/**
 * Findings triage in the real interactive pi (tmux): the model copies a function, the automatic
 * checkpoint reports it, and the user triages it from `/jscpd` — Browse lists it with the footer's
 * count; Dismiss as intended (with the undo in the same menu) keeps it from the model, also after
 * a `/reset`; "Ask the agent to fix it" sends one message while idle and refuses while the agent
 * works.
 */
import { afterEach, describe, expect, it } from "vitest";
import { duplicatedFunction } from "../support/duplicates.js";
import { choose, command, fauxScript, footer, type PiTui, startPi, submit } from "./driver.js";

let tui: PiTui | undefined;
afterEach(() => {
	tui?.close();
	tui = undefined;
});

const projectFiles = { "src/a.ts": duplicatedFunction("alpha") };

/** `/jscpd` → Browse findings (1) → finding 1: resolves with its menu on screen. */
async function openFinding(session: PiTui): Promise<string> {
	await command(session, "/jscpd");
	await session.waitForScreen(/Browse findings \(1\)/);
	await choose(session, /Browse findings \(1\)/);
	const list = await session.waitForScreen(/jscpd findings, newest first \(1\)/);
	expect(list).toMatch(
		// The new copy (b.ts) first, the existing code second.
		/1\. src\/b\.ts:1-\d+ ≈ src\/a\.ts:1-\d+ · copies existing code · \d+ lines · reported to the model/,
	);
	await choose(session, /1\. src\/b\.ts/);
	return session.waitForScreen(/Finding 1: copies existing code \(from the automatic checkpoint\)/);
}

describe("triage of jscpd findings in pi's TUI", () => {
	it("browse after an automatic finding; dismiss and undo in the same menu; a dismissed finding is not re-delivered after a reset", async () => {
		tui = await startPi({ script: fauxScript("triage-dismiss.mjs"), projectFiles });
		const session = tui;
		await session.waitForScreen(/jscpd: ready/, 30_000);
		submit(session, "write b.ts");
		const found = await session.waitForScreen(/jscpd: 1 new duplicate/, 30_000);
		expect(found).toMatch(/jscpd: 1 new duplicated block in files changed this session\./);

		const menu = await openFinding(session);
		expect(menu).toMatch(
			/Ask the agent to fix it[\s\S]*Show both blocks[\s\S]*Dismiss as intended[\s\S]*Back/,
		);
		await choose(session, /Dismiss as intended/);
		await session.waitForScreen(/finding 1 dismissed as intended; it is not reported to the model again/);
		// The same menu is back, now offering the undo; the footer counts the dismissal.
		const undo = await session.waitForScreen(/→ Undo dismiss|Undo dismiss/);
		expect(footer(undo, 4)).toMatch(/jscpd: clean · 1 dismissed/);
		await choose(session, /Undo dismiss/);
		const restored = await session.waitForScreen(/finding 1 is reported again when a check finds it/);
		expect(restored).toMatch(/Dismiss as intended/);
		await session.waitForScreen(/jscpd: 1 new duplicate/);
		await choose(session, /Dismiss as intended/);
		await session.waitForScreen(/jscpd: clean · 1 dismissed/);
		session.sendKeys("Escape");
		await session.waitForNoMatch(/Finding 1: copies existing code/);

		// The finding was appended after the model's last answer: a reset drops it unseen, which
		// would deliver it again in the new window. Dismissed, it stays out.
		await command(session, "/reset");
		submit(session, "go on");
		await session.waitForScreen(/Fresh window\./, 20_000);
		await command(session, "/jscpd status --verbose");
		const status = await session.waitForScreen(/findings acknowledged by the model: \d+/);
		expect(status).not.toMatch(/re-delivered after a reset/);
		expect(footer(status, 4)).toMatch(/jscpd: clean · 1 dismissed/);
		// Nothing was delivered in the new window (the original message may have scrolled away).
		expect(status.slice(status.indexOf("Fresh window."))).not.toMatch(/new duplicated block/);
	});

	it("ask-to-fix while idle sends one message naming both locations; while the agent works it refuses and says why", async () => {
		tui = await startPi({ script: fauxScript("triage-fix.mjs"), gated: true, projectFiles });
		const session = tui;
		await session.waitForScreen(/jscpd: ready/, 30_000);
		submit(session, "write b.ts");
		await session.waitForScreen(/jscpd: 1 new duplicate/, 30_000);

		await openFinding(session);
		await choose(session, /Ask the agent to fix it/);
		const sent = await session.waitForScreen(/I will extract the shared code\./, 20_000);
		expect(sent).toMatch(/jscpd found duplicated code: src\/b\.ts lines 1-\d+ and src\/a\.ts lines 1-\d+/);
		expect(sent).toMatch(/asked the agent to fix finding 1/);

		// Busy: the next answer waits for the gate.
		submit(session, "another task");
		await session.waitForScreen(/Working/, 10_000);
		await openFinding(session);
		await choose(session, /Ask the agent to fix it/);
		const refused = await session.waitForScreen(/the agent is busy; nothing was sent/);
		expect(refused.match(/jscpd found duplicated code/g) ?? []).toHaveLength(1);
		session.openGate();
		await session.waitForScreen(/Finished the other task\./, 20_000);
	});
});
