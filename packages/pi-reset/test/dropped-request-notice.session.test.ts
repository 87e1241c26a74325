/**
 * Audit a6k: a pending reset that a reload or tree navigation drops (pending requests are not
 * persisted) is never dropped silently after the user was told "your next message starts in a
 * fresh context window".
 */
import { reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { allText, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
});

function captured() {
	const lines: string[] = [];
	const keep = (...args: unknown[]) => {
		lines.push(args.map(String).join(" "));
	};
	vi.spyOn(console, "error").mockImplementation(keep);
	vi.spyOn(console, "log").mockImplementation(keep);
	return lines;
}

describe("a dropped pending reset is reported", () => {
	it("an idle /reset dropped by /reload: the user is told, and the next message is not presented as fresh", async () => {
		const lines = captured();
		harness = await startSession();
		harness.script(reply("about OLD-TOPIC"), reply("next"));
		await harness.prompt("discuss OLD-TOPIC");
		await harness.prompt("/reset");
		expect(lines.some((line) => line.includes("Reset queued"))).toBe(true);
		await harness.reload();
		expect(lines.filter((line) => line.includes("was dropped"))).toHaveLength(1);
		await harness.prompt("go on");
		// The documented limit holds: the request was dropped, so the old window continues.
		expect(allText(harness.requests.at(-1))).toContain("OLD-TOPIC");
	});

	it("an idle /reset dropped by tree navigation: the user is told", async () => {
		const lines = captured();
		harness = await startSession();
		harness.script(reply("one"), reply("two"));
		await harness.prompt("first");
		const leaf = harness.session.sessionManager.getLeafId();
		await harness.prompt("second");
		await harness.prompt("/reset");
		await harness.session.navigateTree(leaf as string, { summarize: false });
		expect(lines.filter((line) => line.includes("was dropped"))).toHaveLength(1);
	});

	it("nothing pending: a reload says nothing about a dropped reset", async () => {
		const lines = captured();
		harness = await startSession();
		harness.script(reply("one"));
		await harness.prompt("first");
		await harness.reload();
		expect(lines.filter((line) => line.includes("was dropped"))).toEqual([]);
	});
});
