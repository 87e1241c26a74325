/**
 * Issue 33: a local fault is named as what it is. When Pi cannot write the session file (a
 * read-only or full session folder), `/reset off` and a handoff say which folder and what to do,
 * instead of failing with a bare error. The fault is injected where Pi's session manager writes.
 */
import { captureConsole, failSessionWrites, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("pi-reset on a local fault", () => {
	it("/reset off with a read-only session folder: the switch applies and the notice names the folder", async () => {
		harness = await startSession({ session: "file" });
		failSessionWrites(harness, "EROFS");
		const output = captureConsole({ streams: ["error", "log"] });
		await harness.prompt("/reset off");
		expect(harness.errors).toEqual([]);
		expect(output.text()).toMatch(
			/could not save the switch in the session \(the session folder is read-only \(EROFS: .*\); make it writable/,
		);
		expect(output.text()).toMatch(/pi-reset is off/);
	});

	it("a handoff with a full session folder: the notice says to free disk space", async () => {
		harness = await startSession({ session: "file" });
		failSessionWrites(harness, "ENOSPC");
		const output = captureConsole({ streams: ["error", "log"] });
		await harness.prompt("/reset keep the notes in notes.md").catch(() => undefined);
		expect(output.text()).toMatch(
			/could not save the handoff \(the disk holding the session folder is full .*free disk space\)/,
		);
	});

	it("a disk that fills during Pi's write (Node names no path then): the notice still names the session folder", async () => {
		harness = await startSession({ session: "file" });
		failSessionWrites(harness, "ENOSPC-write");
		const output = captureConsole({ streams: ["error", "log"] });
		await harness.prompt("/reset off");
		expect(output.text()).toMatch(
			/could not save the switch in the session \(the disk holding the session folder is full \(ENOSPC: .*\.jsonl\); free disk space\)/,
		);
	});
});
