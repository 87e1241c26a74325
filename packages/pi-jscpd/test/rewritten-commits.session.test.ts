/**
 * Commits the session made and then replayed (issue 31: "commits made by the session — the change
 * is still seen"): `git pull --rebase` before a push, `git rebase <branch>`, `git cherry-pick` give
 * the session's commits new ids. They are still its work, while what the pull or rebase brought in
 * stays baseline. Real git, real jscpd, a trusted repository.
 */
import { join } from "node:path";
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
	writeFiles,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();
/** main holds src/a.ts and src/w.ts; branch feature adds src/legacy.ts, an old copy of a.ts. */
const repository = () =>
	repoWithOldCopyOnBranch(fixtures.dir("pi-jscpd-replayed-"), {
		"src/a.ts": duplicatedFunction("computeTotals"),
		"src/w.ts": otherFunction("countWords"),
	});
const GIT = "git -c user.email=agent@example.invalid -c user.name=agent";

async function afterCommand(root: string, command: string): Promise<JscpdSession> {
	const s = await fixtures.ready({ project: root, agentDir: fixtures.dir("pi-jscpd-agent-") });
	expect(s.controller.status().externalDetection).toBe("files+git");
	s.script(toolCall("bash", { command }), reply("done"));
	await s.prompt("work");
	await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBeDefined());
	await s.controller.settled();
	return s;
}

describe("the session's own commits replayed by git are still its work", () => {
	it("a copy committed and then replayed by git pull --rebase is reported", async () => {
		const root = repository();
		const remote = join(fixtures.dir("pi-jscpd-remote-"), "origin.git");
		git(root, "clone", "-q", "--bare", root, remote);
		git(root, "remote", "add", "origin", remote);
		git(root, "fetch", "-q", "origin");
		git(root, "branch", "-q", "--set-upstream-to=origin/main", "main");
		const other = fixtures.dir("pi-jscpd-upstream-");
		git(other, "clone", "-q", remote, ".");
		writeFiles(other, { "src/up.ts": otherFunction("countUpstream") });
		git(other, "add", ".");
		git(other, "commit", "-qm", "upstream");
		git(other, "push", "-q", "origin", "main");
		const s = await afterCommand(
			root,
			`cp src/a.ts src/e.ts && ${GIT} add -A && ${GIT} commit -qm copy && ${GIT} pull -q --rebase`,
		);
		expect(reportedPaths(s)).toEqual([["src/e.ts", "src/a.ts"]]);
	}, 120_000);

	it("a copy committed and then rebased onto a branch holding an old copy is reported; the old copy is not", async () => {
		const s = await afterCommand(
			repository(),
			`cp src/a.ts src/e.ts && ${GIT} add -A && ${GIT} commit -qm copy && ${GIT} rebase -q feature`,
		);
		const paths = reportedPaths(s);
		expect(paths).toHaveLength(1);
		expect(paths[0]?.[0]).toBe("src/e.ts");
		expect(paths.flat()).not.toContain("src/w.ts");
	}, 120_000);

	it("a copy committed on a branch and cherry-picked onto main after another commit is reported", async () => {
		const s = await afterCommand(
			repository(),
			`${GIT} checkout -qb wip && cp src/a.ts src/e.ts && ${GIT} add -A && ${GIT} commit -qm copy && ${GIT} checkout -q main && echo "export const n = 1;" > src/n.ts && ${GIT} add -A && ${GIT} commit -qm notes && ${GIT} cherry-pick wip >/dev/null`,
		);
		expect(reportedPaths(s)).toEqual([["src/e.ts", "src/a.ts"]]);
	}, 120_000);

	it("commits made before the session and rebased by it stay baseline: an old copy they hold is not reported", async () => {
		const root = repository();
		writeFiles(root, { "src/later.ts": otherFunction("countLater") });
		git(root, "add", ".");
		git(root, "commit", "-qm", "later on main");
		git(root, "checkout", "-q", "feature");
		const s = await afterCommand(root, `${GIT} rebase -q main && echo "export const n = 1;" > src/notes.ts`);
		expect(customMessages(s, FINDINGS)).toEqual([]);
		expect(s.controller.status().lastOutcome?.kind).toBe("clean");
	}, 120_000);
});
