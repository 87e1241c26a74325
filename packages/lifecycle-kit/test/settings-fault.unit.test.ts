/**
 * Issue 33: a settings write that fails on a read-only or full disk says so (every package's `/… on|off`
 * saves through `saveSettings`). The fault is injected where the file is written.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { LocalFaultInjection } from "../src/testing/local-faults.js";

const faults = vi.hoisted(() => ({ code: undefined as LocalFaultInjection | undefined }));
vi.mock("node:fs", async (importOriginal) => {
	const { withTmpWriteFaults } = await import("../src/testing/local-faults.js");
	return withTmpWriteFaults(await importOriginal<typeof import("node:fs")>(), faults);
});

const { check, saveSettings } = await import("../src/index.js");

const spec = {
	name: "demo",
	defaults: { enabled: true },
	validate: (raw: unknown) =>
		check.isObject(raw)
			? { ok: true as const, value: raw as { enabled: boolean } }
			: { ok: false as const, issues: ["x"] },
};
const dirs: string[] = [];
afterEach(() => {
	faults.code = undefined;
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function location() {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "kit-settings-fault-")));
	dirs.push(root);
	const agentDir = join(root, "agent");
	mkdirSync(agentDir);
	return { agentDir, cwd: join(root, "project") };
}

describe("saveSettings on a local fault", () => {
	it("a read-only agent folder is named, with the next step", () => {
		const where = location();
		faults.code = "EROFS";
		const saved = saveSettings(spec, where, "global", { enabled: false });
		expect(saved.ok).toBe(false);
		expect(saved.ok ? "" : saved.error).toMatch(
			/^Pi's agent folder is read-only \(EROFS: .*demo\.json.*\.tmp\); make it writable/,
		);
	});

	it("a full disk says to free disk space", () => {
		const where = location();
		faults.code = "ENOSPC";
		const saved = saveSettings(spec, where, "global", { enabled: false });
		expect(saved.ok ? "" : saved.error).toMatch(
			/^the disk holding Pi's agent folder is full .*; free disk space$/,
		);
	});

	it("a disk that fills during the write (Node names no path then): the agent folder is still named", () => {
		const where = location();
		faults.code = "ENOSPC-write";
		const saved = saveSettings(spec, where, "global", { enabled: false });
		expect(saved.ok ? "" : saved.error).toMatch(
			/^the disk holding Pi's agent folder is full \(ENOSPC: .*demo\.json.*\.tmp\); free disk space$/,
		);
	});
});
