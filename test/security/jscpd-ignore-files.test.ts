/**
 * Issue 33, pi-jscpd's part: what an untrusted repository controls around jscpd.
 * - Ignore files jscpd reads by itself (`.ignore` in and above every scanned folder,
 *   `.git/info/exclude` even with `--no-gitignore`): a FIFO hung every scan until the timeout and a
 *   huge one drove jscpd to the memory cap. Each is inspected first (regular file, bounded size);
 *   a refused one never reaches jscpd (it gets the walked files one by one) and is named.
 * - A `.git` file pointing outside the project (`gitdir: /elsewhere`) is never followed: the
 *   `commondir` and `info/exclude` there decide nothing.
 * - A timeout or the memory cap names what the project gave jscpd.
 * - Temp dirs left by a killed Pi process are removed at the next start.
 * Real jscpd (the pinned binary) throughout.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
	type Capability,
	pinnedCandidate,
	probeCapability,
} from "../../packages/pi-jscpd/src/adapters/locate.js";
import { ProcessRunner } from "../../packages/pi-jscpd/src/adapters/runner.js";
import { runScan } from "../../packages/pi-jscpd/src/adapters/scan.js";
import { fakeJscpd, tempDir } from "../reliability/support/extensions.js";
import { duplicated, openJscpdSession, put, sandbox } from "./support/hostile.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

async function pinned(runner: ProcessRunner, cwd: string): Promise<Capability> {
	const candidate = pinnedCandidate();
	if (!candidate) throw new Error("the pinned jscpd is not installed");
	return probeCapability(runner, [candidate], { cwd });
}

/** A project with one duplicated block (src/a.ts ≈ src/b.ts). */
function duplicatedProject(prefix: string) {
	const s = sandbox(prefix);
	put(join(s.root, "src", "a.ts"), duplicated("first"));
	put(join(s.root, "src", "b.ts"), duplicated("second"));
	return s;
}

async function scanRoot(root: string, trusted: boolean, timeoutMs = 15_000) {
	const temp = tempDir("pi-security-temp-");
	const runner = new ProcessRunner({ tempRoot: temp });
	runner.bind({ root, trusted });
	const capability = await pinned(runner, root);
	const started = Date.now();
	const outcome = await runScan(runner, capability, { root, paths: [], timeoutMs });
	return { outcome, ms: Date.now() - started };
}

describe("security: ignore files jscpd would read are inspected first", () => {
	for (const trusted of [false, true]) {
		const who = trusted ? "trusted" : "untrusted";
		it(`${who}: a FIFO as src/.ignore never reaches jscpd; the scan finishes and finds the copy`, async () => {
			const s = duplicatedProject("pi-security-fifo-ignore-");
			expect(spawnSync("mkfifo", [join(s.root, "src", ".ignore")]).status).toBe(0);
			const { outcome } = await scanRoot(s.root, trusted);
			expect(outcome.status).toBe("ok");
			expect(outcome.status === "ok" && outcome.report.groups.length).toBe(1);
		});
	}

	it("untrusted: a FIFO as .git/info/exclude never reaches jscpd; the scan finishes and finds the copy", async () => {
		const s = duplicatedProject("pi-security-fifo-exclude-");
		mkdirSync(join(s.root, ".git", "info"), { recursive: true });
		expect(spawnSync("mkfifo", [join(s.root, ".git", "info", "exclude")]).status).toBe(0);
		const { outcome } = await scanRoot(s.root, false);
		expect(outcome.status).toBe("ok");
		expect(outcome.status === "ok" && outcome.report.groups.length).toBe(1);
	});

	it("untrusted: a huge .ignore (over the size bound) is skipped: its patterns do not hide the copy, jscpd never reads it", async () => {
		const s = duplicatedProject("pi-security-huge-ignore-");
		put(join(s.root, ".ignore"), `src/\n${"# padding line of a huge ignore file\n".repeat(40_000)}`);
		const { outcome } = await scanRoot(s.root, false);
		expect(outcome.status).toBe("ok");
		expect(outcome.status === "ok" && outcome.report.groups.length).toBe(1);
	});

	it("untrusted session: the skipped ignore file is named in /jscpd status, with why", async () => {
		const s = duplicatedProject("pi-security-fifo-status-");
		expect(spawnSync("mkfifo", [join(s.root, "src", ".ignore")]).status).toBe(0);
		const opened = await openJscpdSession(s.root, false);
		harness = opened.harness;
		const c = opened.controller;
		await vi.waitFor(() => expect(c.status().baseline.status).toBe("accepted"), { timeout: 30_000 });
		expect(c.status().baseline.groups).toBe(1);
		expect(c.status().skippedIgnoreFiles).toEqual([
			{ path: "src/.ignore", why: expect.stringContaining("not a regular file") },
		]);
	});
});

describe("security: an untrusted repository's .git file pointing outside is never followed", () => {
	it("the outside commondir's info/exclude does not decide the check: a copy it would hide is reported", async () => {
		const s = sandbox("pi-security-gitfile-");
		put(join(s.root, "src", "a.ts"), duplicated("first"));
		// A linked work tree pointing outside; the outside "repository" excludes gen/.
		put(join(s.outside, "repo", "info", "exclude"), "gen/\n");
		put(join(s.outside, "repo", "worktrees", "w", "commondir"), "../..\n");
		put(join(s.root, ".git"), `gitdir: ${join(s.outside, "repo", "worktrees", "w")}\n`);
		const opened = await openJscpdSession(s.root, false);
		harness = opened.harness;
		const c = opened.controller;
		await vi.waitFor(() => expect(c.status().baseline.status).toBe("accepted"), { timeout: 30_000 });
		harness.script(toolCall("write", { path: "gen/copy.ts", content: duplicated("copy") }), reply("done"));
		await harness.prompt("write gen/copy.ts");
		await vi.waitFor(() => expect(c.status().lastOutcome).toBeDefined(), { timeout: 30_000 });
		await c.settled();
		expect(c.status().lastOutcome?.kind).toBe("findings");
	});
});

describe("security: jscpd failures name what the project gave it", () => {
	it("a scan that times out says how many files the project gave jscpd and what to do", async () => {
		const s = duplicatedProject("pi-security-timeout-");
		const bin = tempDir("pi-security-bin-");
		const jscpd = fakeJscpd(bin, "sleep 30");
		const temp = tempDir("pi-security-temp-");
		const runner = new ProcessRunner({ tempRoot: temp, killGraceMs: 100 });
		runner.bind({ root: s.root, trusted: false });
		const capability = await probeCapability(runner, [{ command: jscpd, source: "override" }], {
			cwd: s.root,
		});
		const outcome = await runScan(runner, capability, { root: s.root, paths: [], timeoutMs: 1_000 });
		expect(outcome.status).toBe("timeout");
		const reason = outcome.status === "timeout" ? outcome.reason : "";
		expect(reason).toContain("the project gave jscpd 2 files");
		expect(reason).toContain("timeoutMs");
	});
});

describe("security: temp dirs of a killed Pi process", () => {
	it("the next start removes pi-jscpd temp dirs of dead processes (own, by pid) and leaves live ones", async () => {
		const temp = tempDir("pi-security-temp-");
		const dead = spawnSync("true").pid;
		const left = join(temp, `pi-jscpd-${dead}-abcdef`);
		const live = join(temp, `pi-jscpd-${process.ppid}-ghijkl`);
		const unrelated = join(temp, "pi-jscpd-other");
		for (const dir of [left, live, unrelated]) mkdirSync(join(dir, "inner"), { recursive: true });
		const runner = new ProcessRunner({ tempRoot: temp });
		runner.bind({ root: tmpdir(), trusted: false });
		expect(await runner.staleRemoved).toEqual([`pi-jscpd-${dead}-abcdef`]);
		expect(existsSync(left)).toBe(false);
		expect(existsSync(live)).toBe(true);
		expect(existsSync(unrelated)).toBe(true);
	});
});
