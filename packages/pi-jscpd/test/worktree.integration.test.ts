/**
 * The git adapter of the outside-change probe, against a fake `git` on PATH that records how it was
 * called: it never takes git's optional index lock, and an aborted probe does not wait for git.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gitTopLevel } from "../src/adapters/git-probe.js";

let dir: string;
let savedPath: string | undefined;

/** Puts a fake `git` (a shell script body) first on PATH. */
function fakeGit(body: string): void {
	const bin = join(dir, "bin");
	mkdirSync(bin, { recursive: true });
	const script = join(bin, "git");
	writeFileSync(script, `#!/bin/sh\n${body}\n`);
	chmodSync(script, 0o755);
	process.env.PATH = `${bin}:${savedPath ?? ""}`;
}

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), "pi-jscpd-worktree-"));
	savedPath = process.env.PATH;
});
afterEach(() => {
	process.env.PATH = savedPath;
});

async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
	const start = Date.now();
	while (!check()) {
		if (Date.now() - start > timeoutMs) throw new Error("timed out");
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

describe("the outside-change probe's git calls", () => {
	it("the outside-change probe never takes git's optional index lock (GIT_OPTIONAL_LOCKS=0)", async () => {
		const seen = join(dir, "seen");
		fakeGit(`printf '%s' "$GIT_OPTIONAL_LOCKS" > '${seen}'\necho /repo`);
		expect(await gitTopLevel(dir, undefined, true)).toBe("/repo");
		expect(readFileSync(seen, "utf8")).toBe("0");
	});

	it("an aborted probe resolves at once and git is killed after the aborting call returned", async () => {
		const started = join(dir, "started");
		fakeGit(`: > '${started}'\nexec sleep 20`);
		const controller = new AbortController();
		const begin = Date.now();
		const result = gitTopLevel(dir, controller.signal, true);
		await until(() => existsSync(started));
		controller.abort();
		expect(await result).toBeUndefined();
		// Without the kill, git would run until the 5 s timeout.
		expect(Date.now() - begin).toBeLessThan(3_000);
	});

	it("an untrusted project: git is never run (its config could name programs)", async () => {
		const seen = join(dir, "seen");
		fakeGit(`: > '${seen}'\necho /repo`);
		expect(await gitTopLevel(dir)).toBeUndefined();
		expect(await gitTopLevel(dir, undefined, false)).toBeUndefined();
		expect(existsSync(seen)).toBe(false);
	});
});
