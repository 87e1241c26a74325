import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { createDialogScope, type DialogScope, trackLifecycle } from "../src/index.js";
import { createScriptedSession, reply, type ScriptedSession } from "../src/testing/index.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** Loads an extension that keeps each runtime's dialog scope (one per factory run). */
async function withScopes(): Promise<{ scopes: DialogScope[]; h: ScriptedSession }> {
	const scopes: DialogScope[] = [];
	const h = await createScriptedSession({
		extensions: [(pi: ExtensionAPI) => void scopes.push(createDialogScope(pi, trackLifecycle(pi)))],
	});
	harness = h;
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
