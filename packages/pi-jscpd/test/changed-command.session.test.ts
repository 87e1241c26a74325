/**
 * `jscpd_run changed` right after a command (audit a6j): the outside-change probe runs at settle,
 * so a copy made by bash earlier in the same turn was not yet among the session's changed files and
 * `changed` answered "no files changed in this session" — a false clean. `changed` now looks for
 * outside changes first (a listing of the project's files: in and outside git, trusted or not).
 */
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import { duplicatedFunction, gitInit, jscpdToolResults, sessionFixtures, writeFiles } from "./helpers.js";

const fixtures = sessionFixtures();

async function bashThenChanged(git: boolean): Promise<string> {
	const root = fixtures.dir("pi-jscpd-changed-");
	const agentDir = fixtures.dir("pi-jscpd-agent-");
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
	if (git) gitInit(root);
	const s = await fixtures.ready({ project: root, agentDir });
	s.script(
		toolCall("bash", { command: "sed s/computeTotals/computeCopy/ src/a.ts > src/copy.ts" }),
		toolCall("jscpd_run", { command: "changed" }),
		reply("done"),
	);
	await s.prompt("copy with bash, then check");
	return jscpdToolResults(s);
}

describe("jscpd_run changed right after a command never answers a false clean", () => {
	it("in a git project, a copy made by bash earlier in the same turn is found by `changed`", async () => {
		const text = await bashThenChanged(true);
		expect(text).toContain("src/copy.ts");
		expect(text).not.toContain("no files changed");
	});

	it("outside git, a copy made by bash earlier in the same turn is found by `changed` too", async () => {
		const text = await bashThenChanged(false);
		expect(text).toContain("src/copy.ts");
		expect(text).not.toContain("no files changed");
	});
});
