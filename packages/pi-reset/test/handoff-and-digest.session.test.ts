/**
 * Issue 16: the checkpoint warning asks for a structured handoff, the boot text keeps "done" and
 * "next" apart, and resets Pi starts carry a bounded mechanical digest (zero model calls) whose
 * wording never asks to redo finished work.
 */
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { reply, type ScriptedSession, toolCall, toolCalls } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { DIGEST_BUDGET_CHARS, windowDigest } from "../src/core/digest.js";
import { parseHandoff } from "../src/core/handoff.js";
import { bootText, warningText } from "../src/core/texts.js";
import { allText, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const STRUCTURED = [
	"Goal: migrate the parser to the new AST",
	"Done: lexer rewritten; verified with `pnpm test lexer` (42 passing)",
	"Remaining: parser, printer",
	"Next action: open src/parser.ts and port parseExpression",
	"Files: src/lexer.ts, src/parser.ts",
].join("\n");

describe("structured handoff", () => {
	it("the checkpoint warning asks for goal, done + how verified, remaining, exact next action, files", () => {
		const text = warningText("w3-abcd", 20_000);
		for (const part of [
			"Goal:",
			"Done:",
			"how you verified it",
			"Remaining:",
			"Next action:",
			"the exact next step",
			"Files:",
		])
			expect(text).toContain(part);
	});

	it("the boot keeps done and next apart: done under a do-not-redo heading, the next action under its own", () => {
		const boot = bootText({
			windowId: "w1-x",
			cause: "new_context",
			handoff: STRUCTURED,
			userRequest: undefined,
			kept: "nothing",
		});
		const done = boot.indexOf("Done (finished and verified as stated; do not redo it):");
		const next = boot.indexOf("Next action (start here):");
		expect(done).toBeGreaterThan(0);
		expect(next).toBeGreaterThan(done);
		const doneBlock = boot.slice(done, boot.indexOf("Remaining:"));
		expect(doneBlock).toContain("lexer rewritten");
		expect(doneBlock).not.toContain("parseExpression");
		const nextBlock = boot.slice(next, boot.indexOf("Files that matter:"));
		expect(nextBlock).toContain("port parseExpression");
		expect(nextBlock).not.toContain("lexer rewritten");
	});

	it("an unstructured handoff is shown verbatim", () => {
		expect(parseHandoff("just continue with the tests")).toBeUndefined();
		const boot = bootText({
			windowId: "w1-x",
			cause: "new_context",
			handoff: "just continue",
			userRequest: undefined,
			kept: "nothing",
		});
		expect(boot).toContain("Handoff from the previous window:\njust continue");
	});

	it("new_context with a structured handoff opens the next window with done and next apart (real session)", async () => {
		harness = await startSession();
		harness.script(toolCall("new_context", { handoff: STRUCTURED }), reply("fresh"));
		await harness.prompt("do the migration");
		const next = allText(harness.requests[1]);
		expect(next).toContain("Done (finished and verified as stated; do not redo it):");
		expect(next).toContain("Next action (start here):");
		expect(next.indexOf("lexer rewritten")).toBeLessThan(next.indexOf("port parseExpression"));
		expect(next).toContain("do not redo it");
	});
});

describe("mechanical digest of automatic resets", () => {
	it("a threshold reset without a handoff carries files modified and read, the last tools and the last answer", async () => {
		harness = await startSession({ settings: { compaction: { enabled: true, keepRecentTokens: 1 } } });
		harness.script(
			toolCalls([{ name: "write", args: { path: "notes.txt", content: "step one" } }]),
			toolCalls([
				{ name: "read", args: { path: "notes.txt" } },
				{ name: "echo", args: { text: "E" } },
			]),
			reply("LAST-ANSWER: step one is written"),
			reply("in the new window"),
		);
		harness.setUsage((m) => (m.stopReason === "stop" ? { totalTokens: 120_000, input: 120_000 } : undefined));
		await harness.prompt("write the notes");
		harness.setUsage(undefined);
		const calls = harness.providerCalls;
		await harness.prompt("go on");
		expect(harness.providerCalls).toBe(calls + 1);
		const boot = allText(harness.requests.at(-1));
		expect(boot).toContain("What the previous window did (a mechanical digest):");
		expect(boot).toMatch(/Files it modified \(they already contain that work\): [^\n]*notes\.txt/);
		expect(boot).toContain("echo(");
		expect(boot).toContain("LAST-ANSWER: step one is written");
		expect(boot).toContain("do not redo it");
		expect(boot).not.toMatch(/re-run|start over|from scratch/i);
	});

	it("stays within its budget however large the window", () => {
		const entries: SessionEntry[] = [];
		for (let i = 0; i < 500; i++) {
			entries.push({
				type: "message",
				id: `a${i}`,
				parentId: null,
				timestamp: "",
				message: {
					role: "assistant",
					content: [
						{ type: "text", text: "x".repeat(5000) },
						{
							type: "toolCall",
							id: `t${i}`,
							name: "edit",
							arguments: { path: `src/${"deep/".repeat(60)}file${i}.ts` },
						},
					],
				},
			} as unknown as SessionEntry);
		}
		const digest = windowDigest(entries, { read: [], written: [], edited: [] }) ?? "";
		expect(digest.length).toBeLessThanOrEqual(DIGEST_BUDGET_CHARS);
		expect(digest).toContain("(and 480 more)");
	});

	it("says nothing for an empty window", () => {
		expect(windowDigest([])).toBeUndefined();
	});
});
