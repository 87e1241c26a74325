import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	processesWith,
	realJscpd,
	remove,
	tempDir,
	waitFor,
	writeFiles,
	writeScript,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
let h: JscpdSession | undefined;
const dirs: string[] = [];
afterEach(async () => {
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

function gitProject() {
	const root = tempDir("pi-jscpd-git-");
	const agentDir = tempDir("pi-jscpd-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
	const git = (...args: string[]) => execFileSync("git", args, { cwd: root, stdio: "ignore" });
	git("init", "-q");
	git("-c", "user.email=t@t", "-c", "user.name=t", "add", ".");
	git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init");
	return { root, agentDir };
}

describe("changes made outside the built-in write/edit tools", () => {
	it("a duplicate created through bash is detected at settle by the git-status comparison", async () => {
		const { root, agentDir } = gitProject();
		const s = await jscpdSession({ project: root, agentDir });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		await s.controller.settled();
		expect(s.controller.status().externalDetection).toBe("files+git");
		s.script(
			toolCall("bash", { command: "sed s/computeTotals/computeCopy/ src/a.ts > src/copy.ts" }),
			reply("copied"),
		);
		await s.prompt("copy it with bash");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.details)).toContain("src/copy.ts");
		expect(s.providerCalls).toBe(2);
	});

	it("a read-only run after outside-Pi edits to unrelated files reports nothing", async () => {
		const { root, agentDir } = gitProject();
		const s = await jscpdSession({ project: root, agentDir });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		await s.controller.settled();
		writeFileSync(join(root, "notes.md"), "# notes\n");
		s.script(reply("nothing to do"));
		await s.prompt("hello");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
	});
});

describe("shutdown", () => {
	it("reload shutdown closes the scheduler first, kills the owned jscpd process and awaits cleanup; it never scans", async () => {
		const root = tempDir("pi-jscpd-project-");
		const agentDir = tempDir("pi-jscpd-agent-");
		const gate = tempDir("pi-jscpd-gate-");
		dirs.push(root, agentDir, gate);
		writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
		const marker = `pijscpdshutdown${process.pid}${Date.now()}`;
		const log = join(gate, "scans.log");
		const executable = writeScript(
			join(gate, "bin", "jscpd"),
			`if [ "$1" = "--version" ]; then exec '${realJscpd()}' --version; fi
echo scan >> '${log}'
if [ -f '${gate}/hold' ]; then rm -f '${gate}/hold'; touch '${gate}/started'; sh -c 'sleep 600; : ${marker}'; fi
exec '${realJscpd()}' "$@"`,
		);
		const s = await jscpdSession({ project: root, agentDir, jscpd: { executable } });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		writeFileSync(join(gate, "hold"), "");
		s.script(
			toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
			reply("done"),
		);
		await s.prompt("write");
		await waitFor(() => expect(existsSync(join(gate, "started"))).toBe(true));
		const old = s.controller;
		await s.reload();
		// Reload resolved only after the owned process tree was gone.
		expect(processesWith(marker)).toEqual([]);
		expect(old.status().scheduler.closed).toBe(true);
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
		// Scans: the baseline, the held automatic check; none at shutdown (the reloaded runtime restores the baseline).
		await s.controller.settled();
		const { readFileSync } = await import("node:fs");
		expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["scan", "scan"]);
	});
});
