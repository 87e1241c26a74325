/** Issue 23: the restore walk and the accounting replay (pure). */
import { describe, expect, it } from "vitest";
import { EMPTY_STATE } from "../src/core/goal-machine.js";
import {
	persistWorthy,
	type RestoreLookup,
	restoreBranch,
	scanBranch,
	stateEntryData,
} from "../src/core/persistence.js";
import { readAnchor, replayAfter } from "../src/core/replay.js";
import {
	CONTINUATION_MESSAGE,
	CONTRACT_MESSAGE,
	type GoalRecord,
	type GoalState,
	STATE_ENTRY,
} from "../src/core/types.js";
import { goalRecord } from "./goal-record.js";

type Entry = { id: string; parentId: string | null; timestamp: string; [key: string]: unknown };

/** A linear branch over `entries` that counts getEntry calls (the cost of the walk). */
function branch(entries: Record<string, unknown>[]): RestoreLookup & { reads: number } {
	const byId = new Map<string, Entry>();
	for (const [i, entry] of entries.entries())
		byId.set(`e${i}`, {
			...entry,
			id: `e${i}`,
			parentId: i === 0 ? null : `e${i - 1}`,
			timestamp: new Date(1_000_000 + i * 1000).toISOString(),
		});
	const lookup = {
		reads: 0,
		getLeafId: () => (entries.length > 0 ? `e${entries.length - 1}` : null),
		getEntry(id: string) {
			lookup.reads++;
			return byId.get(id) as never;
		},
		getBranch: () => [...byId.values()],
	};
	return lookup;
}

const assistant = (tokens: number, content: unknown[] = [{ type: "text", text: "working" }]) => ({
	type: "message",
	message: { role: "assistant", usage: { totalTokens: tokens }, stopReason: "stop", content },
});
const toolUse = (tokens: number) =>
	assistant(tokens, [{ type: "toolCall", id: "c", name: "noop", arguments: {} }]);
const continuation = (goalId: string, iteration: number, kind = "continuation") => ({
	type: "custom_message",
	customType: CONTINUATION_MESSAGE,
	details: { goalId, iteration, nonce: "n", kind },
});

function active(overrides: Partial<GoalRecord> = {}): GoalState {
	return {
		goal: goalRecord({ id: "g-1", status: "active", usage: { spent: 0, baseline: 0 }, ...overrides }),
		revision: 1,
	};
}

describe("restore walk and accounting replay", () => {
	it("restore is O(new entries): it stops at the newest state entry once the window is known", () => {
		const old = Array.from({ length: 5_000 }, () => toolUse(1));
		const state = {
			type: "custom",
			customType: STATE_ENTRY,
			data: stateEntryData(active(), { tokens: 5_000, automatic: false }),
		};
		const contract = {
			type: "custom_message",
			customType: CONTRACT_MESSAGE,
			details: { revision: 1, goalId: "g-1", active: true },
		};
		const session = branch([...old, contract, state, toolUse(10), toolUse(10)]);
		const restored = restoreBranch(session);
		expect(session.reads).toBeLessThanOrEqual(5);
		expect(restored.branchTotal).toBe(5_020);
		expect(restored.windowRevision).toBe(1);
		expect(restored.state.goal?.status).toBe("active");
	});

	it("the window's contract revision includes the part a compaction kept (as the live walk after session_compact reads it)", () => {
		const contract = {
			type: "custom_message",
			customType: CONTRACT_MESSAGE,
			details: { revision: 2, goalId: "g-1", active: true },
		};
		const anchored = {
			type: "custom",
			customType: STATE_ENTRY,
			data: stateEntryData(active(), { tokens: 1, automatic: false }),
		};
		const legacy = { type: "custom", customType: STATE_ENTRY, data: { v: 1, state: active() } };
		const compaction = (firstKeptEntryId: string) => ({ type: "compaction", firstKeptEntryId });
		for (const state of [anchored, legacy]) {
			// e0 summarised, e1 (contract) kept by the compaction e3.
			const kept = [toolUse(1), contract, state, compaction("e1"), toolUse(1)];
			expect(restoreBranch(branch(kept)).windowRevision).toBe(2);
			expect(scanBranch(branch(kept).getBranch() as never).windowRevision).toBe(2);
			// The contract was summarised (kept from e2): the window misses it.
			const summarised = [toolUse(1), contract, state, compaction("e2"), toolUse(1)];
			expect(restoreBranch(branch(summarised)).windowRevision).toBe(-1);
			expect(scanBranch(branch(summarised).getBranch() as never).windowRevision).toBe(-1);
		}
		// An older compaction inside the kept range ends the window there.
		const older = [contract, compaction("e1"), anchored, compaction("e0"), toolUse(1)];
		expect(restoreBranch(branch(older)).windowRevision).toBe(-1);
	});

	it("a state entry without a replay anchor (older format) falls back to the full scan", () => {
		const state = {
			type: "custom",
			customType: STATE_ENTRY,
			data: { v: 1, state: active({ usage: { spent: 0, baseline: 3 } }) },
		};
		const restored = restoreBranch(branch([toolUse(3), state, toolUse(4)]));
		expect(restored.branchTotal).toBe(7);
	});

	it("no state entry: the empty state, nothing to replay", () => {
		const restored = restoreBranch(branch([toolUse(3), toolUse(4)]));
		expect(restored.state).toBe(EMPTY_STATE);
		expect(restored.windowRevision).toBe(-1);
	});

	it("a malformed newest state entry is skipped and counted; the one before it is replayed from", () => {
		const good = {
			type: "custom",
			customType: STATE_ENTRY,
			data: stateEntryData(active(), { tokens: 0, automatic: false }),
		};
		const bad = { type: "custom", customType: STATE_ENTRY, data: { v: 1, state: { revision: "x" } } };
		const restored = restoreBranch(branch([good, toolUse(5), bad, toolUse(5)]));
		expect(restored.ignored).toBe(1);
		expect(restored.branchTotal).toBe(10);
	});

	it("replay: every response of an active goal counts, a user message inside its work too (issue 30)", () => {
		const entries = [
			toolUse(1), // the anchored run is automatic
			continuation("g-other", 9), // another goal's prompt changes nothing
			assistant(1),
			{ type: "message", message: { role: "user", content: "hi" } },
			assistant(1), // answers the user: still counted while the goal is active
			continuation("g-1", 3),
			assistant(1), // automatic
		];
		const replayed = replayAfter(active(), { tokens: 100, automatic: true }, entries as never, 0);
		expect(replayed.branchTotal).toBe(104);
		expect(replayed.state.goal?.safety.automaticTurns).toBe(4);
		expect(replayed.state.goal?.iteration).toBe(3);
	});

	it("replay: identical tool-free replies feed the no-progress counter; aborted responses are not counted", () => {
		const aborted = { type: "message", message: { role: "assistant", stopReason: "aborted", content: [] } };
		// The entry was written during the kickoff: goal-owned, not automatic.
		const replayed = replayAfter(
			active(),
			{ tokens: 0, automatic: false, goalWork: true },
			[assistant(1), aborted, assistant(1)] as never,
			0,
		);
		expect(replayed.state.goal?.safety.noProgress).toBe(2);
	});

	it("replay: a tool-call response still held when the entry was written is counted while its goal is active", () => {
		const held = { goalId: "g-1", automatic: true, goalWork: true };
		const anchor = readAnchor({ tokens: 0, automatic: true, goalWork: true, held }) as never;
		expect(replayAfter(active(), anchor, [], 0).state.goal?.safety.automaticTurns).toBe(1);
		// goal_complete stopped it: the live flush drops it too.
		const complete = active({ status: "complete" });
		expect(replayAfter(complete, anchor, [], 0).state).toBe(complete);
	});

	it("replay: a manual run's response of an active goal counts like any other (issue 30)", () => {
		const goal = active().goal as GoalRecord;
		const counted = active({ safety: { ...goal.safety, noProgress: 1, fingerprint: "x" } });
		const manual = replayAfter(
			counted,
			{ tokens: 0, automatic: false, goalWork: false },
			[assistant(1)] as never,
			0,
		);
		expect(manual.state.goal?.safety.automaticTurns).toBe(1);
		// An anchor written before goalWork was recorded: goal-owned exactly when automatic.
		expect(readAnchor({ tokens: 0, automatic: true })).toEqual({
			tokens: 0,
			automatic: true,
			goalWork: true,
		});
		expect(readAnchor({ tokens: 0, automatic: false, goalWork: true })?.goalWork).toBe(true);
	});

	it("replay: the time the branch shows after the entry is added to a working goal's clock only", () => {
		const working = replayAfter(active(), { tokens: 0, automatic: false }, [], 5_000);
		expect(working.state.goal?.clock.activeMs).toBe(5_000);
		const waiting = active({ wait: { reason: "ci", resumeAt: null, kind: "explicit" } });
		expect(replayAfter(waiting, { tokens: 0, automatic: false }, [], 5_000).state).toBe(waiting);
	});

	it("persistWorthy: per-turn counters are not worth an entry; status, wait, epoch and revision are", () => {
		const before = active();
		const goal = before.goal as GoalRecord;
		expect(persistWorthy(before, { ...before, goal: { ...goal, iteration: 4 } })).toBe(false);
		expect(
			persistWorthy(before, { ...before, goal: { ...goal, safety: { ...goal.safety, automaticTurns: 2 } } }),
		).toBe(false);
		expect(
			persistWorthy(before, { ...before, goal: { ...goal, safety: { ...goal.safety, epoch: 9 } } }),
		).toBe(true);
		expect(persistWorthy(before, { ...before, goal: { ...goal, status: "paused" } })).toBe(true);
		expect(
			persistWorthy(before, { ...before, goal: { ...goal, wait: { reason: "x", resumeAt: null } } }),
		).toBe(true);
		expect(persistWorthy(before, { ...before, revision: 2 })).toBe(true);
	});
});
