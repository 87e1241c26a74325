/**
 * Issue 16, defects 1–3 and 5: the on/off switch holds for the session, the first request after an
 * idle `/reset` keeps the user's prompt whatever other `context` hooks add, `new_context` in that
 * run is served, and a Pi compaction that commits after `/reset off` is still announced.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { RESET_CHANNEL, type ResetAnnouncement } from "@pi-lifecycle/lifecycle-kit";
import { deferred, reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, branchTypes, outsideBoot, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

function toolResultTexts(h: ScriptedSession): string[] {
	return h.session.sessionManager
		.getBranch()
		.flatMap((entry) =>
			entry.type === "message" && entry.message.role === "toolResult"
				? [(entry.message.content[0] as { text: string }).text]
				: [],
		);
}

describe("the on/off switch holds for the session", () => {
	it("/reset off survives /tree navigation to a point before the switch", async () => {
		harness = await startSession();
		harness.script(reply("first answer"));
		await harness.prompt("first prompt");
		await harness.prompt("/reset off");
		const first = harness.session.sessionManager
			.getBranch()
			.find((e) => e.type === "message" && e.message.role === "user");
		const result = await harness.session.navigateTree(first?.id ?? "", { summarize: false });
		expect(result.cancelled).toBe(false);
		harness.script(toolCall("new_context", { handoff: "H" }), reply("after"));
		await harness.prompt("try a reset");
		// Off hides new_context: a call the model makes anyway is refused by Pi (no such active tool).
		expect(toolResultTexts(harness).at(-1)).toBe("Tool new_context not found");
		expect(branchTypes(harness)).not.toContain("compaction");
	});

	it("/reset off survives a reload after /tree navigation", async () => {
		harness = await startSession({ session: "file" });
		harness.script(reply("first answer"));
		await harness.prompt("first prompt");
		await harness.prompt("/reset off");
		const first = harness.session.sessionManager
			.getBranch()
			.find((e) => e.type === "message" && e.message.role === "user");
		await harness.session.navigateTree(first?.id ?? "", { summarize: false });
		await harness.reload();
		harness.script(toolCall("new_context", { handoff: "H" }), reply("after"));
		await harness.prompt("try a reset");
		// Off hides new_context: a call the model makes anyway is refused by Pi (no such active tool).
		expect(toolResultTexts(harness).at(-1)).toBe("Tool new_context not found");
	});
});

describe("the first request after an idle /reset", () => {
	it("keeps the user's prompt when another extension's context hook appends a message", async () => {
		const appender: ExtensionFactory = (pi) => {
			pi.on("context", (event) => ({
				messages: [
					...event.messages,
					{ role: "user", content: [{ type: "text", text: "APPENDED-NOTE" }], timestamp: Date.now() },
				],
			}));
		};
		harness = await startSession({}, [appender]);
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		await harness.prompt("/reset HANDOFF-IDLE");
		harness.script(reply("done"));
		await harness.prompt("FRESH-TASK");
		const first = allText(harness.requests[1]);
		expect(first).toContain("HANDOFF-IDLE");
		expect(first).toContain("FRESH-TASK");
		expect(first).toContain("APPENDED-NOTE");
		expect(outsideBoot(first)).not.toContain("OLD-ANSWER");
	});

	it("new_context in that run is served: the model's handoff opens the next window and the run continues", async () => {
		harness = await startSession();
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		await harness.prompt("/reset USER-HANDOFF");
		harness.script(toolCall("new_context", { handoff: "MODEL-HANDOFF" }), reply("continued"));
		await harness.prompt("fresh task");
		expect(toolResultTexts(harness).at(-1)).toContain("requested");
		expect(harness.providerCalls).toBe(3);
		const next = allText(harness.requests[2]);
		expect(next).toContain("MODEL-HANDOFF");
		expect(next).not.toContain("OLD-ANSWER");
		expect(harness.errors).toEqual([]);
	});
});

describe("a committed reset is always announced", () => {
	it("a Pi compaction still running when /reset off is given is announced when it commits", async () => {
		const announced: string[] = [];
		const entered = deferred<void>();
		const release = deferred<void>();
		const slow: ExtensionFactory = (pi) => {
			pi.events.on(RESET_CHANNEL, (payload) => announced.push((payload as ResetAnnouncement).windowId));
			pi.on("session_before_compact", async () => {
				entered.resolve();
				await release.promise;
				return undefined;
			});
		};
		harness = await startSession({
			settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
			extensions: [slow],
		});
		harness.script(reply("one"), reply("two"));
		await harness.prompt("first");
		await harness.prompt("second");
		const compacting = harness.session.compact();
		await entered.promise;
		await harness.prompt("/reset off");
		release.resolve();
		await compacting;
		const compaction = harness.session.sessionManager.getBranch().find((e) => e.type === "compaction");
		const windowId = (compaction?.type === "compaction" &&
			(compaction.details as { "pi-reset"?: { windowId: string } })?.["pi-reset"]?.windowId) as string;
		expect(windowId).toBeTruthy();
		expect(announced).toEqual([windowId]);
	});

	it("a boundary reset proposed before /reset off and committed after it is announced when it commits", async () => {
		const announced: string[] = [];
		const entered = deferred<void>();
		const release = deferred<void>();
		// Loaded after pi-reset: its turn_end runs after pi-reset proposed the reset and before Pi commits.
		const slow: ExtensionFactory = (pi) => {
			pi.events.on(RESET_CHANNEL, (payload) => announced.push((payload as ResetAnnouncement).windowId));
			pi.on("turn_end", async (event) => {
				if (event.turnIndex !== 0) return undefined;
				entered.resolve();
				await release.promise;
				return undefined;
			});
		};
		harness = await startSession({ extensions: [slow] });
		harness.script(toolCall("new_context", { handoff: "H" }), reply("fresh"));
		const run = harness.prompt("go");
		await entered.promise;
		await harness.prompt("/reset off");
		release.resolve();
		await run;
		await harness.session.waitForIdle();
		const compaction = harness.session.sessionManager.getBranch().find((e) => e.type === "compaction");
		const windowId = (compaction?.type === "compaction" &&
			(compaction.details as { "pi-reset"?: { windowId: string } })?.["pi-reset"]?.windowId) as string;
		expect(windowId).toBeTruthy();
		expect(announced).toEqual([windowId]);
	});
});
