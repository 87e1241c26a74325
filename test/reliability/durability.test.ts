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
import { SessionManager } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { FAULTS, SEED, Tally } from "@pi-lifecycle/seed-plan";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type RestoreLookup, restoreBranch } from "../../packages/pi-goal/src/core/persistence.js";
import { bundle } from "./support/bundle.js";
import { allExtensions, fakeJscpd, tempDir } from "./support/extensions.js";
import { type BranchEntry, branchViolations } from "./support/invariants.js";

const here = dirname(fileURLToPath(import.meta.url));
const tally = new Tally();
const seen = { resetsReopened: 0, goalPromptsReopened: 0, goalStatesReplayed: 0 };
afterAll(() => {
	tally.covered("durability", seen);
	tally.verify("durability", { durabilityKills: FAULTS.durabilityKills });
});

let child = "";
let budgetChild = "";
beforeAll(async () => {
	child = await bundle(join(here, "support", "durability-child.ts"));
	budgetChild = await bundle(join(here, "support", "budget-child.ts"));
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
		}, 80_000); // a loaded 2-core machine needs ~25 s to start the child
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

type TokenEntry = {
	type: string;
	customType?: string;
	message?: { role?: string; usage?: Record<string, number | undefined> };
};

function messageTokens(usage: Record<string, number | undefined> | undefined): number {
	const total = usage?.totalTokens;
	if (typeof total === "number" && Number.isFinite(total) && total >= 0) return total;
	const parts = ["input", "output", "cacheRead", "cacheWrite"].map((key) => usage?.[key] ?? 0);
	return parts.reduce((sum, part) => sum + (Number.isFinite(part) && part > 0 ? part : 0), 0);
}

/**
 * pi-goal writes no state entry per turn: its restore re-derives the token total from the entries
 * after the newest state entry (replay anchor). That total must be the branch's assistant token
 * total counted from the root, at whatever point the kill cut the file. Returns a mismatch or undefined.
 */
function restoredTokenMismatch(file: string): string | undefined {
	const manager = SessionManager.open(file);
	const branch = manager.getBranch() as unknown as TokenEntry[];
	if (!branch.some((e) => e.type === "custom" && e.customType === "pi-goal/state")) return undefined;
	let total = 0;
	for (const entry of branch)
		if (entry.type === "message" && entry.message?.role === "assistant")
			total += messageTokens(entry.message.usage);
	seen.goalStatesReplayed++;
	const restored = restoreBranch(manager as unknown as RestoreLookup).branchTotal;
	return restored === total ? undefined : `restored token total ${restored}, branch has ${total}`;
}

describe("durability: SIGKILL during a goal-plus-reset run, then reopen", () => {
	KILLS.forEach(([step, delayMs], index) => {
		it(`kill ${index + 1}: after step ${step} + ${delayMs} ms, the reopened session is consistent and keeps working`, async () => {
			const agentDir = tempDir("pi-reliability-durable-");
			const { file } = await runUntilKilled(agentDir, step, delayMs);
			expect(existsSync(file)).toBe(true);
			expect(restoredTokenMismatch(file)).toBeUndefined();
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
		}, 120_000);
	});
});

/**
 * Runs budget-child.ts until `killWhen` matches an output line (then SIGKILL at once); returns the
 * session file and the lines seen.
 */
function runBudgetUntil(
	agentDir: string,
	budget: number,
	killWhen: (line: string) => boolean,
): Promise<{ file: string; lines: string[] }> {
	return new Promise((resolve, reject) => {
		const proc = spawn(process.execPath, [budgetChild, agentDir, String(budget)], {
			stdio: ["ignore", "pipe", "pipe"],
		});
		const lines: string[] = [];
		let file = "";
		let buffer = "";
		let killed = false;
		const timer = setTimeout(() => proc.kill("SIGKILL"), 80_000);
		proc.stdout?.on("data", (chunk: Buffer) => {
			buffer += chunk.toString();
			const parts = buffer.split("\n");
			buffer = parts.pop() ?? "";
			for (const line of parts) {
				lines.push(line);
				if (line.startsWith("FILE ")) file = line.slice(5);
				if (!killed && file && killWhen(line)) {
					killed = true;
					proc.kill("SIGKILL");
				}
			}
		});
		proc.on("exit", (_code, signal) => {
			clearTimeout(timer);
			if (signal !== "SIGKILL" || !file)
				reject(new Error(`budget child ended with ${signal}: ${lines.slice(-5)}`));
			else resolve({ file, lines });
		});
	});
}

type StateEntry = {
	type: string;
	customType?: string;
	data?: { state?: { goal?: { status?: string } | null } };
};
type MessageEntry = { type: string; message?: { role?: string; usage?: { totalTokens?: number } } };

function goalStatus(h: ScriptedSession): string | undefined {
	const states = (h.session.sessionManager.getBranch() as unknown as StateEntry[]).filter(
		(e) => e.type === "custom" && e.customType === "pi-goal/state",
	);
	return states.at(-1)?.data?.state?.goal?.status ?? undefined;
}

function assistantTokens(h: ScriptedSession): number {
	let total = 0;
	for (const e of h.session.sessionManager.getBranch() as unknown as MessageEntry[])
		if (e.type === "message" && e.message?.role === "assistant") total += e.message.usage?.totalTokens ?? 0;
	return total;
}

async function reopen(file: string, agentDir: string, responses: number): Promise<ScriptedSession> {
	const opened = await createScriptedSession({
		session: { open: file },
		recorderPosition: "first",
		extensions: allExtensions({ agentDir, jscpd: { executable: fakeJscpd(agentDir) } }),
		responses: Array.from({ length: responses }, (_, i) =>
			i % 5 === 4
				? toolCall("new_context", { handoff: `after ${i}` })
				: toolCall("read", { path: "notes.txt" }),
		),
	});
	opened.setUsage({ input: 400, output: 0, totalTokens: 400 });
	for (let i = 0; i < 6; i++) {
		await opened.session.waitForIdle();
		await new Promise((r) => setImmediate(r));
	}
	return opened;
}

describe("durability: a budget stop holds across a SIGKILL", () => {
	it("a budget stop still holds after a crash: the reopened goal stays budget_limited and sends nothing", async () => {
		const agentDir = tempDir("pi-reliability-budget-");
		const { file, lines } = await runBudgetUntil(agentDir, 2_000, (line) => line.startsWith("SETTLED "));
		expect(lines).toContain("SETTLED budget_limited");
		vi.spyOn(console, "error").mockImplementation(() => {});
		harness = await reopen(file, agentDir, 10);
		expect(goalStatus(harness)).toBe("budget_limited");
		expect(harness.providerCalls).toBe(0);
		expect(harness.errors).toEqual([]);
	}, 120_000);

	it("a crash mid-run before the budget: the tokens spent before it still count, and the goal stops at its budget", async () => {
		const agentDir = tempDir("pi-reliability-budget-");
		const budget = 4_000; // 10 responses of 400 tokens
		const { file } = await runBudgetUntil(agentDir, budget, (line) => line === "STEP 6");
		vi.spyOn(console, "error").mockImplementation(() => {});
		harness = await reopen(file, agentDir, 20);
		const before = assistantTokens(harness) - harness.providerCalls * 400;
		expect(before).toBeGreaterThanOrEqual(6 * 400);
		// The restored goal went on by itself and stopped once the budget was spent, counting the
		// tokens from before the crash (no state entry recorded them: none is written per turn).
		expect(goalStatus(harness)).toBe("budget_limited");
		expect(harness.providerCalls).toBeLessThanOrEqual(Math.ceil((budget - before) / 400) + 1);
		expect(harness.providerCalls).toBeGreaterThan(0);
		expect(branchViolations(harness.session.sessionManager.getBranch() as unknown as BranchEntry[])).toEqual(
			[],
		);
		expect(harness.errors).toEqual([]);
	}, 120_000);
});
