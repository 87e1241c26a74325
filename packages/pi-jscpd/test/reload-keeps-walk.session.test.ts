/**
 * Rule "a reload keeps the last walk" (walk-handover.ts): `/reload` between two settles must not
 * turn a change made since the last walk into the new runtime's starting point. Real jscpd, in the
 * CLI's default trust state (untrusted) and trusted.
 */

import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	gitInit,
	type JscpdSession,
	otherFunction,
	sessionFixtures,
	waitFor,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();

/** A project of one function and an unrelated one, settled after one answer (`git`: committed first). */
async function settledSession(trusted: boolean, git = false): Promise<{ s: JscpdSession; root: string }> {
	const { root, agentDir } = fixtures.sandbox({
		"src/a.ts": duplicatedFunction("computeTotals"),
		"src/w.ts": otherFunction("countWords"),
	});
	if (git) gitInit(root);
	const s = await fixtures.ready({ project: root, agentDir, trusted });
	s.script(reply("hello"));
	await s.prompt("hello");
	await s.controller.settled();
	return { s, root };
}

/** The next answer's findings report the copy in `src/e.ts`. */
async function expectCopyReported(s: JscpdSession): Promise<void> {
	await s.controller.settled();
	s.script(reply("anything else?"));
	await s.prompt("anything else?");
	await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
	expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.details)).toContain("src/e.ts");
}

describe("a reload keeps the last walk", () => {
	for (const trusted of [false, true]) {
		const where = trusted ? "trusted" : "untrusted";
		it(`${where}: a copy another process made between two settles is reported after /reload`, async () => {
			const { s, root } = await settledSession(trusted);
			// An editor or another terminal, after the last walk and before the reload.
			writeFileSync(join(root, "src/e.ts"), duplicatedFunction("computeTotals"));
			await s.reload();
			await expectCopyReported(s);
		}, 120_000);
	}

	it("untrusted: two reloads in a row, the second before the first runtime's walk, still report the copy", async () => {
		const { s, root } = await settledSession(false);
		writeFileSync(join(root, "src/e.ts"), duplicatedFunction("computeTotals"));
		await s.reload();
		await s.reload();
		await expectCopyReported(s);
	}, 120_000);

	it("a trusted git repository: a copy committed after the last check and before /reload is still the session's work", async () => {
		const { s, root } = await settledSession(true, true);
		writeFileSync(join(root, "src/e.ts"), duplicatedFunction("computeTotals"));
		execFileSync("git", ["add", "."], { cwd: root });
		execFileSync("git", ["commit", "-qm", "copy"], { cwd: root });
		// The reload comes later than the commit's second: the commit is older than the new runtime.
		await new Promise((resolve) => setTimeout(resolve, 1_100));
		await s.reload();
		await expectCopyReported(s);
	}, 120_000);
});
