/**
 * Issue 16: what an extension that knows nothing of pi-lifecycle sees of pi-reset's resets
 * (documented in docs/pi-reset-lifecycle.md, "What other extensions see"). Pi emits `session_compact` only from
 * its own compaction routines; a boundary reset is committed as drafts and is seen as a compaction
 * entry on the branch and a compaction summary at the head of the next request.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

function observer(seen: { compacts: unknown[]; heads: string[] }): ExtensionFactory {
	return (pi) => {
		pi.on("session_compact", (event) => {
			seen.compacts.push(event.compactionEntry.details);
		});
		pi.on("context", (event) => {
			seen.heads.push(event.messages[0]?.role ?? "");
		});
	};
}

describe("what extensions unaware of pi-lifecycle see", () => {
	it("a boundary reset (new_context): no session_compact; a compaction entry and a compactionSummary head", async () => {
		const seen = { compacts: [] as unknown[], heads: [] as string[] };
		harness = await startSession({ extensions: [observer(seen)] });
		harness.script(toolCall("new_context", { handoff: "H" }), reply("fresh"));
		await harness.prompt("go");
		expect(seen.compacts).toEqual([]);
		expect(harness.session.sessionManager.getBranch().some((e) => e.type === "compaction")).toBe(true);
		expect(seen.heads.at(-1)).toBe("compactionSummary");
	});

	it("a reset Pi started (/compact): session_compact with pi-reset's details on the compaction entry", async () => {
		const seen = { compacts: [] as unknown[], heads: [] as string[] };
		harness = await startSession({
			settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
			extensions: [observer(seen)],
		});
		harness.script(reply("one"), reply("two"));
		await harness.prompt("first");
		await harness.prompt("second");
		await harness.session.compact();
		expect(seen.compacts).toHaveLength(1);
		expect(seen.compacts[0]).toMatchObject({ "pi-reset": { windowId: expect.stringMatching(/^w1-/) } });
	});
});
