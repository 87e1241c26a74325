/**
 * Issue 33: a baseline that cannot be written because of a local fault (a read-only or full agent
 * folder) says so, with the next step. The fault is injected where the file is written.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LocalFaultInjection } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";

const faults = vi.hoisted(() => ({ code: undefined as LocalFaultInjection | undefined }));
vi.mock("node:fs", async (importOriginal) => {
	const { withTmpWriteFaults } = await import("@pi-lifecycle/lifecycle-kit/testing");
	return withTmpWriteFaults(await importOriginal<typeof import("node:fs")>(), faults);
});

const { baselinePath, writeBaseline } = await import("../src/adapters/baseline.js");

const dirs: string[] = [];
afterEach(() => {
	faults.code = undefined;
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const file = {
	version: 2,
	sessionId: "s",
	root: "/p",
	capturedAt: "",
	complete: true,
	groups: 0,
	lines: {},
} as never;

describe("baseline writes on a local fault", () => {
	it.each([
		["EROFS", /^Pi's agent folder is read-only \(EROFS: .*\); make it writable/],
		["ENOSPC", /^the disk holding Pi's agent folder is full \(ENOSPC: .*\); free disk space$/],
		[
			"ENOSPC-write",
			/^the disk holding Pi's agent folder is full \(ENOSPC: .*baselines.*\); free disk space$/,
		],
	] as const)("%s: the error names the folder and the next step", (code, text) => {
		const agentDir = realpathSync(mkdtempSync(join(tmpdir(), "jscpd-baseline-fault-")));
		dirs.push(agentDir);
		faults.code = code;
		expect(writeBaseline(baselinePath(agentDir, "s"), file)).toMatch(text);
	});
});
