/**
 * Issue 33: a local fault is not a provider error. When Pi cannot write the session file (a
 * read-only or full session folder), the goal's wait names the folder and the next step, not
 * "provider error … (key, model, network)". The fault is injected where Pi's session manager writes.
 */
import { dirname } from "node:path";
import {
	captureConsole,
	createScriptedSession,
	failSessionWrites,
	reply,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { goalExtension, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("local faults in a goal run", () => {
	it.each([
		["EROFS", /the session folder is read-only \(EROFS\); make it writable/],
		["ENOSPC", /the disk holding the session folder is full \(ENOSPC\); free disk space/],
	] as const)(
		"a %s session folder: the goal waits on a local fault, with the next step",
		async (code, text) => {
			harness = await createScriptedSession({
				extensions: [goalExtension()],
				session: "file",
				responses: [reply("working on it"), reply("more")],
			});
			const dir = dirname(harness.session.sessionManager.getSessionFile() ?? "");
			expect(dir).not.toBe("");
			failSessionWrites(harness, code);
			const output = captureConsole({ streams: ["error", "log"] });
			await harness.prompt("/goal ship it").catch(() => undefined);
			await settle(harness);
			// The goal cannot save its state in that session: what the user reads is the status report.
			const status = output.text();
			expect(status).toMatch(/Waiting for: local fault: /);
			expect(status).toMatch(text);
			expect(status).not.toMatch(/provider error|key, model, network/);
			expect(status).toMatch(/Next: fix the local fault named above/);
			// The headline too: "waiting after a local fault", not "after a provider error".
			expect(status).toMatch(/: waiting after a local fault/);
		},
	);
});
