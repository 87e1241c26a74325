import { initialIdentity, nextIdentity } from "@pi-lifecycle/lifecycle-kit";
import { describe, expect, it } from "vitest";
import {
	acksOfChangedDetails,
	type DeliveryEntry,
	deliveredBy,
	type EntryLookup,
	lostAtReset,
	MAX_RESET_WALK,
} from "../src/core/deliveries.js";
import { MutationState, type ReplayEntry, replayBranch } from "../src/core/mutations.js";
import { blockReason, endsInRecovery, isContinuationStart } from "../src/core/triggers.js";

const FINDINGS = "pi-jscpd/findings";

/** Entries given in branch order get ids e0, e1, … and parent links. */
function branch(...entries: Omit<DeliveryEntry, "id" | "parentId">[]): DeliveryEntry[] {
	return entries.map((entry, i) => ({ ...entry, id: `e${i}`, parentId: i === 0 ? null : `e${i - 1}` }));
}

function lookup(entries: readonly DeliveryEntry[]): EntryLookup {
	const byId = new Map(entries.map((e) => [e.id as string, e]));
	return { getLeafId: () => entries.at(-1)?.id ?? null, getEntry: (id) => byId.get(id) };
}

const findings = (...identities: string[]) => ({
	type: "custom_message",
	customType: FINDINGS,
	details: { delivered: identities.map((identity) => ({ identity, paths: ["b.ts"] })) },
});
const changedResult = (...identities: string[]) => ({
	type: "message",
	message: {
		role: "toolResult",
		toolName: "jscpd_run",
		isError: false,
		details: {
			command: "changed",
			findings: identities.map((identity) => ({ identity, locations: [{ path: "a.ts" }, { path: "b.ts" }] })),
		},
	},
});
const answer = { type: "message", message: { role: "assistant" } };
const user = { type: "message", message: { role: "user" } };
const reset = (firstKept?: string) => ({ type: "compaction", firstKeptEntryId: firstKept });

/** A retain-none compaction points at itself. */
function withReset(entries: DeliveryEntry[], at: number, firstKept?: string): DeliveryEntry[] {
	const entry = entries[at] as DeliveryEntry;
	entries[at] = { ...entry, firstKeptEntryId: firstKept ?? entry.id };
	return entries;
}

describe("what was delivered to the model", () => {
	it("a findings message and a jscpd_run changed result deliver; other results and errors do not", () => {
		expect(deliveredBy(branch(findings("x"))[0] as DeliveryEntry, FINDINGS).map((a) => a.identity)).toEqual([
			"x",
		]);
		expect(deliveredBy(changedResult("y") as DeliveryEntry, FINDINGS)).toEqual([
			{ identity: "y", paths: ["a.ts", "b.ts"] },
		]);
		const failed = { ...changedResult("y"), message: { ...changedResult("y").message, isError: true } };
		expect(deliveredBy(failed as DeliveryEntry, FINDINGS)).toEqual([]);
		expect(acksOfChangedDetails({ command: "scan", findings: [{ identity: "z", locations: [] }] })).toEqual(
			[],
		);
		expect(acksOfChangedDetails({ command: "changed", findings: [{ identity: 3 }, null] })).toEqual([]);
	});
});

describe("deliveries a reset dropped unseen", () => {
	it("a delivery after the last answer and before a retain-none reset is lost", () => {
		const entries = withReset(branch(user, answer, findings("x"), reset(), findings("n")), 3);
		expect(lostAtReset(lookup(entries), "e3", FINDINGS).map((a) => a.identity)).toEqual(["x"]);
	});

	it("a delivery the model answered after is not lost", () => {
		const entries = withReset(branch(user, findings("x"), answer, reset()), 3);
		expect(lostAtReset(lookup(entries), "e3", FINDINGS)).toEqual([]);
	});

	it("a jscpd_run changed result the reset dropped before any answer is lost", () => {
		const entries = withReset(branch(user, answer, changedResult("y"), reset()), 3);
		expect(lostAtReset(lookup(entries), "e3", FINDINGS).map((a) => a.identity)).toEqual(["y"]);
	});

	it("with a kept range, deliveries in it stay visible and the ones just before it are lost", () => {
		// A reset that keeps from the run's first entry (e2): e1 was dropped unseen, e3 is kept.
		const entries = withReset(branch(answer, findings("x"), user, findings("k"), answer, reset()), 5, "e2");
		expect(lostAtReset(lookup(entries), "e5", FINDINGS).map((a) => a.identity)).toEqual(["x"]);
	});

	it("an identity delivered again in the new window is not lost", () => {
		const entries = withReset(branch(answer, findings("x", "z"), reset(), findings("x")), 2);
		expect(lostAtReset(lookup(entries), "e2", FINDINGS).map((a) => a.identity)).toEqual(["z"]);
	});

	it("a walk stops at an older compaction", () => {
		const entries = withReset(withReset(branch(findings("old"), reset(), findings("x"), reset()), 1), 3);
		expect(lostAtReset(lookup(entries), "e3", FINDINGS).map((a) => a.identity)).toEqual(["x"]);
	});

	it("an announcement for an entry that is not on the branch, or not a compaction, changes nothing", () => {
		const entries = withReset(branch(findings("x"), reset()), 1);
		expect(lostAtReset(lookup(entries), "missing", FINDINGS)).toEqual([]);
		expect(lostAtReset(lookup(entries), "e0", FINDINGS)).toEqual([]);
		const other = withReset(branch(findings("x"), reset(), answer), 1);
		expect(lostAtReset({ ...lookup(other), getLeafId: () => "e0" }, "e1", FINDINGS)).toEqual([]);
	});

	it(`the walk is bounded (${MAX_RESET_WALK} entries)`, () => {
		const long = [...Array.from({ length: MAX_RESET_WALK + 5 }, () => user)];
		const entries = withReset(branch(findings("x"), reset(), ...long), 1);
		expect(lostAtReset(lookup(entries), "e1", FINDINGS)).toEqual([]);
	});
});

describe("replay", () => {
	it("a reset withdraws deliveries made since the last answer; later deliveries acknowledge again", () => {
		const state = new MutationState();
		const entries = withReset(
			branch(answer, findings("seen"), answer, findings("x"), changedResult("y"), reset(), answer),
			5,
		) as ReplayEntry[];
		replayBranch(state, entries, { findingsType: FINDINGS, canonical: (p) => p });
		expect(state.isAcknowledged("seen")).toBe(true);
		expect(state.isAcknowledged("x")).toBe(false);
		expect(state.isAcknowledged("y")).toBe(false);
		replayBranch(state, [...entries, { ...findings("x"), id: "n", parentId: "e6" }] as ReplayEntry[], {
			findingsType: FINDINGS,
			canonical: (p) => p,
		});
		expect(state.isAcknowledged("x")).toBe(true);
	});

	it("a jscpd_run changed result acknowledges what it listed", () => {
		const state = new MutationState();
		replayBranch(state, [changedResult("y")] as ReplayEntry[], {
			findingsType: FINDINGS,
			canonical: (p) => p,
		});
		expect(state.isAcknowledged("y")).toBe(true);
		state.record("b.ts");
		expect(state.isAcknowledged("y")).toBe(false);
	});
});

describe("triggers", () => {
	const apply = (...types: ("before_agent_start" | "agent_start" | "agent_settled")[]) =>
		types.reduce(
			(s, type) => nextIdentity(s, { type }),
			nextIdentity(initialIdentity("n"), { type: "session_start", sessionId: "s" }),
		);

	it("a boundary continuation is an agent_start that is not the first of its run", () => {
		const first = apply("before_agent_start", "agent_start");
		expect(isContinuationStart(0, first)).toBe(false);
		const continued = apply("before_agent_start", "agent_start", "agent_start");
		expect(isContinuationStart(first.run, continued)).toBe(true);
		const nextRun = apply(
			"before_agent_start",
			"agent_start",
			"agent_settled",
			"before_agent_start",
			"agent_start",
		);
		expect(isContinuationStart(1, nextRun)).toBe(false);
	});

	it("a check at rest inside a run is not blocked by a busy session; everything else still blocks", () => {
		const facts = {
			shutdown: false,
			enabled: true,
			baseline: "accepted",
			capability: "available",
			active: true,
			atRest: false,
		};
		let reads = 0;
		const busy = () => {
			reads++;
			return false;
		};
		expect(blockReason({ ...facts, idle: busy })).toBe("busy");
		expect(blockReason({ ...facts, idle: busy, atRest: true })).toBeUndefined();
		expect(reads).toBe(1);
		expect(blockReason({ ...facts, idle: () => true })).toBeUndefined();
		expect(blockReason({ ...facts, idle: () => undefined })).toBe("inactive");
		expect(blockReason({ ...facts, idle: busy, atRest: true, baseline: "pending" })).toBe("baseline pending");
		expect(blockReason({ ...facts, idle: busy, atRest: true, enabled: false })).toBe("disabled");
		expect(blockReason({ ...facts, idle: busy, atRest: true, active: false })).toBe("inactive");
	});
});

describe("endsInRecovery", () => {
	it("an attempt that ended with an error or a length stop is followed by recovery, a final answer is not", () => {
		expect(endsInRecovery([{ role: "user" }, { role: "assistant", stopReason: "stop" }])).toBe(false);
		expect(endsInRecovery([{ role: "assistant", stopReason: "error" }])).toBe(true);
		expect(endsInRecovery([{ role: "assistant", stopReason: "length" }, { role: "toolResult" }])).toBe(true);
		expect(endsInRecovery([])).toBe(false);
	});
});
