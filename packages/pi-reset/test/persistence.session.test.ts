import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import piReset from "../src/index.js";
import { allText, branchTypes, outsideBoot, startSession, testTools } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const compactable = { compaction: { enabled: true, keepRecentTokens: 1 } };

function toolResultTexts(h: ScriptedSession): string[] {
	return h.session.sessionManager
		.getBranch()
		.flatMap((e) =>
			e.type === "message" && e.message.role === "toolResult"
				? [(e.message.content[0] as { text: string }).text]
				: [],
		);
}

function resetDetailsOnBranch(h: ScriptedSession): { windowId: string; resets: number }[] {
	return h.session.sessionManager
		.getBranch()
		.flatMap((e) =>
			e.type === "compaction"
				? [(e.details as { "pi-reset": { windowId: string; resets: number } })["pi-reset"]]
				: [],
		);
}

describe("on/off, reload and reopen", () => {
	it("toggle off: new_context is not offered, Pi's native compaction summarises as if pi-reset were absent", async () => {
		harness = await startSession({ settings: compactable });
		harness.script(reply("OLD-ANSWER"));
		await harness.prompt("earlier topic");
		await harness.prompt("/reset off");
		harness.script(toolCall("new_context", { handoff: "X" }), reply("still here"));
		await harness.prompt("try to reset");
		// Off hides new_context: a call the model makes anyway is refused by Pi (no such active tool).
		expect(toolResultTexts(harness).at(-1)).toBe("Tool new_context not found");
		expect(branchTypes(harness)).not.toContain("compaction");
		expect(allText(harness.requests.at(-1))).toContain("OLD-ANSWER");
		// Native compaction: Pi's summariser makes one model request.
		const calls = harness.providerCalls;
		harness.script(reply("NATIVE SUMMARY"), reply("NATIVE PREFIX"));
		await harness.session.compact();
		expect(harness.providerCalls).toBeGreaterThan(calls);
		const compaction = harness.session.sessionManager.getBranch().find((e) => e.type === "compaction");
		expect(compaction?.type === "compaction" && compaction.summary).toContain("NATIVE SUMMARY");
		expect(branchTypes(harness)).toContain("custom:pi-reset/state");
	});

	it("toggling off invalidates a pending /reset and on restores resets", async () => {
		harness = await startSession();
		harness.script(reply("OLD-ANSWER"), reply("second"), toolCall("new_context", {}), reply("fresh"));
		await harness.prompt("earlier topic");
		await harness.prompt("/reset PENDING-HANDOFF");
		await harness.prompt("/reset off");
		await harness.prompt("next");
		expect(allText(harness.requests[1])).toContain("OLD-ANSWER");
		expect(allText(harness.requests[1])).not.toContain("PENDING-HANDOFF");
		await harness.prompt("/reset on");
		await harness.prompt("reset please");
		expect(branchTypes(harness).filter((t) => t === "compaction")).toHaveLength(1);
		expect(allText(harness.requests[3])).not.toContain("OLD-ANSWER");
	});

	it("the native summariser after a reset never sees the erased history", async () => {
		harness = await startSession({ settings: compactable });
		harness.script(reply("OLD-ANSWER"), toolCall("new_context", { handoff: "H1" }), reply("NEW-ANSWER"));
		await harness.prompt("earlier topic");
		await harness.prompt("reset now");
		await harness.prompt("/reset off");
		harness.script(reply("after compaction"), reply("NATIVE SUMMARY"), reply("NATIVE PREFIX"));
		await harness.prompt("more work");
		const start = harness.requests.length;
		await harness.session.compact();
		expect(harness.requests.length).toBeGreaterThan(start);
		const summarisation = harness.requests.slice(start).map(allText).join("\n");
		expect(summarisation).toContain("NEW-ANSWER");
		expect(outsideBoot(summarisation)).not.toContain("OLD-ANSWER");
	});

	it("reload with a pending request: the new runtime does not execute it", async () => {
		harness = await startSession();
		harness.script(reply("OLD-ANSWER"), reply("after reload"));
		await harness.prompt("earlier topic");
		await harness.prompt("/reset RELOAD-HANDOFF");
		await harness.reload();
		await harness.prompt("after reload prompt");
		const next = allText(harness.requests[1]);
		expect(next).toContain("OLD-ANSWER");
		expect(next).not.toContain("RELOAD-HANDOFF");
		expect(branchTypes(harness)).not.toContain("compaction");
	});

	it("the off switch is persisted per session and survives reload", async () => {
		harness = await startSession();
		harness.script(reply("a"), toolCall("new_context", {}), reply("b"));
		await harness.prompt("one");
		await harness.prompt("/reset off");
		await harness.reload();
		await harness.prompt("two");
		// Off hides new_context: a call the model makes anyway is refused by Pi (no such active tool).
		expect(toolResultTexts(harness).at(-1)).toBe("Tool new_context not found");
	});

	it("a real session file reopened after two resets projects the right window", async () => {
		harness = await startSession({ session: "file" });
		harness.script(
			reply("OLD-ANSWER"),
			toolCall("new_context", { handoff: "FIRST-HANDOFF" }),
			reply("window one"),
			toolCall("new_context", { handoff: "SECOND-HANDOFF" }),
			reply("window two"),
		);
		await harness.prompt("earlier topic");
		await harness.prompt("reset one");
		await harness.prompt("reset two");
		const file = harness.sessionFile;
		expect(file).toBeDefined();
		const before = resetDetailsOnBranch(harness);
		expect(before.map((d) => d.resets)).toEqual([1, 2]);
		await harness.dispose({ keepFiles: true });
		harness = await createScriptedSession({
			session: { open: file as string },
			extensions: [
				{ name: "pi-reset", factory: piReset },
				{ name: "test-tools", factory: testTools },
			],
		});
		harness.script(reply("reopened"), toolCall("new_context", { handoff: "THIRD" }), reply("window three"));
		await harness.prompt("after reopen");
		const reopened = allText(harness.requests[0]);
		expect(reopened).toContain("SECOND-HANDOFF");
		expect(reopened).toContain(before[1]?.windowId ?? "missing");
		expect(reopened).not.toContain("FIRST-HANDOFF");
		expect(reopened).not.toContain("OLD-ANSWER");
		// The restored window count continues: the next reset is the third.
		await harness.prompt("reset three");
		expect(resetDetailsOnBranch(harness).map((d) => d.resets)).toEqual([1, 2, 3]);
	});

	it("/reset status reports the window id, tokens left before the warning and resets so far", async () => {
		harness = await startSession();
		harness.script(toolCall("new_context", { handoff: "S" }), reply("fresh"));
		await harness.prompt("go");
		const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
		try {
			await harness.prompt("/reset status");
			const report = log.mock.calls.map((call) => String(call[0])).join("\n");
			const windowId = resetDetailsOnBranch(harness)[0]?.windowId ?? "missing";
			expect(report).toContain(`Window: ${windowId}`);
			expect(report).toMatch(/Tokens left before the checkpoint warning: \d+/);
			expect(report).toContain("Resets so far: 1");
		} finally {
			log.mockRestore();
		}
	});
});
