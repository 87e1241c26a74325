/**
 * A file renamed through bash keeps its baseline: its code existed at session start under the old
 * name, so a later copy of it names the copy as new and the renamed file as the existing code.
 * Real jscpd, the CLI's default trust state (untrusted) and trusted git.
 */
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	gitInit,
	otherFunction,
	sessionFixtures,
	waitFor,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();
const content = (s: unknown) => JSON.stringify(customMessages(s as never, FINDINGS)[0]?.content);

async function project(files: Record<string, string>, trusted = false, git = false) {
	const { root, agentDir } = fixtures.sandbox(files);
	if (git) gitInit(root);
	return fixtures.ready({ project: root, agentDir, trusted });
}

async function renameThenCopy(s: Awaited<ReturnType<typeof project>>) {
	s.script(toolCall("bash", { command: "mv src/z.ts src/y.ts" }), reply("moved"));
	await s.prompt("rename");
	await waitFor(() => expect(s.controller.status().lastOutcome).toBeDefined());
	await s.controller.settled();
	expect(customMessages(s, FINDINGS)).toHaveLength(0);
	s.script(toolCall("bash", { command: "cp src/y.ts src/zz.ts" }), reply("copied"));
	await s.prompt("copy");
	await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
}

describe("a renamed file keeps its baseline", () => {
	for (const [name, trusted, git] of [
		["untrusted", false, false],
		["trusted git", true, true],
	] as const) {
		it(`${name}: after mv z.ts y.ts, a copy of y.ts names the copy as new and y.ts as existing code`, async () => {
			const s = await project(
				{ "src/z.ts": duplicatedFunction("computeTotals"), "src/w.ts": otherFunction("w") },
				trusted,
				git,
			);
			await renameThenCopy(s);
			expect(content(s)).toContain("copies existing code: src/zz.ts:1-22 ≈ src/y.ts:1-22");
			expect(content(s)).not.toContain("new duplicate:");
		}, 120_000);
	}

	it("untrusted: a file the session wrote and then renamed is still new code when copied", async () => {
		const s = await project({ "src/w.ts": otherFunction("w") });
		s.script(
			toolCall("write", { path: "src/z.ts", content: duplicatedFunction("computeTotals") }),
			reply("wrote"),
		);
		await s.prompt("write");
		await waitFor(() => expect(s.controller.status().lastOutcome).toBeDefined());
		await s.controller.settled();
		await renameThenCopy(s);
		expect(content(s)).toContain("new duplicate: src/y.ts:1-22 ≈ src/zz.ts:1-22");
		expect(content(s)).not.toContain("copies existing code");
	}, 120_000);

	it("untrusted: a file the session edited and then renamed is still new code when copied", async () => {
		const s = await project({
			"src/z.ts": duplicatedFunction("computeTotals"),
			"src/w.ts": otherFunction("w"),
		});
		s.script(
			toolCall("edit", { path: "src/z.ts", edits: [{ oldText: "computeTotals", newText: "computeSums" }] }),
			reply("edited"),
		);
		await s.prompt("edit");
		await waitFor(() => expect(s.controller.status().lastOutcome).toBeDefined());
		await s.controller.settled();
		await renameThenCopy(s);
		expect(content(s)).toContain("new duplicate: src/y.ts:1-22 ≈ src/zz.ts:1-22");
	}, 120_000);
});
