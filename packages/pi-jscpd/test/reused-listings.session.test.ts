/**
 * The walk reuses a folder's previous listing when the folder's own times and inode did not move
 * and were old when it was read (project-walk.ts). These sessions make every folder old before the
 * baseline, so each check really runs on reused listings, with the real jscpd, in the CLI's default
 * trust state (untrusted) and in a trusted git repository; each command then sets the folders'
 * mtimes back, as a tool restoring times would.
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
/** Longer than the walk's racy window (2 s): listings read after it are reused by the next walk. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 2_200));
const findingsText = (s: unknown) =>
	JSON.stringify(customMessages(s as never, FINDINGS).map((m) => m.details));

describe("a walk that reuses unchanged folders' listings still sees every change", () => {
	for (const trusted of [false, true]) {
		const where = trusted ? "a trusted git repository" : "an untrusted plain directory";
		it(`${where}: a rename between reused folders is not new code, and a copy into one with its mtime set back is reported`, async () => {
			const { root, agentDir } = fixtures.sandbox({
				"src/a.ts": duplicatedFunction("computeTotals"),
				"src/w.ts": otherFunction("countWords"),
				"lib/keep.ts": otherFunction("keepLib"),
			});
			if (trusted) gitInit(root);
			await settle();
			const s = await fixtures.ready({ project: root, agentDir, trusted });
			s.script(
				toolCall("bash", { command: "mv src/a.ts lib/b.ts && touch -d '1 hour ago' src lib" }),
				reply("moved"),
			);
			await s.prompt("move a.ts");
			await waitFor(() => expect(s.controller.status().lastOutcome).toBeDefined());
			await s.controller.settled();
			expect(customMessages(s, FINDINGS)).toHaveLength(0);
			await settle();
			s.script(
				toolCall("bash", { command: "cp lib/b.ts 'src/e copy.ts' && touch -d '1 hour ago' src" }),
				reply("copied"),
			);
			await s.prompt("copy b.ts");
			await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
			expect(findingsText(s)).toContain("src/e copy.ts");
		}, 120_000);
	}
});
