/**
 * Issue 23 audit: restore after a crash at any point gives the tokens, counters, status and active
 * time an uninterrupted run had. A restart or a /tree switch writes a state entry (the replay's
 * clock starts there, so offline time and another branch's time never count), and the replay
 * anchor finds the counted message on the branch even when an extension replaced it at message_end.
 */
import { readFileSync, writeFileSync } from "node:fs";
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { compactorExtension, toolsExtension } from "./fixtures.js";
import { defined, goalExtension, lastState, settle } from "./helpers.js";
import { restoreMismatches } from "./restore-check.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const DAY = 24 * 60 * 60 * 1000;

/** Cuts the file after the last line containing `marker` (a crash right after it was written). */
function crashAfter(file: string, marker: string): number {
	const lines = readFileSync(file, "utf8").split("\n");
	const cut = lines.findLastIndex((line) => line.includes(marker));
	writeFileSync(file, `${lines.slice(0, cut + 1).join("\n")}\n`);
	return cut + 1;
}

/** Shifts the timestamps of the lines from `from` on by `ms` (they were written after an offline gap). */
function shiftFrom(file: string, from: number, ms: number): void {
	const lines = readFileSync(file, "utf8").split("\n");
	const shifted = lines.map((line, i) => {
		if (i < from || !line.trim()) return line;
		const entry = JSON.parse(line) as { timestamp?: string };
		if (entry.timestamp) entry.timestamp = new Date(Date.parse(entry.timestamp) + ms).toISOString();
		return JSON.stringify(entry);
	});
	writeFileSync(file, shifted.join("\n"));
}

const extensions = () => [toolsExtension(), goalExtension({ settings: { automaticTurns: null } })];

describe("restore after a crash matches the uninterrupted run", () => {
	it("offline time between a crash and the restart never counts as active time after a second crash", async () => {
		harness = await createScriptedSession({
			extensions: extensions(),
			session: "file",
			responses: [toolCall("noop", { n: 1 }), toolCall("noop", { n: 2 })],
		});
		await harness.prompt("/goal loop through the tools");
		await settle(harness);
		const file = defined(harness.sessionFile);
		await harness.dispose({ keepFiles: true });
		const firstCrash = crashAfter(file, '"call_2"');
		// The restart a day later: the restored goal keeps working, then the process dies again.
		harness = await createScriptedSession({
			extensions: extensions(),
			session: { open: file },
			responses: [toolCall("noop", { n: 3 }), toolCall("noop", { n: 4 })],
		});
		await settle(harness);
		await harness.dispose({ keepFiles: true });
		crashAfter(file, '"n":4');
		shiftFrom(file, firstCrash, DAY);
		harness = await createScriptedSession({
			extensions: extensions(),
			session: { open: file },
			responses: [],
		});
		await settle(harness);
		const goal = defined(lastState(harness)?.goal) as { clock: { activeMs: number } };
		expect(goal.clock.activeMs).toBeLessThan(60_000);
	});

	it("time spent on another branch never counts after /tree and a crash", async () => {
		harness = await createScriptedSession({
			extensions: extensions(),
			session: "file",
			responses: [toolCall("noop", { n: 1 }), toolCall("noop", { n: 2 })],
		});
		await harness.prompt("/goal loop through the tools");
		await settle(harness);
		const file = defined(harness.sessionFile);
		const manager = harness.session.sessionManager;
		const branch = manager.getBranch();
		const first = branch.find((e) => e.type === "message" && JSON.stringify(e.message).includes('"n":1'));
		// The first tool call's result: the goal was working there.
		const target = branch.find((e) => e.parentId === defined(first).id);
		const before = readFileSync(file, "utf8").split("\n").length - 1;
		harness.script(toolCall("noop", { n: 3 }), toolCall("noop", { n: 4 }));
		await harness.session.navigateTree(defined(target).id, { summarize: false });
		await settle(harness);
		await harness.dispose({ keepFiles: true });
		crashAfter(file, '"n":4');
		// The navigation happened a day after the first branch's work (the goal waited there).
		shiftFrom(file, before, DAY);
		harness = await createScriptedSession({
			extensions: extensions(),
			session: { open: file },
			responses: [],
		});
		await settle(harness);
		const goal = defined(lastState(harness)?.goal) as { clock: { activeMs: number } };
		expect(goal.clock.activeMs).toBeLessThan(60_000);
	});

	it("a crash right before any state entry restores the tokens and counters it recorded, also when an extension replaces messages at message_end", async () => {
		harness = await createScriptedSession({
			extensions: [
				compactorExtension(),
				toolsExtension(),
				goalExtension({ settings: { automaticTurns: null, noProgressTurns: null } }),
			],
			session: "file",
			// The recorder rewrites usage at message_end before pi-goal sees the message: like any extension
			// that replaces a message there, Pi then persists another object than the one pi-goal counted.
			recorderPosition: "first",
			settings: { compaction: { enabled: true, keepRecentTokens: 1, reserveTokens: 16_384 } },
			responses: [
				toolCall("noop", { n: 1 }),
				toolCall("noop", { n: 2 }),
				reply("progress one"),
				reply("same"),
				reply("same"),
				toolCall("noop", { n: 3 }),
				toolCall("noop", { n: 4 }),
				reply("progress two"),
				toolCall("noop", { n: 5 }),
				reply("progress three"),
			],
		});
		let i = 0;
		harness.setUsage(() => {
			i++;
			return i === 6 ? { input: 120_000, totalTokens: 120_000 } : { input: 100 + i, totalTokens: 100 + i };
		});
		await harness.prompt("/goal loop through the tools");
		await settle(harness);
		const file = defined(harness.sessionFile);
		await harness.reload();
		await settle(harness);
		await harness.dispose({ keepFiles: true });
		const { checked, mismatches } = restoreMismatches(file);
		expect(checked).toBe(3);
		expect(mismatches).toEqual([]);
	});
});
