/**
 * Moves of the work tree in the CLI's default trust state (issue 31: a plain git repository that
 * Pi trusts implicitly counts as untrusted, so git is never run): a checkout, pull, reset or merge
 * the agent runs writes files that hold code that already existed, and an old copy among them must
 * not be reported as new. The session's own copies, committed or not, still are. Real git (run by
 * the agent's bash only), real jscpd, Pi's real loop.
 */
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	git,
	type JscpdSession,
	otherFunction,
	reportedPaths,
	repoWithOldCopyOnBranch,
	sessionFixtures,
	waitFor,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();
/** main holds src/a.ts and src/w.ts; branch feature adds src/legacy.ts, an old copy of a.ts. */
const repository = () =>
	repoWithOldCopyOnBranch(fixtures.dir("pi-jscpd-untrusted-moves-"), {
		"src/a.ts": duplicatedFunction("computeTotals"),
		"src/w.ts": otherFunction("countWords"),
	});
const GIT = "git -c user.email=agent@example.invalid -c user.name=agent";

async function afterCommand(root: string, command: string): Promise<JscpdSession> {
	const s = await fixtures.ready({
		project: root,
		agentDir: fixtures.dir("pi-jscpd-agent-"),
		trusted: false,
	});
	s.script(
		toolCall("bash", { command }),
		toolCall("write", { path: "src/notes.ts", content: 'export const notes = ["unrelated"];\n' }),
		reply("done"),
	);
	await s.prompt("work");
	await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBeDefined());
	await s.controller.settled();
	return s;
}

describe("untrusted: a move of the work tree is baseline, not new work (git read, never run)", () => {
	it("after git checkout of a branch holding an old copy, nothing is reported", async () => {
		const s = await afterCommand(repository(), "git checkout -q feature");
		expect(customMessages(s, FINDINGS)).toEqual([]);
		expect(s.controller.status().lastOutcome?.kind).toBe("clean");
	}, 120_000);

	it("after git pull that brings an old copy, nothing is reported", async () => {
		const origin = repository();
		const clone = fixtures.dir("pi-jscpd-untrusted-clone-");
		git(clone, "clone", "-q", origin, ".");
		git(origin, "merge", "-q", "--ff-only", "feature");
		const s = await afterCommand(clone, "git pull -q --ff-only");
		expect(customMessages(s, FINDINGS)).toEqual([]);
		expect(s.controller.status().lastOutcome?.kind).toBe("clean");
	}, 120_000);

	it("after git reset --hard to a commit holding an old copy, nothing is reported", async () => {
		const root = repository();
		git(root, "checkout", "-q", "feature");
		git(root, "rm", "-q", "src/legacy.ts");
		git(root, "commit", "-qm", "drop legacy");
		const s = await afterCommand(root, "git reset -q --hard HEAD~1");
		expect(customMessages(s, FINDINGS)).toEqual([]);
		expect(s.controller.status().lastOutcome?.kind).toBe("clean");
	}, 120_000);

	it("a copy made by a command after a checkout in the same turn is still reported, naming the copy only", async () => {
		const s = await afterCommand(repository(), "git checkout -q feature && cp src/a.ts src/e.ts");
		expect(reportedPaths(s)).toHaveLength(1);
		expect(reportedPaths(s)[0]?.[0]).toBe("src/e.ts");
	}, 120_000);

	it("a copy the session committed is still its work (a commit is not a move)", async () => {
		const s = await afterCommand(
			repository(),
			`cp src/a.ts src/e.ts && ${GIT} add -A && ${GIT} commit -qm copy`,
		);
		expect(reportedPaths(s)).toEqual([["src/e.ts", "src/a.ts"]]);
	}, 120_000);

	it("a copy committed on a new branch made in the same turn is still reported (checkout -b writes no file)", async () => {
		const s = await afterCommand(
			repository(),
			`${GIT} checkout -qb fix && cp src/a.ts src/e.ts && ${GIT} add -A && ${GIT} commit -qm copy`,
		);
		expect(reportedPaths(s)).toEqual([["src/e.ts", "src/a.ts"]]);
	}, 120_000);

	it("a copy made in an earlier turn stays the session's work after a later checkout that keeps it", async () => {
		const s = await fixtures.ready({
			project: repository(),
			agentDir: fixtures.dir("pi-jscpd-agent-"),
			trusted: false,
		});
		s.script(toolCall("bash", { command: `cp src/a.ts src/e.ts && ${GIT} add -A` }), reply("copied"));
		await s.prompt("copy");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		s.script(
			toolCall("bash", { command: `${GIT} checkout -q feature && echo "// more" >> src/e.ts` }),
			reply("switched"),
		);
		await s.prompt("switch");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(2));
		expect(JSON.stringify(customMessages(s, FINDINGS)[1]?.content)).toContain("src/e.ts");
	}, 120_000);
});
