/**
 * The bare `/jscpd` overview in a real AgentSession with the kit's dialog stub (`mode: "tui"`): its dialogs
 * get the signal of the session they opened in, and every answer is re-checked before it is acted
 * on (the session, and for the findings list the latest result). Dialogs are controlled promises.
 */
import { createDialogStub, type DialogStub } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { dispatch } from "../src/adapters/dispatch.js";
import { OVERVIEW_LABELS, OVERVIEW_NOTICES } from "../src/core/overview.js";
import {
	duplicatedFunction,
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	realJscpd,
	remove,
	tempDir,
	waitFor,
	writeFiles,
} from "./helpers.js";

vi.mock("../src/adapters/dispatch.js", async (importOriginal) => {
	const actual = await importOriginal<typeof import("../src/adapters/dispatch.js")>();
	return { ...actual, dispatch: vi.fn(actual.dispatch) };
});

let h: JscpdSession | undefined;
const dirs: string[] = [];
beforeEach(() => {
	vi.mocked(dispatch).mockClear();
});
afterEach(async () => {
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

/** A session with pi-jscpd in TUI mode (the stub as its UI) and an accepted baseline. */
async function tuiSession(stub: DialogStub, files: Record<string, string> = {}) {
	const root = tempDir("pi-jscpd-overview-");
	const agentDir = tempDir("pi-jscpd-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, { "src/a.ts": duplicatedFunction("alpha"), ...files });
	const s = await jscpdSession({ project: root, agentDir, jscpd: { executable: realJscpd() }, ui: stub.ui });
	h = s;
	await waitFor(() => expect(hasBaseline(s)).toBe(true));
	await s.controller.settled();
	return s;
}

const dispatched = () => vi.mocked(dispatch).mock.calls.map((call) => call[2]);

describe("the /jscpd overview re-checks after every dialog (scripted sessions, TUI stub)", () => {
	it("an overview dialog answered after session replacement does nothing", async () => {
		// A dialog that ignores its signal: the answer arrives after the session was replaced.
		const stub = createDialogStub({ honourSignal: false });
		const s = await tuiSession(stub);
		const command = s.prompt("/jscpd");
		const menu = await stub.dialog(0);
		expect(menu.options).toContain(OVERVIEW_LABELS.scan);

		await s.reload();
		menu.answer(OVERVIEW_LABELS.scan);
		await command;

		// Nothing was dispatched: no scan ran for the replaced session, and nothing threw.
		expect(dispatched()).toEqual([]);
		expect(menu.signal?.aborted).toBe(true);
		expect(s.errors).toEqual([]);
	});

	it("the overview's dialog is dismissed when the session is replaced", async () => {
		const stub = createDialogStub();
		const s = await tuiSession(stub);
		const command = s.prompt("/jscpd");
		const menu = await stub.dialog(0);
		expect(menu.signal?.aborted).toBe(false);

		await s.reload();
		// The signal dismissed the dialog: the command finished without an answer from the user.
		expect(menu.signal?.aborted).toBe(true);
		await command;
		expect(menu.settled).toBe(true);
		expect(dispatched()).toEqual([]);
		expect(s.errors).toEqual([]);
	});

	it("an overview dialog answered in the same session acts (control for the re-checks)", async () => {
		const stub = createDialogStub();
		const s = await tuiSession(stub);
		const command = s.prompt("/jscpd");
		(await stub.dialog(0)).answer(OVERVIEW_LABELS.help);
		await command;
		expect(dispatched()).toEqual(["help"]);
		expect(stub.notices.at(-1)?.message).toMatch(/^Usage: \/jscpd/);
	});

	it("a finding picked from a list that changed shows a notice instead", async () => {
		const stub = createDialogStub();
		const s = await tuiSession(stub, { "src/b.ts": duplicatedFunction("beta") });
		await s.prompt("/jscpd scan");
		expect(stub.notices.at(-1)?.message).toMatch(/1 duplicated block/);

		const command = s.prompt("/jscpd");
		(await stub.dialog(0)).answer(OVERVIEW_LABELS.browse("0 · 1 from the last scan"));
		const list = await stub.dialog(1);
		expect(list.title).toBe("jscpd findings, newest first (0 · 1 from the last scan)");
		const picked = list.options?.[0];
		expect(picked).toMatch(
			/^1\. src\/a\.ts:1-\d+ ≈ src\/b\.ts:1-\d+ · existing clone · \d+ lines · not reported to the model$/,
		);

		// A newer result replaces the list while it is open (a typed /jscpd scan).
		await s.prompt("/jscpd scan");
		const before = stub.notices.length;
		list.answer(picked);
		await command;

		expect(stub.notices.slice(before)).toEqual([{ message: OVERVIEW_NOTICES.findings, type: "warning" }]);
		expect(stub.opened).toBe(2);
	});

	it("a finding picked from an unchanged list shows its details (control for the findings re-check)", async () => {
		const stub = createDialogStub();
		const s = await tuiSession(stub, { "src/b.ts": duplicatedFunction("beta") });
		await s.prompt("/jscpd scan");
		const command = s.prompt("/jscpd");
		(await stub.dialog(0)).answer(OVERVIEW_LABELS.browse("0 · 1 from the last scan"));
		const list = await stub.dialog(1);
		list.answer(list.options?.[0]);
		const menu = await stub.dialog(2);
		expect(menu.title).toMatch(/^Finding 1: existing clone \(from the project scan\)\n {2}src\/a\.ts:1-\d+/);
		menu.answer("Back");
		await command;
	});
});
