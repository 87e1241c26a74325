/**
 * A stand-in for Pi's interactive UI in scripted sessions, so a test can drive an extension's
 * dialogs: every `select`, `confirm`, `input` and `editor` call waits until the test answers it,
 * and `notify` / `setStatus` are recorded. Pass `stub.ui` as the harness's `ui` option (with mode
 * `"tui"` by default), then `await stub.dialog(0)` to get the first dialog the extension opened.
 *
 * Like Pi's own dialogs, a dialog opened with `{ signal }` is dismissed when the signal aborts
 * (select/input/editor resolve `undefined`, confirm `false`); `honourSignal: false` turns that off
 * to test what an extension does with an answer that arrives anyway. Everything else the UI offers
 * (widgets, footer, editor text, themes) is a no-op as in Pi's print mode.
 */
import type { ExtensionUIContext, ExtensionUIDialogOptions } from "@earendil-works/pi-coding-agent";
import { type Deferred, deferred } from "./deferred.js";

/** One dialog an extension opened. */
export interface StubDialog {
	/** Which dialog method was called. */
	readonly kind: "select" | "confirm" | "input" | "editor";
	/** Its title. */
	readonly title: string;
	/** The options of a select. */
	readonly options?: readonly string[];
	/** The message of a confirm, the placeholder of an input, or the prefill of an editor. */
	readonly text?: string;
	/** The signal the extension passed, if any. */
	readonly signal?: AbortSignal;
	/** Answers it: a label or text (select, input, editor), true/false (confirm), undefined = Escape. */
	answer(value: string | boolean | undefined): void;
	/** Whether it was answered or dismissed. */
	readonly settled: boolean;
}

/** See the module comment. */
export interface DialogStub {
	/** The UI context to pass to the harness (`ui` option). */
	readonly ui: ExtensionUIContext;
	/** The n-th dialog (0-based) the extension opened, once it opened it. */
	dialog(n: number): Promise<StubDialog>;
	/** How many dialogs were opened so far. */
	readonly opened: number;
	/** Every `notify` call, in order. */
	readonly notices: { readonly message: string; readonly type?: string }[];
	/** The last text per `setStatus` key (undefined once cleared). */
	readonly statuses: Map<string, string | undefined>;
}

/** Creates a {@link DialogStub}. */
export function createDialogStub(options: { honourSignal?: boolean } = {}): DialogStub {
	const honourSignal = options.honourSignal ?? true;
	const slots: Deferred<StubDialog>[] = [];
	const slot = (n: number): Deferred<StubDialog> => {
		slots[n] ??= deferred<StubDialog>();
		return slots[n];
	};
	let opened = 0;
	const notices: { message: string; type?: string }[] = [];
	const statuses = new Map<string, string | undefined>();

	function open<T>(
		kind: StubDialog["kind"],
		title: string,
		details: { options?: readonly string[]; text?: string; signal?: AbortSignal },
		dismissed: T,
	): Promise<T> {
		const answer = deferred<T>();
		const dialog: StubDialog = {
			kind,
			title,
			...details,
			answer: (value) => {
				if (!answer.settled) answer.resolve(value as T);
			},
			get settled() {
				return answer.settled;
			},
		};
		if (honourSignal && details.signal) {
			if (details.signal.aborted) answer.resolve(dismissed);
			else details.signal.addEventListener("abort", () => dialog.answer(dismissed as never), { once: true });
		}
		slot(opened++).resolve(dialog);
		return answer.promise;
	}

	const noop = () => {};
	const ui = {
		select: (title: string, items: string[], opts?: ExtensionUIDialogOptions) =>
			open<string | undefined>("select", title, { options: items, signal: opts?.signal }, undefined),
		confirm: (title: string, message: string, opts?: ExtensionUIDialogOptions) =>
			open<boolean>("confirm", title, { text: message, signal: opts?.signal }, false),
		input: (title: string, placeholder?: string, opts?: ExtensionUIDialogOptions) =>
			open<string | undefined>("input", title, { text: placeholder, signal: opts?.signal }, undefined),
		editor: (title: string, prefill?: string) =>
			open<string | undefined>("editor", title, { text: prefill }, undefined),
		notify: (message: string, type?: string) => void notices.push({ message, type }),
		setStatus: (key: string, text: string | undefined) => void statuses.set(key, text),
		custom: async () => undefined,
		onTerminalInput: () => noop,
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
		setTheme: () => ({ success: false, error: "no themes in scripted sessions" }),
		getToolsExpanded: () => false,
		setToolsExpanded: noop,
	} as unknown as ExtensionUIContext;

	return {
		ui,
		dialog: (n) => slot(n).promise,
		get opened() {
			return opened;
		},
		notices,
		statuses,
	};
}
