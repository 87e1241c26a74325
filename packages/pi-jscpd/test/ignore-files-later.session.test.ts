/**
 * A hostile ignore file (a FIFO, a file over the read bound) created by a command after the baseline,
 * in a subfolder: the next check still reports a bash copy beside it, with the real jscpd, untrusted
 * (the CLI default) and trusted, in git.
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

describe("a hostile ignore file added later in a subfolder never hides a copy", () => {
	for (const [name, cmd] of [
		["a FIFO .gitignore", "mkfifo src/deep/.gitignore"],
		["a 400 KB .gitignore", "head -c 400000 /dev/zero | tr '\\0' 'a' > src/deep/.gitignore"],
		["a FIFO .ignore", "mkfifo src/deep/.ignore"],
	] as const)
		for (const trusted of [true, false])
			it(`${trusted ? "trusted" : "untrusted"}: ${name} created with a bash copy beside it: the copy is reported`, async () => {
				const { root, agentDir } = fixtures.sandbox({
					"src/a.ts": duplicatedFunction("computeTotals"),
					"src/w.ts": otherFunction("countWords"),
					"src/deep/k.ts": otherFunction("keepDeep"),
				});
				gitInit(root);
				const s = await fixtures.ready({ project: root, agentDir, trusted });
				s.script(toolCall("bash", { command: `${cmd} && cp src/a.ts src/deep/e.ts` }), reply("copied"));
				await s.prompt("copy");
				await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
				expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.details)).toContain("src/deep/e.ts");
			}, 120_000);
});
