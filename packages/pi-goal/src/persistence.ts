/**
 * Persistence (pure part): the `pi-goal/state` entry format and the one branch scan done on
 * restore (session_start, session_tree). Hot handlers keep running totals instead.
 */
import { messageTokens, type UsageLike } from "./accounting.js";
import { readContractDetails } from "./contract.js";
import { EMPTY_STATE } from "./goal-machine.js";
import { CONTRACT_MESSAGE, GOAL_STATUSES, type GoalRecord, type GoalState, STATE_ENTRY } from "./types.js";

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

function validGoal(value: unknown): value is GoalRecord {
	if (!isRecord(value)) return false;
	return (
		typeof value.id === "string" &&
		typeof value.objective === "string" &&
		typeof value.status === "string" &&
		(GOAL_STATUSES as readonly string[]).includes(value.status) &&
		isRecord(value.usage) &&
		isRecord(value.clock) &&
		isRecord(value.safety) &&
		typeof value.iteration === "number"
	);
}

/** Reads a state entry's data; unknown or malformed data yields undefined (ignored). */
export function readStateEntry(data: unknown): GoalState | undefined {
	if (!isRecord(data) || data.v !== STATE_VERSION || !isRecord(data.state)) return undefined;
	const { goal, revision } = data.state;
	if (typeof revision !== "number") return undefined;
	if (goal !== null && !validGoal(goal)) return undefined;
	return { goal: goal as GoalRecord | null, revision };
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
}

/** Scans the branch once (root to leaf). */
export function scanBranch(entries: readonly ScannedEntry[]): RestoredBranch {
	let state: GoalState = EMPTY_STATE;
	let branchTotal = 0;
	let windowRevision = -1;
	for (const entry of entries) {
		if (entry.type === "message" && entry.message?.role === "assistant") {
			branchTotal += messageTokens(entry.message.usage);
		} else if (entry.type === "custom" && entry.customType === STATE_ENTRY) {
			state = readStateEntry(entry.data) ?? state;
		} else if (entry.type === "compaction") {
			windowRevision = -1;
		} else if (entry.type === "custom_message" && entry.customType === CONTRACT_MESSAGE) {
			windowRevision = readContractDetails(entry.details)?.revision ?? windowRevision;
		}
	}
	return { state, branchTotal, windowRevision };
}
