/**
 * Durability: a child process runs a goal-plus-reset schedule with all three extensions on a real
 * session file and is SIGKILLed at seeded points; Pi then reopens the file (`session: { open }`)
 * with the extensions loaded. The reopened branch must be consistent (no reset compaction without
 * its boot, no duplicated or stale continuation), restore must not throw, and the session must go
 * on working: the next prompt completes and the branch stays consistent.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { bundle } from "./support/bundle.js";
import { allExtensions, fakeJscpd, tempDir } from "./support/extensions.js";
import { type BranchEntry, branchViolations } from "./support/invariants.js";
import { FAULTS, SEED, Tally } from "./support/plan.js";

const here = dirname(fileURLToPath(import.meta.url));
const tally = new Tally();
const seen = { resetsReopened: 0, goalPromptsReopened: 0 };
afterAll(() => {
	console.log(`[reliability] durability coverage: ${JSON.stringify(seen)}`);
	for (const [name, n] of Object.entries(seen)) expect(n, `${name} never happened`).toBeGreaterThan(0);
	tally.verify("durability", { durabilityKills: FAULTS.durabilityKills });
});

let child = "";
beforeAll(async () => {
	child = await bundle(join(here, "support", "durability-child.ts"));
}, 60_000);

let harness: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
});

/** Kill points: after which STEP line, and how long after it (ms), seeded. */
const KILLS = fc.sample(fc.tuple(fc.integer({ min: 0, max: 24 }), fc.integer({ min: 0, max: 15 })), {
	seed: SEED + 500,
	numRuns: FAULTS.durabilityKills,
});

function runUntilKilled(
	agentDir: string,
	step: number,
	delayMs: number,
): Promise<{ file: string; steps: number }> {
	return new Promise((resolve, reject) => {
		const proc: ChildProcess = spawn(process.execPath, [child, agentDir], {
			stdio: ["ignore", "pipe", "pipe"],
		});
		let file = "";
		let steps = 0;
		let buffer = "";
		let stderr = "";
		let killed = false;
		const timer = setTimeout(() => {
			if (!killed) proc.kill("SIGKILL");
		}, 30_000);
		proc.stderr?.on("data", (chunk: Buffer) => {
			stderr += chunk.toString();
		});
		proc.stdout?.on("data", (chunk: Buffer) => {
			buffer += chunk.toString();
			const lines = buffer.split("\n");
			buffer = lines.pop() ?? "";
			for (const line of lines) {
				if (line.startsWith("FILE ")) file = line.slice(5);
				if (line.startsWith("STEP ")) steps = Number(line.slice(5));
				if (!killed && file && steps >= step) {
					killed = true;
					setTimeout(() => proc.kill("SIGKILL"), delayMs);
				}
			}
		});
		proc.on("exit", (_code, signal) => {
			clearTimeout(timer);
			if (signal !== "SIGKILL" || !file)
				reject(new Error(`child ended with ${signal}: ${stderr.slice(-2000)}`));
			else resolve({ file, steps });
		});
	});
}

describe("durability: SIGKILL during a goal-plus-reset run, then reopen", () => {
	KILLS.forEach(([step, delayMs], index) => {
		it(`kill ${index + 1}: after step ${step} + ${delayMs} ms, the reopened session is consistent and keeps working`, async () => {
			const agentDir = tempDir("pi-reliability-durable-");
			const { file } = await runUntilKilled(agentDir, step, delayMs);
			expect(existsSync(file)).toBe(true);
			vi.spyOn(console, "error").mockImplementation(() => {});
			mkdirSync(join(agentDir, "pi-lifecycle"), { recursive: true });
			writeFileSync(join(agentDir, "pi-lifecycle", "pi-goal.json"), JSON.stringify({ automaticTurns: 3 }));
			harness = await createScriptedSession({
				session: { open: file },
				extensions: allExtensions({ agentDir, jscpd: { executable: fakeJscpd(agentDir) } }),
				responses: [
					reply("resumed after the crash"),
					reply("and more"),
					reply("and more"),
					reply("and more"),
				],
			});
			const branch = () => harness?.session.sessionManager.getBranch() as unknown as BranchEntry[];
			expect(branch().length).toBeGreaterThan(0);
			seen.resetsReopened += branch().filter((e) => e.type === "compaction").length;
			seen.goalPromptsReopened += branch().filter((e) => e.customType === "pi-goal/continuation").length;
			expect(branchViolations(branch())).toEqual([]);
			expect(harness.errors).toEqual([]);
			await harness.prompt("carry on");
			for (let i = 0; i < 6; i++) {
				await harness.session.waitForIdle();
				await new Promise((r) => setImmediate(r));
			}
			expect(branchViolations(branch())).toEqual([]);
			expect(harness.errors).toEqual([]);
			tally.hit("durabilityKills");
		}, 60_000);
	});
});
