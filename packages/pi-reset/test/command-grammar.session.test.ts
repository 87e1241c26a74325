/**
 * The `/reset` grammar has no traps (scripted sessions): only a bare subcommand word is a
 * subcommand, so a handoff may start with one; `/reset -- <handoff>` takes even a bare word as
 * the handoff.
 */
import { reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, branchTypes, outsideBoot, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

async function resetWith(line: string): Promise<{ next: string; h: ScriptedSession }> {
	const h = await startSession();
	harness = h;
	h.script(reply("answer about OLD-TOPIC"), reply("fresh"));
	await h.prompt("please discuss OLD-TOPIC");
	await h.prompt(line);
	await h.prompt("go on");
	return { next: allText(h.requests[1]), h };
}

describe("/reset grammar without traps", () => {
	it("a handoff that starts with a subcommand word is a handoff: /reset status of the db… resets", async () => {
		const { next, h } = await resetWith("/reset status of the db migration is in NOTES.md");
		expect(next).toContain("status of the db migration is in NOTES.md");
		expect(outsideBoot(next)).not.toContain("OLD-TOPIC");
		expect(branchTypes(h)).toContain("compaction");
	});

	it("/reset -- <handoff> takes a bare subcommand word as the handoff: /reset -- off resets and stays on", async () => {
		const { next, h } = await resetWith("/reset -- off");
		expect(next).toMatch(/Handoff from the previous window:\noff\n/);
		expect(outsideBoot(next)).not.toContain("OLD-TOPIC");
		expect(branchTypes(h)).toContain("compaction");
		expect(branchTypes(h)).not.toContain("custom:pi-reset/state");
	});

	it.each(["on", "off", "help", "status", "ON"])(
		"/reset %s <more text> is a handoff, never the subcommand: it resets and pi-reset stays on",
		async (word) => {
			const { next, h } = await resetWith(`/reset ${word} the parser first, then cli.ts`);
			expect(next).toContain(`${word} the parser first, then cli.ts`);
			expect(outsideBoot(next)).not.toContain("OLD-TOPIC");
			expect(branchTypes(h)).toContain("compaction");
			expect(branchTypes(h)).not.toContain("custom:pi-reset/state");
		},
	);
});
