/**
 * Saved state and bounded crash output: baseline files are read only when they are regular files
 * inside pi-jscpd's own baseline directory (a FIFO never blocks), ignored state is reported once
 * per runtime, and a crash's stderr keeps its head and its tail so the final error is shown.
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { reply } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
	type BaselineFile,
	baselineDirectory,
	baselinePath,
	loadBaseline,
	MAX_BASELINE_BYTES,
	readBaseline,
} from "../src/adapters/baseline.js";
import { BoundedBuffer, ELISION_MARKER } from "../src/adapters/runner.js";
import { crashDetail, MAX_CRASH_DETAIL } from "../src/adapters/scan.js";
import { MutationState, replayBranch } from "../src/core/mutations.js";
import {
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	remove,
	tempDir,
	waitFor,
	writeFiles,
} from "./helpers.js";

const run = promisify(execFile);
const dirs: string[] = [];
let h: JscpdSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

function agent() {
	const agentDir = tempDir("pi-jscpd-saved-");
	dirs.push(agentDir);
	const dir = baselineDirectory(agentDir);
	mkdirSync(dir, { recursive: true });
	return { agentDir, dir };
}

const ROOT = "/project";
const VALID: BaselineFile = {
	version: 2,
	sessionId: "s",
	root: ROOT,
	capturedAt: "2026-01-01T00:00:00.000Z",
	complete: true,
	groups: 1,
	lines: { "a.ts": "1f 2e" },
};

/**
 * Makes a FIFO and a writer that opens it after `afterMs`: a reader that blocked on it (a
 * synchronous read blocks the whole test worker) is released then, so the test fails by its
 * elapsed time instead of hanging. The writer is killed by the returned function.
 */
async function fifoWithLateWriter(path: string, afterMs: number): Promise<() => void> {
	await run("mkfifo", [path]);
	const writer = spawn("sh", ["-c", `sleep ${afterMs / 1000}; printf x > "$0"`, path], { stdio: "ignore" });
	return () => {
		writer.kill("SIGKILL");
	};
}

describe("baseline files are read only when they are regular files in the baseline directory", () => {
	it("a FIFO named by a state entry is refused without blocking, inside or outside the directory", async () => {
		const { dir } = agent();
		const fifo = join(dir, "fifo.json");
		const stop = await fifoWithLateWriter(fifo, 3_000);
		try {
			const started = performance.now();
			const read = loadBaseline(fifo, ROOT, dir);
			expect(readBaseline(fifo, ROOT)).toBeUndefined();
			expect(performance.now() - started).toBeLessThan(1_000);
			expect(read).toMatchObject({ ok: false, reason: expect.stringContaining("not a regular file") });
		} finally {
			stop();
		}
	});

	it("a file outside the baseline directory, a symlink and a device are refused; a valid file is read", () => {
		const { agentDir, dir } = agent();
		const outside = join(agentDir, "elsewhere.json");
		writeFileSync(outside, JSON.stringify(VALID));
		expect(loadBaseline(outside, ROOT, dir)).toMatchObject({
			ok: false,
			reason: expect.stringContaining("not a file in"),
		});
		expect(loadBaseline(join(dir, "..", "elsewhere.json"), ROOT, dir).ok).toBe(false);
		expect(loadBaseline("/etc/passwd", ROOT, dir).ok).toBe(false);
		expect(loadBaseline("/dev/zero", ROOT).ok).toBe(false);
		const link = join(dir, "link.json");
		symlinkSync(outside, link);
		expect(loadBaseline(link, ROOT, dir)).toMatchObject({
			ok: false,
			reason: expect.stringContaining("not a regular file"),
		});
		const good = baselinePath(agentDir, "s");
		writeFileSync(good, JSON.stringify(VALID));
		expect(loadBaseline(good, ROOT, dir)).toEqual({ ok: true, file: VALID });
		expect(loadBaseline(good, "/other", dir)).toMatchObject({
			ok: false,
			reason: expect.stringContaining("another project"),
		});
	});

	it("a baseline file larger than the bound is refused by its size", () => {
		const { agentDir, dir } = agent();
		const big = baselinePath(agentDir, "big");
		writeFileSync(big, Buffer.alloc(MAX_BASELINE_BYTES + 1, 0x20));
		expect(loadBaseline(big, ROOT, dir)).toMatchObject({
			ok: false,
			reason: expect.stringContaining("larger"),
		});
	});
});

describe("ignored saved state is reported once per runtime", () => {
	it("a state entry naming a FIFO: session_start does not hang, one warning, a new baseline is captured", async () => {
		const project = tempDir("pi-jscpd-saved-project-");
		const { agentDir } = agent();
		dirs.push(project);
		writeFiles(project, { "src/a.ts": "export const a = 1;\n" });
		const first = await jscpdSession({ project, agentDir, session: "file" });
		h = first;
		await waitFor(() => expect(hasBaseline(first)).toBe(true));
		const file = first.controller.status().baseline.file as string;
		// Pi writes the session file once the session has an answer.
		first.script(reply("hello"));
		await first.prompt("hi");
		const sessionFile = first.sessionFile as string;
		await first.dispose({ keepFiles: true });
		h = undefined;
		dirs.push(join(sessionFile, "..", ".."));
		rmSync(file);
		const stop = await fifoWithLateWriter(file, 5_000);
		const errors = vi.spyOn(console, "error").mockImplementation(() => {});
		const started = performance.now();
		let resumed: JscpdSession;
		try {
			resumed = await jscpdSession({ project, agentDir, session: { open: sessionFile } });
			h = resumed;
			expect(performance.now() - started).toBeLessThan(4_000);
		} finally {
			stop();
		}
		await resumed.controller.settled();
		expect(resumed.controller.status().baseline).toMatchObject({ status: "accepted" });
		const warnings = errors.mock.calls.filter((call) =>
			String(call[0]).startsWith("pi-jscpd: ignored saved state"),
		);
		expect(warnings).toHaveLength(1);
		expect(String(warnings[0]?.[0])).toContain("not a regular file");
		// The recaptured baseline replaced the FIFO: the next runtime restores it without a word.
		await resumed.reload();
		await resumed.controller.settled();
		expect(resumed.controller.status().baseline).toMatchObject({ status: "accepted", file });
		expect(errors.mock.calls.filter((call) => String(call[0]).startsWith("pi-jscpd:"))).toHaveLength(1);
		expect(resumed.errors).toEqual([]);
	});

	it("replay counts findings messages whose details cannot be read", () => {
		const { malformed } = replayBranch(
			new MutationState(),
			[
				{ type: "custom_message", customType: "pi-jscpd/findings", details: { delivered: "all" } },
				{ type: "custom_message", customType: "pi-jscpd/findings", details: { delivered: [] } },
			],
			{ findingsType: "pi-jscpd/findings", canonical: (p) => p },
		);
		expect(malformed).toBe(1);
	});
});

describe("a crash's stderr keeps its head and its tail", () => {
	it("the buffer keeps the first eighth (at most 8 KiB) and the last bytes, with a marker between", () => {
		const buffer = new BoundedBuffer(64 * 1024);
		for (let i = 0; i < 20_000; i++) buffer.push(Buffer.from(`panic line ${i}\n`));
		buffer.push(Buffer.from("FINAL: out of memory\n"));
		const text = buffer.text();
		expect(buffer.truncated).toBe(true);
		expect(Buffer.byteLength(text)).toBeLessThanOrEqual(64 * 1024 + ELISION_MARKER.length + 2);
		expect(text.startsWith("panic line 0\n")).toBe(true);
		expect(text).toContain(`\n${ELISION_MARKER}\npanic line `);
		expect(text.endsWith("panic line 19999\nFINAL: out of memory\n")).toBe(true);
		const small = new BoundedBuffer(1024);
		small.push(Buffer.from("short"));
		expect(small.text()).toBe("short");
		expect(small.truncated).toBe(false);
	});

	it("the crash detail is the last meaningful lines, ending with the final error", () => {
		const node = [
			"/x/jscpd.js:10",
			"    throw error;",
			"    ^",
			"",
			"Error: ENOSPC: no space left on device",
			"    at write (node:fs:1)",
			"    at main (/x/jscpd.js:10:5)",
			"",
			"Node.js v22.0.0",
		].join("\n");
		expect(crashDetail(node)).toBe("/x/jscpd.js:10 throw error; Error: ENOSPC: no space left on device");
		const long = `${"y".repeat(1_000)}\nFINAL: out of memory\n`;
		const detail = crashDetail(long);
		expect(detail.length).toBeLessThanOrEqual(MAX_CRASH_DETAIL);
		expect(detail.endsWith("FINAL: out of memory")).toBe(true);
	});
});
