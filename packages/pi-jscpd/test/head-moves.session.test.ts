/**
 * Moves of the work tree that are not the session's own work (issue 17): a checkout, pull, reset
 * or stash pop during the session brings in code that already existed, so its duplicates are
 * baseline, never "copies existing code". Real git, real jscpd, Pi's real loop.
 */
import { readFileSync } from "node:fs";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	git,
	gitInit,
	type JscpdSession,
	otherFunction,
	repoWithOldCopyOnBranch,
	sessionFixtures,
	waitFor,
	writeFiles,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();
const dir = (prefix: string) => fixtures.dir(prefix);

async function start(root: string): Promise<JscpdSession> {
	const s = await fixtures.ready({ project: root, agentDir: dir("pi-jscpd-agent-") });
	expect(s.controller.status().externalDetection).toBe("files+git");
	return s;
}

/** The agent runs `command` through bash, then writes an unrelated file; the check must be clean. */
async function expectCleanAfter(s: JscpdSession, command: string): Promise<void> {
	s.script(
		toolCall("bash", { command }),
		toolCall("write", { path: "src/notes.ts", content: 'export const notes = ["unrelated"];\n' }),
		reply("done"),
	);
	await s.prompt("switch and write");
	await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBeDefined());
	await s.controller.settled();
	expect(customMessages(s, FINDINGS)).toEqual([]);
	expect(s.controller.status().lastOutcome?.kind).toBe("clean");
}

describe("a move of the work tree during the session is baseline, not new work", () => {
	it("after git checkout of a branch holding an old copy, writing an unrelated file reports nothing", async () => {
		const s = await start(repoWithOldCopyOnBranch(dir("pi-jscpd-moves-")));
		await expectCleanAfter(s, "git checkout -q feature");
	});

	it("after git pull from a (local) remote that brings an old copy, writing an unrelated file reports nothing", async () => {
		const origin = repoWithOldCopyOnBranch(dir("pi-jscpd-moves-"));
		git(origin, "merge", "-q", "--ff-only", "feature");
		git(origin, "reset", "-q", "--hard", "HEAD~1");
		const clone = dir("pi-jscpd-clone-");
		git(clone, "clone", "-q", origin, ".");
		git(origin, "merge", "-q", "--ff-only", "feature");
		const s = await start(clone);
		await expectCleanAfter(s, "git pull -q --ff-only");
	});

	it("after git reset --hard to a commit holding an old copy, writing an unrelated file reports nothing", async () => {
		const root = repoWithOldCopyOnBranch(dir("pi-jscpd-moves-"));
		git(root, "checkout", "-q", "feature");
		git(root, "rm", "-q", "src/legacy.ts");
		git(root, "commit", "-qm", "drop legacy");
		const s = await start(root);
		await expectCleanAfter(s, "git reset -q --hard HEAD~1");
	});

	it("after git stash pop of a change made before the session, writing an unrelated file reports nothing", async () => {
		const root = dir("pi-jscpd-stash-");
		writeFiles(root, {
			"src/a.ts": duplicatedFunction("computeTotals"),
			"src/b.ts": otherFunction("countB"),
		});
		gitInit(root);
		writeFiles(root, { "src/b.ts": `${otherFunction("countB")}\n${duplicatedFunction("stashedTotals")}` });
		git(root, "stash", "-q");
		const s = await start(root);
		await expectCleanAfter(s, "git stash pop -q");
	});

	it("a real new copy written after a checkout is still reported, naming the new file only", async () => {
		const s = await start(repoWithOldCopyOnBranch(dir("pi-jscpd-moves-")));
		s.script(
			toolCall("bash", { command: "git checkout -q feature" }),
			toolCall("write", { path: "src/copy.ts", content: duplicatedFunction("copyTotals") }),
			reply("copied"),
		);
		await s.prompt("switch and copy");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const findings = customMessages(s, FINDINGS)[0]?.details?.findings ?? [];
		expect(findings).toHaveLength(1);
		expect(findings[0]?.locations.map((loc) => loc.path)).toContain("src/copy.ts");
		expect(findings[0]?.label).toBe("matches-existing");
	});

	it("the agent's own edit of a file a checkout brought in does not report the old code in it", async () => {
		const s = await start(repoWithOldCopyOnBranch(dir("pi-jscpd-moves-")));
		s.script(
			toolCall("bash", { command: "git checkout -q feature" }),
			toolCall("edit", {
				path: "src/legacy.ts",
				edits: [
					{ oldText: "export function legacyTotals", newText: "// kept\nexport function legacyTotals" },
				],
			}),
			reply("edited"),
		);
		await s.prompt("switch and edit");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBeDefined());
		await s.controller.settled();
		expect(customMessages(s, FINDINGS)).toEqual([]);
	});
});

describe("a rebase after a move keeps what the baseline detects", () => {
	it("the rewritten baseline file keeps its clone kinds, so a reload compares with the same kinds", async () => {
		const s = await start(repoWithOldCopyOnBranch(dir("pi-jscpd-moves-")));
		await expectCleanAfter(s, "git checkout -q feature");
		const baseline = s.controller.state.baseline;
		if (!("file" in baseline) || !baseline.file) throw new Error("no baseline file");
		const saved = JSON.parse(readFileSync(baseline.file, "utf8")) as { detection?: { kinds?: string[] } };
		expect(baseline.detection?.kinds).toContain("renamed");
		expect(saved.detection?.kinds).toEqual(baseline.detection?.kinds);
	});
});
