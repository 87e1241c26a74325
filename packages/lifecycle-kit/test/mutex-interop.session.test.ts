/**
 * workflow:mutex:v1 interoperability: participants loaded as separate module instances (Pi's own
 * loader, jiti without a module cache, next to the test's own import of the kit) give exactly one
 * holder per session, in both load orders, including a participant written without the kit.
 */
import { fileURLToPath } from "node:url";
import { type ExtensionAPI, VERSION } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkflowMutex, WorkflowMutex } from "../src/index.js";
import { createScriptedSession, reply, type ScriptedSession } from "../src/testing/index.js";
import { type InteropParticipant, participants, resetParticipants } from "./fixtures/mutex/registry.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/mutex/${name}.ts`, import.meta.url));

let harness: ScriptedSession | undefined;
beforeEach(() => resetParticipants());
afterEach(() => resetParticipants());

const holders = (list: readonly InteropParticipant[]) => list.filter((p) => p.held()).map((p) => p.name);

describe("workflow:mutex:v1 across separately loaded participants", () => {
	for (const order of [
		["kit-a", "kit-b"],
		["kit-b", "kit-a"],
	]) {
		it(`two kit instances loaded by Pi's loader give exactly one holder (${order.join(" then ")})`, async () => {
			harness = await createScriptedSession({ extensionPaths: order.map(fixture) });
			const loaded = participants();
			expect(loaded.map((p) => p.name)).toEqual(order);
			// Separate module instances: neither shares the other's (or the test's) WorkflowMutex class.
			expect(loaded[0]?.mutexClass).not.toBe(loaded[1]?.mutexClass);
			expect(loaded[0]?.mutexClass).not.toBe(WorkflowMutex);
			expect(loaded.map((p) => p.acquiredAtStart)).toEqual([true, false]);
			expect(holders(loaded)).toEqual([order[0]]);
			// A later attempt by the other still fails; after a release it succeeds.
			expect(loaded[1]?.tryAcquire()).toBe(false);
			loaded[0]?.release();
			expect(loaded[1]?.tryAcquire()).toBe(true);
			expect(loaded[0]?.tryAcquire()).toBe(false);
			expect(holders(loaded)).toEqual([order[1]]);
		});
	}

	for (const order of [
		["kit-a", "legacy"],
		["legacy", "kit-a"],
	]) {
		it(`a kit participant and a participant written without the kit give exactly one holder (${order.join(" then ")})`, async () => {
			harness = await createScriptedSession({ extensionPaths: order.map(fixture) });
			const loaded = participants();
			expect(loaded.map((p) => p.name)).toEqual(order);
			expect(holders(loaded)).toEqual([order[0]]);
			expect(loaded[1]?.tryAcquire()).toBe(false);
			loaded[0]?.release();
			expect(loaded[1]?.tryAcquire()).toBe(true);
			expect(loaded[0]?.tryAcquire()).toBe(false);
			// The legacy `@mariozechner` import resolved to the running host.
			const legacy = loaded.find((p) => p.name === "legacy");
			expect(legacy?.facts?.version).toBe(VERSION);
		});
	}

	it("the test's own kit instance (an inline factory) and a loader-loaded instance give exactly one holder", async () => {
		let inline: WorkflowMutex | undefined;
		const inlineFactory = (pi: ExtensionAPI) => {
			inline = createWorkflowMutex(pi);
		};
		harness = await createScriptedSession({
			extensions: [inlineFactory],
			extensionPaths: [fixture("kit-a")],
		});
		const [loaded] = participants();
		expect(loaded?.mutexClass).not.toBe(WorkflowMutex);
		// The fixture acquired at session_start; the inline instance is bound to the same session.
		expect(inline?.session).toBe(harness.session.sessionManager);
		expect(loaded?.held()).toBe(true);
		expect(inline?.tryAcquire()).toEqual({ acquired: false, reason: "busy" });
		loaded?.release();
		expect(inline?.tryAcquire().acquired).toBe(true);
		expect(loaded?.tryAcquire()).toBe(false);
	});

	it("createWorkflowMutex binds at session_start and releases at shutdown: after a reload the new runtime can acquire", async () => {
		harness = await createScriptedSession({
			extensionPaths: [fixture("kit-a"), fixture("kit-b")],
			responses: [reply("ok")],
		});
		const before = [...participants()];
		expect(holders(before)).toEqual(["kit-a"]);
		resetParticipants();
		await harness.reload();
		const after = participants();
		// The old holder was released at session_shutdown; the reloaded kit-a acquires again.
		expect(holders(before)).toEqual([]);
		expect(holders(after)).toEqual(["kit-a"]);
		await harness.prompt("still works");
		expect(harness.errors).toEqual([]);
	});
});
