/**
 * The digest is true: a file is listed as modified ("they already contain that work") only when a
 * write or edit of it succeeded; a failed call is marked as failed among the tools it ran.
 */
import { reply, type ScriptedSession, toolCalls } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

describe("digest truth", () => {
	it("a file whose every edit failed is not listed as modified, and the failed call is marked", async () => {
		harness = await startSession({ settings: { compaction: { enabled: true, keepRecentTokens: 1 } } });
		harness.script(
			toolCalls([
				{ name: "write", args: { path: "done.txt", content: "ok" } },
				{ name: "edit", args: { path: "missing.ts", edits: [{ oldText: "a", newText: "b" }] } },
			]),
			reply("LAST"),
			reply("in the new window"),
		);
		harness.setUsage((m) => (m.stopReason === "stop" ? { totalTokens: 120_000, input: 120_000 } : undefined));
		await harness.prompt("work");
		harness.setUsage(undefined);
		await harness.prompt("go on");
		const boot = allText(harness.requests.at(-1));
		const modified = /Files it modified[^\n]*/.exec(boot)?.[0] ?? "";
		expect(modified).toContain("done.txt");
		expect(modified).not.toContain("missing.ts");
		expect(boot).toMatch(/edit\(missing\.ts\) failed/);
	});
});

describe("digest paths as models write them", () => {
	it("one file written as ./src/a.ts and src/a.ts is listed once, as modified, not also as read", async () => {
		const { windowDigest } = await import("../src/core/digest.js");
		const entries = [
			{
				type: "message",
				id: "a1",
				parentId: null,
				timestamp: "",
				message: {
					role: "assistant",
					content: [
						{ type: "toolCall", id: "t1", name: "read", arguments: { path: "src/a.ts" } },
						{ type: "toolCall", id: "t2", name: "edit", arguments: { path: "./src/a.ts" } },
						{ type: "toolCall", id: "t3", name: "read", arguments: { path: "nope.ts" } },
					],
				},
			},
			{
				type: "message",
				id: "r3",
				parentId: null,
				timestamp: "",
				message: { role: "toolResult", toolCallId: "t3", toolName: "read", isError: true, content: [] },
			},
		] as never;
		const digest =
			windowDigest(entries, { read: ["src/a.ts", "nope.ts"], written: [], edited: ["./src/a.ts"] }) ?? "";
		expect(digest).toMatch(/Files it modified[^\n]*: src\/a\.ts\n/);
		expect(digest).not.toMatch(/Files it read/);
		expect(digest).toContain("read(nope.ts) failed");
	});
});
