/**
 * Changes agents make through bash (issue 31) and hostile ignore files (issue 33), with the real
 * jscpd, in the CLI's default trust state (a plain directory Pi trusts implicitly: untrusted).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import { statusText } from "../src/core/status-text.js";
import {
	customMessages,
	duplicatedFunction,
	gitInit,
	otherFunction,
	sessionFixtures,
	tempDir,
	waitFor,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();
const text = (s: unknown) => JSON.stringify(customMessages(s as never, FINDINGS).map((m) => m.details));

async function project(files: Record<string, string>, trusted = false, git = false) {
	const { root, agentDir } = fixtures.sandbox(files);
	if (git) gitInit(root);
	const s = await fixtures.ready({ project: root, agentDir, trusted });
	return { s, root, agentDir };
}

describe("bash-made changes: renames, new folders, deletions, hostile ignore files", () => {
	it("untrusted: an mv rename is not a new duplicate, a cp into a new folder with spaces and unicode is, and deleting it makes the next check clean", async () => {
		const { s } = await project({
			"src/a.ts": duplicatedFunction("computeTotals"),
			"src/w.ts": otherFunction("w"),
		});
		s.script(toolCall("bash", { command: "mv src/a.ts src/b.ts" }), reply("moved"));
		await s.prompt("rename");
		await waitFor(() => expect(s.controller.status().lastOutcome).toBeDefined());
		await s.controller.settled();
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
		s.script(
			toolCall("bash", { command: "mkdir -p deep/new/dir && cp src/b.ts 'deep/new/dir/c opy ü.ts'" }),
			reply("copied"),
		);
		await s.prompt("copy");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(text(s)).toContain("deep/new/dir/c opy ü.ts");
		s.script(toolCall("bash", { command: "rm 'deep/new/dir/c opy ü.ts'" }), reply("removed"));
		await s.prompt("rm");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(customMessages(s, FINDINGS)).toHaveLength(1);
	}, 120_000);

	it("untrusted: with a FIFO .ignore and a .git file pointing outside, a bash copy is still reported and status names both skipped files", async () => {
		const elsewhere = tempDir("pi-jscpd-elsewhere-");
		mkdirSync(join(elsewhere, "info"), { recursive: true });
		writeFileSync(join(elsewhere, "info/exclude"), "src/\n*.ts\n");
		const { root, agentDir } = fixtures.sandbox({ "src/a.ts": duplicatedFunction("computeTotals") });
		execFileSync("mkfifo", [join(root, "src/.ignore")]);
		writeFileSync(join(root, ".git"), `gitdir: ${elsewhere}\n`);
		const s = await fixtures.ready({ project: root, agentDir, trusted: false });
		s.script(toolCall("bash", { command: "cp src/a.ts src/e.ts" }), reply("copied"));
		await s.prompt("copy");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const plain = statusText(s.controller.status());
		expect(plain).toContain(".ignore");
		expect(plain).toContain(".git");
		rmSync(elsewhere, { recursive: true, force: true });
	}, 120_000);

	it("untrusted: two copies of existing code made by one command are two findings, each naming its copy first and the existing code second", async () => {
		const { s } = await project({
			"src/m.ts": duplicatedFunction("computeTotals"),
			"src/w.ts": otherFunction("w"),
		});
		s.script(toolCall("bash", { command: "cp src/m.ts src/a.ts && cp src/m.ts src/z.ts" }), reply("ok"));
		await s.prompt("copy twice");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const content = JSON.stringify(customMessages(s, FINDINGS)[0]?.content);
		expect(content).toContain("copies existing code: src/a.ts:1-22 ≈ src/m.ts:1-22");
		expect(content).toContain("copies existing code: src/z.ts:1-22 ≈ src/m.ts:1-22");
	}, 120_000);
});
