/**
 * Persistence (pure part): the `pi-goal/state` entry format and the one branch scan done on
 * restore (session_start, session_tree). Hot handlers keep running totals instead.
 */
import { messageTokens, type UsageLike } from "./accounting.js";
import { readContractDetails } from "./contract.js";
import { EMPTY_STATE } from "./goal-machine.js";
import { CONTRACT_MESSAGE, type GoalState, STATE_ENTRY } from "./types.js";
import { readGoalRecord, validRevision } from "./validate.js";

/** Version of the persisted state format. */
export const STATE_VERSION = 1;

/** The data of one `pi-goal/state` entry. */
export interface StateEntryData {
	/** Format version. */
	readonly v: number;
	/** The state at write time. */
	readonly state: GoalState;
}

/** Builds the data of a state entry. */
export function stateEntryData(state: GoalState): StateEntryData {
	return { v: STATE_VERSION, state };
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null;
}

/**
 * Reads a state entry's data; unknown or malformed data yields undefined (ignored). The goal is
 * validated deeply and rebuilt (validate.ts). Never throws.
 */
export function readStateEntry(data: unknown): GoalState | undefined {
	try {
		if (!isRecord(data) || data.v !== STATE_VERSION || !isRecord(data.state)) return undefined;
		const { goal, revision } = data.state;
		if (!validRevision(revision)) return undefined;
		if (goal === null) return { goal: null, revision };
		const record = readGoalRecord(goal);
		return record ? { goal: record, revision } : undefined;
	} catch {
		return undefined; // a hostile getter or proxy
	}
}

/** A branch entry as the scan sees it (a structural subset of Pi's SessionEntry). */
export interface ScannedEntry {
	readonly type: string;
	readonly customType?: string;
	readonly data?: unknown;
	readonly details?: unknown;
	readonly message?: { readonly role?: string; readonly usage?: UsageLike };
}

/** What a restore learns from the branch. */
export interface RestoredBranch {
	/** The last persisted state on the branch (or the empty state). */
	readonly state: GoalState;
	/** Running token total of every assistant message on the branch. */
	readonly branchTotal: number;
	/** Contract revision present in the current context window (after the last compaction), or -1. */
	readonly windowRevision: number;
	/** `pi-goal/state` entries on the branch that were malformed or of an unknown version (skipped). */
	readonly ignored: number;
}

/** Scans the branch once (root to leaf). */
export function scanBranch(entries: readonly ScannedEntry[]): RestoredBranch {
	let state: GoalState = EMPTY_STATE;
	let branchTotal = 0;
	let windowRevision = -1;
	let ignored = 0;
	for (const entry of entries) {
		if (entry.type === "message" && entry.message?.role === "assistant") {
			branchTotal += messageTokens(entry.message.usage);
		} else if (entry.type === "custom" && entry.customType === STATE_ENTRY) {
			const read = readStateEntry(entry.data);
			if (read) state = read;
			else ignored++;
		} else if (entry.type === "compaction") {
			windowRevision = -1;
		} else if (entry.type === "custom_message" && entry.customType === CONTRACT_MESSAGE) {
			windowRevision = readContractDetails(entry.details)?.revision ?? windowRevision;
		}
	}
	return { state, branchTotal, windowRevision, ignored };
}
