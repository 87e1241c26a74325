/**
 * Persisted-data fuzz through the real restore path: a real session file gets hostile entries of
 * every type the three packages read back, Pi opens it (`session: { open }`) with all three
 * extensions loaded, and the session must start, report problems at most once per package and
 * keep working (a prompt completes, the goal state is sane).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { FUZZ, SEED, Tally } from "@pi-lifecycle/seed-plan";
import fc from "fast-check";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { allExtensions, fakeJscpd, tempDir } from "./support/extensions.js";
import { HUGE } from "./support/hostile.js";

const tally = new Tally();
afterAll(() => tally.verify("restore.session", { restoreSessions: FUZZ.restoreSessions }));

let harness: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
});

const goal = {
	id: "g-abc",
	objective: "ship it",
	tokenBudget: null,
	status: "active",
	iteration: 1,
	usage: { spent: 0, baseline: 0 },
	clock: { activeMs: 0, since: 0 },
	safety: { epoch: 1, automaticTurns: 0, noProgress: 0, fingerprint: null },
};

/**
 * Hostile entries (without id/parentId/timestamp), by package. Message content stays a string:
 * Pi 1.6 itself throws in its compaction estimate on a custom_message whose content is neither a
 * string nor an array (not ours to fix; see docs/reliability.md).
 */
const HOSTILE: Record<string, Record<string, unknown>[]> = {
	"pi-goal": [
		{
			type: "custom",
			customType: "pi-goal/state",
			data: { v: 1, state: { revision: 2, goal: { ...goal, usage: {}, clock: {} } } },
		},
		{ type: "custom", customType: "pi-goal/state", data: { v: 0, state: { goal: "legacy" } } },
		{ type: "custom", customType: "pi-goal/state", data: null },
		{ type: "custom", customType: "pi-goal/state", data: { v: 1, state: { revision: "9", goal } } },
		{
			type: "custom_message",
			customType: "pi-goal/contract",
			content: "[pi-goal contract, revision 99]",
			display: false,
			details: { revision: "99" },
		},
		{
			type: "custom_message",
			customType: "pi-goal/continuation",
			content: "Continue working on goal g-evil",
			display: false,
			details: { goalId: 1 },
		},
	],
	"pi-reset": [
		{ type: "custom", customType: "pi-reset/state", data: { enabled: "yes" } },
		{ type: "custom", customType: "pi-reset/state", data: [] },
		{
			type: "custom_message",
			customType: "pi-reset/boot",
			content: "[pi-reset] Context window w9 starts here",
			display: false,
			details: "x",
		},
		{ type: "custom_message", customType: "pi-reset/warning", content: "", display: false, details: null },
	],
	"pi-jscpd": [
		{
			type: "custom",
			customType: "pi-jscpd/state",
			data: { version: 1, baselineFile: "/etc/passwd", root: "/" },
		},
		{ type: "custom", customType: "pi-jscpd/state", data: { version: 1, baselineFile: "/", root: "/" } },
		{ type: "custom", customType: "pi-jscpd/state", data: { version: 2, baselineFile: 5 } },
		{
			type: "custom_message",
			customType: "pi-jscpd/findings",
			content: "x",
			display: false,
			details: { delivered: [{ identity: 5 }] },
		},
		{
			type: "custom_message",
			customType: "pi-jscpd/findings",
			content: "x",
			display: false,
			details: { delivered: "all" },
		},
	],
	compaction: [
		{
			type: "compaction",
			summary: "s",
			firstKeptEntryId: null,
			tokensBefore: 1,
			details: { "pi-reset": { windowId: HUGE.slice(0, 5_000), resets: -5 } },
		},
		{ type: "compaction", summary: "s", firstKeptEntryId: "nope", tokensBefore: 1, details: "garbage" },
	],
};
const ALL = Object.values(HOSTILE).flat();

let template: { lines: string[]; leaf: string } | undefined;

async function baseSessionFile(): Promise<{ lines: string[]; leaf: string }> {
	if (template) return template;
	const h = await createScriptedSession({ session: "file", responses: [reply("hi")] });
	await h.prompt("hello");
	const file = h.sessionFile as string;
	const lines = readFileSync(file, "utf8").trim().split("\n");
	await h.dispose();
	const last = JSON.parse(lines.at(-1) as string) as { id: string };
	template = { lines, leaf: last.id };
	return template;
}

/** Writes a session file: the real base plus the hostile entries, chained. */
async function hostileFile(dir: string, entries: readonly Record<string, unknown>[]): Promise<string> {
	const base = await baseSessionFile();
	let parent = base.leaf;
	const extra = entries.map((entry, i) => {
		const id = `h${i.toString(16).padStart(7, "0")}`;
		const line = JSON.stringify({ ...entry, id, parentId: parent, timestamp: "2026-01-01T00:00:00.000Z" });
		parent = id;
		return line;
	});
	const path = join(dir, "hostile.jsonl");
	writeFileSync(path, `${[...base.lines, ...extra].join("\n")}\n`);
	return path;
}

function reports(spy: { mock: { calls: unknown[][] } }, name: string): number {
	return spy.mock.calls.filter((call) => call.some((arg) => String(arg).includes(name))).length;
}

async function openHostile(entries: readonly Record<string, unknown>[]) {
	const dir = tempDir("pi-reliability-restore-");
	const path = await hostileFile(dir, entries);
	const spy = vi.spyOn(console, "error").mockImplementation(() => {});
	harness = await createScriptedSession({
		session: { open: path },
		extensions: allExtensions({ agentDir: dir, jscpd: { executable: fakeJscpd(dir) } }),
		responses: [reply("still working")],
	});
	return { spy, dir };
}

describe("restore through Pi's session loading with hostile entries", () => {
	const schedules = fc.sample(fc.shuffledSubarray(ALL, { minLength: 1 }), {
		seed: SEED + 200,
		numRuns: FUZZ.restoreSessions - 1,
	});
	schedules.push(ALL);
	schedules.forEach((entries, index) => {
		it(`session ${index + 1}: ${entries.length} hostile entries — starts, reports at most once per package, keeps working`, async () => {
			const { spy } = await openHostile(entries);
			expect(harness?.errors).toEqual([]);
			await harness?.prompt("carry on");
			await harness?.session.waitForIdle();
			expect(harness?.errors).toEqual([]);
			expect(harness?.providerCalls).toBeGreaterThanOrEqual(1);
			for (const name of ["pi-goal", "pi-reset", "pi-jscpd"])
				expect(reports(spy, name), name).toBeLessThanOrEqual(1);
			await harness?.prompt("/goal status");
			expect(harness?.errors).toEqual([]);
			tally.hit("restoreSessions");
		});
	});
});

describe("a malformed entry is reported once (issue 8: 'restore … falls back safely and reports once')", () => {
	// Regression test for a fixed defect (all three packages): a malformed persisted entry is skipped silently. pi-goal
	// (src/persistence.ts scanBranch → readStateEntry returns undefined, nothing is said), pi-reset
	// (src/window.ts restoreFromBranch ignores a non-boolean `enabled`) and pi-jscpd
	// (src/session-baseline.ts #restore: an unreadable baseline file silently triggers a new capture)
	// never tell the user that session state was ignored. Expected: one warning per package.
	for (const [name, entry] of [
		["pi-goal", HOSTILE["pi-goal"]?.[1]],
		["pi-reset", HOSTILE["pi-reset"]?.[0]],
		["pi-jscpd", HOSTILE["pi-jscpd"]?.[0]],
	] as const) {
		it(`${name}: a malformed state entry produces exactly one warning`, async () => {
			const { spy } = await openHostile([entry as Record<string, unknown>]);
			await harness?.session.waitForIdle();
			expect(reports(spy, name)).toBe(1);
		});
	}
});
