import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { createDialogScope, type DialogScope, trackLifecycle } from "../src/index.js";
import {
	createDialogStub,
	createScriptedSession,
	type DialogStub,
	reply,
	type ScriptedSession,
} from "../src/testing/index.js";

/** Loads an extension that keeps each runtime's dialog scope (one per factory run). */
async function withScopes(): Promise<{ scopes: DialogScope[]; h: ScriptedSession }> {
	const scopes: DialogScope[] = [];
	const h = await createScriptedSession({
		extensions: [(pi: ExtensionAPI) => void scopes.push(createDialogScope(pi, trackLifecycle(pi)))],
	});
	return { scopes, h };
}

describe("dialog scope", () => {
	it("a dialog opened before a reload is dismissed (signal aborted) and its answer is no longer current", async () => {
		const { scopes, h } = await withScopes();
		const opened = scopes[0]?.open();
		expect(opened?.current()).toBe(true);
		expect(opened?.signal.aborted).toBe(false);

		await h.reload();
		expect(opened?.signal.aborted).toBe(true);
		expect(opened?.current()).toBe(false);
		// The reloaded runtime opens current dialogs again.
		const fresh = scopes[1]?.open();
		expect(fresh?.current()).toBe(true);
		expect(fresh?.signal.aborted).toBe(false);
	});

	it("tree navigation within the session keeps an open dialog current", async () => {
		const { scopes, h } = await withScopes();
		h.script(reply("one"), reply("two"));
		await h.prompt("first");
		const firstLeaf = h.session.sessionManager.getLeafId();
		await h.prompt("second");
		const opened = scopes[0]?.open();
		if (!firstLeaf) throw new Error("no leaf");
		await h.session.navigateTree(firstLeaf);
		expect(h.session.sessionManager.getLeafId()).toBe(firstLeaf);
		expect(opened?.current()).toBe(true);
		expect(opened?.signal.aborted).toBe(false);
	});

	it("a dialog opened before the first session started is never current", () => {
		const handlers: (() => void)[] = [];
		const pi = { on: (_event: string, handler: () => void) => void handlers.push(handler) };
		const identity = trackLifecycle(pi as unknown as ExtensionAPI);
		const scope = createDialogScope(pi as unknown as ExtensionAPI, identity);
		expect(scope.open().current()).toBe(false);
	});
});

/**
 * An extension with `/tidy`: asks for confirmation (with the scope's signal), then acts only if the
 * session is still the one it asked in. `acted` counts the actions.
 */
async function tidySession(stub: DialogStub): Promise<{ h: ScriptedSession; acted: () => number }> {
	let acted = 0;
	const h = await createScriptedSession({
		ui: { context: stub.ui },
		extensions: [
			(pi: ExtensionAPI) => {
				const dialogs = createDialogScope(pi, trackLifecycle(pi));
				pi.registerCommand("tidy", {
					description: "tidy up",
					handler: async (_args, ctx) => {
						const opened = dialogs.open();
						const ok = await ctx.ui.confirm("Tidy?", "Removes temp files.", { signal: opened.signal });
						if (!ok || !opened.current()) return;
						acted++;
						ctx.ui.notify("Tidied.", "info");
					},
				});
			},
		],
	});
	return { h, acted: () => acted };
}

describe("dialog scope in a scripted TUI session (createDialogStub)", () => {
	it("the harness's ui option binds the stub before session_start: commands see hasUI and mode tui", async () => {
		const stub = createDialogStub();
		let seen: { hasUI: boolean; mode: string } | undefined;
		await createScriptedSession({
			ui: { context: stub.ui },
			extensions: [
				(pi: ExtensionAPI) =>
					void pi.on("session_start", (_e, ctx) => {
						seen = ctx;
					}),
			],
		});
		expect(seen?.hasUI).toBe(true);
		expect(seen?.mode).toBe("tui");
	});

	it("a confirmation answered in the same session acts", async () => {
		const stub = createDialogStub();
		const { h, acted } = await tidySession(stub);
		const done = h.session.prompt("/tidy");
		const dialog = await stub.dialog(0);
		expect(dialog).toMatchObject({ kind: "confirm", title: "Tidy?", text: "Removes temp files." });
		dialog.answer(true);
		await done;
		expect(acted()).toBe(1);
		expect(stub.notices).toEqual([{ message: "Tidied.", type: "info" }]);
	});

	it("a confirmation open during a reload is dismissed and nothing happens", async () => {
		const stub = createDialogStub();
		const { h, acted } = await tidySession(stub);
		const done = h.session.prompt("/tidy");
		const dialog = await stub.dialog(0);
		await h.reload();
		expect(dialog.settled).toBe(true);
		await done;
		expect(acted()).toBe(0);
	});

	it("an answer that arrives after a reload anyway (a dialog that ignored the signal) is not current", async () => {
		const stub = createDialogStub({ honourSignal: false });
		const { h, acted } = await tidySession(stub);
		const done = h.session.prompt("/tidy");
		const dialog = await stub.dialog(0);
		await h.reload();
		expect(dialog.settled).toBe(false);
		dialog.answer(true);
		await done;
		expect(acted()).toBe(0);
	});
});
