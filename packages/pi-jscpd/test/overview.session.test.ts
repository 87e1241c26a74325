/**
 * The bare `/jscpd` overview in a real AgentSession with a TUI stub (`mode: "tui"`): its dialogs
 * get the signal of the session they opened in, and every answer is re-checked before it is acted
 * on (the session, and for the findings list the latest result). Dialogs are controlled promises.
 */
import type { ExtensionUIContext, ExtensionUIDialogOptions } from "@earendil-works/pi-coding-agent";
import { type Deferred, deferred } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { dispatch } from "../src/dispatch.js";
import { OVERVIEW_LABELS, OVERVIEW_NOTICES } from "../src/overview.js";
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

vi.mock("../src/dispatch.js", async (importOriginal) => {
	const actual = await importOriginal<typeof import("../src/dispatch.js")>();
	return { ...actual, dispatch: vi.fn(actual.dispatch) };
});

/** One select dialog the overview opened. */
interface OpenDialog {
	readonly title: string;
	readonly options: readonly string[];
	readonly signal: AbortSignal | undefined;
	/** Answers the dialog (a label, or undefined for Escape). */
	readonly answer: Deferred<string | undefined>;
}

/**
 * A TUI stand-in for Pi's interactive dialogs: `select` waits for the test to answer. With
 * `honourSignal`, an aborted signal dismisses the dialog (resolves undefined) as Pi's selector does.
 */
function tuiStub(options: { honourSignal: boolean }) {
	const opened: Deferred<OpenDialog>[] = [];
	const slot = (n: number) => {
		opened[n] ??= deferred<OpenDialog>();
		return opened[n];
	};
	let calls = 0;
	const notices: { text: string; level: string | undefined }[] = [];
	const noop = () => {};
	const ui = {
		select(title: string, items: string[], opts?: ExtensionUIDialogOptions) {
			const answer = deferred<string | undefined>();
			if (options.honourSignal) opts?.signal?.addEventListener("abort", () => answer.resolve(undefined));
			slot(calls++).resolve({ title, options: items, signal: opts?.signal, answer });
			return answer.promise;
		},
		confirm: async () => false,
		input: async () => undefined,
		editor: async () => undefined,
		custom: async () => undefined,
		notify(text: string, level?: string) {
			notices.push({ text, level });
		},
		onTerminalInput: () => noop,
		setStatus: noop,
		setWorkingMessage: noop,
		setWorkingVisible: noop,
		setWorkingIndicator: noop,
		setHiddenThinkingLabel: noop,
		setWidget: noop,
		setFooter: noop,
		setHeader: noop,
		setTitle: noop,
		pasteToEditor: noop,
		setEditorText: noop,
		getEditorText: () => "",
		addAutocompleteProvider: noop,
		setEditorComponent: noop,
		getEditorComponent: () => undefined,
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "no themes in tests" }),
		getToolsExpanded: () => false,
		setToolsExpanded: noop,
	} as unknown as ExtensionUIContext;
	return {
		ui,
		notices,
		/** The n-th select dialog (0-based), once the overview opened it. */
		dialog: (n: number) => slot(n).promise,
	};
}

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
async function tuiSession(stub: ReturnType<typeof tuiStub>, files: Record<string, string> = {}) {
	const root = tempDir("pi-jscpd-overview-");
	const agentDir = tempDir("pi-jscpd-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, { "src/a.ts": duplicatedFunction("alpha"), ...files });
	const s = await jscpdSession({ project: root, agentDir, jscpd: { executable: realJscpd() } });
	h = s;
	s.session.extensionRunner.setUIContext(stub.ui, "tui");
	await waitFor(() => expect(hasBaseline(s)).toBe(true));
	await s.controller.settled();
	return s;
}

const dispatched = () => vi.mocked(dispatch).mock.calls.map((call) => call[2]);

describe("the /jscpd overview re-checks after every dialog (scripted sessions, TUI stub)", () => {
	it("an overview dialog answered after session replacement does nothing", async () => {
		// A dialog that ignores its signal: the answer arrives after the session was replaced.
		const stub = tuiStub({ honourSignal: false });
		const s = await tuiSession(stub);
		const command = s.prompt("/jscpd");
		const menu = await stub.dialog(0);
		expect(menu.options).toContain(OVERVIEW_LABELS.scan);

		await s.reload();
		menu.answer.resolve(OVERVIEW_LABELS.scan);
		await command;

		// Nothing was dispatched: no scan ran for the replaced session, and nothing threw.
		expect(dispatched()).toEqual([]);
		expect(menu.signal?.aborted).toBe(true);
		expect(s.errors).toEqual([]);
	});

	it("the overview's dialog is dismissed when the session is replaced", async () => {
		const stub = tuiStub({ honourSignal: true });
		const s = await tuiSession(stub);
		const command = s.prompt("/jscpd");
		const menu = await stub.dialog(0);
		expect(menu.signal?.aborted).toBe(false);

		await s.reload();
		// The signal dismissed the dialog: the command finished without an answer from the user.
		expect(menu.signal?.aborted).toBe(true);
		await command;
		expect(menu.answer.settled).toBe(true);
		expect(dispatched()).toEqual([]);
		expect(s.errors).toEqual([]);
	});

	it("an overview dialog answered in the same session acts (control for the re-checks)", async () => {
		const stub = tuiStub({ honourSignal: true });
		const s = await tuiSession(stub);
		const command = s.prompt("/jscpd");
		(await stub.dialog(0)).answer.resolve(OVERVIEW_LABELS.help);
		await command;
		expect(dispatched()).toEqual(["help"]);
		expect(stub.notices.at(-1)?.text).toMatch(/^Usage: \/jscpd/);
	});

	it("a finding picked from a list that changed shows a notice instead", async () => {
		const stub = tuiStub({ honourSignal: true });
		const s = await tuiSession(stub, { "src/b.ts": duplicatedFunction("beta") });
		await s.prompt("/jscpd scan");
		expect(stub.notices.at(-1)?.text).toMatch(/1 duplicated block/);

		const command = s.prompt("/jscpd");
		(await stub.dialog(0)).answer.resolve(OVERVIEW_LABELS.browse(1));
		const list = await stub.dialog(1);
		expect(list.title).toBe("jscpd findings from the last project scan (1)");
		const picked = list.options[0];
		expect(picked).toMatch(/src\/a\.ts:1-\d+ ≈ src\/b\.ts:1-\d+/);

		// A newer result replaces the list while it is open (a typed /jscpd scan).
		await s.prompt("/jscpd scan");
		const before = stub.notices.length;
		list.answer.resolve(picked);
		await command;

		expect(stub.notices.slice(before)).toEqual([{ text: OVERVIEW_NOTICES.findings, level: "warning" }]);
		expect(stub.notices.some((n) => n.text.startsWith("Duplicated block"))).toBe(false);
	});

	it("a finding picked from an unchanged list shows its details (control for the findings re-check)", async () => {
		const stub = tuiStub({ honourSignal: true });
		const s = await tuiSession(stub, { "src/b.ts": duplicatedFunction("beta") });
		await s.prompt("/jscpd scan");
		const command = s.prompt("/jscpd");
		(await stub.dialog(0)).answer.resolve(OVERVIEW_LABELS.browse(1));
		const list = await stub.dialog(1);
		list.answer.resolve(list.options[0]);
		await command;
		expect(stub.notices.at(-1)?.text).toMatch(/^Duplicated block \(from the last project scan\)/);
	});
});
