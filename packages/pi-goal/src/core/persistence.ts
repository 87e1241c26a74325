/**
 * Persistence (pure part): the `pi-goal/state` entry format and the restore walk (session_start,
 * session_tree). A state entry is written when the goal changes meaningfully, never per turn; the
 * restore walks back from the leaf to the newest valid state entry and replays what came after it
 * (replay.ts), O(entries after it). Hot handlers keep running totals.
 */
import { messageTokens, type UsageLike } from "./accounting.js";
import { readContractDetails } from "./contract.js";
import { EMPTY_STATE } from "./goal-transitions.js";
import { isOwnStateData } from "./ownership.js";
import { type ReplayEntry, readAnchor, replayAfter, type StateAnchor } from "./replay.js";
import { CONTRACT_MESSAGE, GOAL_OWNER, type GoalState, STATE_ENTRY } from "./types.js";
import { readGoalRecord, validRevision } from "./validate.js";

/** Version of the persisted state format. */
export const STATE_VERSION = 1;

/** The data of one `pi-goal/state` entry. */
export interface StateEntryData {
	/** Who wrote it (another goal extension writes `pi-goal/state` too; absent in our older entries). */
	readonly owner: typeof GOAL_OWNER;
	/** Format version. */
	readonly v: number;
	/** The state at write time. */
	readonly state: GoalState;
	/** Where the replay of later entries starts (absent in entries written before issue 23). */
	readonly at?: StateAnchor;
}

/** Builds the data of a state entry. */
export function stateEntryData(state: GoalState, at?: StateAnchor): StateEntryData {
	// The stuck detector's recent steps (at most its window) go with the state: a reload or a
	// restart in the middle of stuck work does not restart the count (the replay adds later steps).
	const data: StateEntryData = { owner: GOAL_OWNER, v: STATE_VERSION, state };
	return at ? { ...data, at } : data;
}

/**
 * Whether a transition is worth a state entry: anything but the per-turn counters (the safety
 * counters of one epoch and the continuation count), which the restore replays from the messages.
 */
export function persistWorthy(before: GoalState, after: GoalState): boolean {
	if (before.revision !== after.revision) return true;
	const a = before.goal;
	const b = after.goal;
	if (!a || !b) return a !== b;
	return (
		a.id !== b.id ||
		a.status !== b.status ||
		a.objective !== b.objective ||
		a.tokenBudget !== b.tokenBudget ||
		a.wait !== b.wait ||
		a.pauseReason !== b.pauseReason ||
		a.pauseDetail !== b.pauseDetail ||
		a.outcome !== b.outcome ||
		a.usage !== b.usage ||
		a.clock !== b.clock ||
		a.runId !== b.runId ||
		a.usageRetries !== b.usageRetries ||
		a.costLimit !== b.costLimit ||
		a.costUnreported !== b.costUnreported ||
		a.safety.epoch !== b.safety.epoch
	);
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
export interface ScannedEntry extends ReplayEntry {
	readonly type: string;
	readonly customType?: string;
	readonly data?: unknown;
	readonly details?: unknown;
	readonly message?: { readonly role?: string; readonly usage?: UsageLike };
	/** A compaction's first kept entry: the window after it starts there, not at the compaction. */
	readonly firstKeptEntryId?: string;
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

/**
 * Scans the whole branch once (root to leaf). Only for a newest state entry written before
 * issue 23 (no replay anchor): its token baseline counts from the root of the branch.
 */
export function scanBranch(entries: readonly (ScannedEntry & { id?: string })[]): RestoredBranch {
	let state: GoalState = EMPTY_STATE;
	let branchTotal = 0;
	let windowRevision = -1;
	let ignored = 0;
	/** Where each entry sits, and the newest contract so far: a compaction keeps it if it kept its entry. */
	const position = new Map<string, number>();
	let contract = { revision: -1, at: -1 };
	for (const [index, entry] of entries.entries()) {
		if (entry.id !== undefined) position.set(entry.id, index);
		if (entry.type === "message" && entry.message?.role === "assistant") {
			branchTotal += messageTokens(entry.message.usage);
		} else if (entry.type === "custom" && entry.customType === STATE_ENTRY && isOwnStateData(entry.data)) {
			const read = readStateEntry(entry.data);
			if (read) state = read;
			else ignored++;
		} else if (entry.type === "compaction") {
			const kept = position.get(entry.firstKeptEntryId ?? "") ?? index;
			windowRevision = contract.at >= kept ? contract.revision : -1;
		} else if (entry.type === "custom_message" && entry.customType === CONTRACT_MESSAGE) {
			const revision = readContractDetails(entry.details)?.revision;
			if (revision !== undefined) {
				windowRevision = revision;
				contract = { revision, at: index };
			}
		}
	}
	return { state, branchTotal, windowRevision, ignored };
}

/**
 * The branch total of the assistant messages already on the branch. One counted at its message_end
 * is persisted by Pi only after every message_end handler, so an entry written in between must not
 * count it (the restore replays it from after the entry). `leafBefore` is the leaf at that
 * message_end: an assistant message newer than it is the counted one. Not object identity: when any
 * extension replaces the message at message_end, Pi persists another object.
 */
export function persistedTotal(
	session: Pick<RestoreLookup, "getLeafId" | "getEntry">,
	branchTotal: number,
	last: { leafBefore: string | null; tokens: number },
): number {
	let id = session.getLeafId();
	while (id && id !== last.leafBefore) {
		const entry = session.getEntry(id);
		if (!entry) break;
		if (entry.type === "message" && entry.message?.role === "assistant") return branchTotal;
		id = entry.parentId ?? null;
	}
	return Math.max(0, branchTotal - last.tokens);
}

/** The part of Pi's session manager the restore walk reads. */
export interface RestoreLookup {
	getLeafId(): string | null;
	getEntry(
		id: string,
	): (ScannedEntry & { id: string; parentId?: string | null; timestamp?: string }) | undefined;
	getBranch(): unknown[];
}

function readEntryAnchor(data: unknown): StateAnchor | undefined {
	try {
		return readAnchor((data as { at?: unknown }).at);
	} catch {
		return undefined; // a hostile getter: treated as the older format
	}
}

function entryTime(entry: { timestamp?: string } | undefined): number {
	const time = entry?.timestamp === undefined ? Number.NaN : Date.parse(entry.timestamp);
	return Number.isFinite(time) ? time : Number.NaN;
}

/** Entries the walk reads back before a state entry to find its held response's message. */
const HELD_LOOKBACK = 64;

/**
 * The held response of a state entry's anchor: the newest assistant message before the entry and
 * the entries after it up to the entry (its tool results so far), oldest first. Bounded walk.
 */
function heldResponseEntries(session: RestoreLookup, from: string | null): ScannedEntry[] {
	const entries: ScannedEntry[] = [];
	let id = from;
	for (let i = 0; id && i < HELD_LOOKBACK; i++) {
		const entry = session.getEntry(id);
		if (!entry) break;
		entries.push(entry);
		if (entry.type === "message" && entry.message?.role === "assistant") return entries.reverse();
		id = entry.parentId ?? null;
	}
	return [];
}

/**
 * Restores from the branch: walks back from the leaf to the newest valid state entry (and to the
 * start of the current context window for the contract revision), then replays the entries after
 * the state entry. A branch without a state entry is walked to its root once (nothing to replay);
 * a newest state entry without an anchor (older format) falls back to {@link scanBranch}.
 */
export function restoreBranch(session: RestoreLookup): RestoredBranch {
	const after: ScannedEntry[] = [];
	let found:
		| { state: GoalState; anchor: StateAnchor | undefined; time: number; parentId: string | null }
		| undefined;
	let windowRevision: number | undefined;
	/** The first kept entry of the newest compaction: the window's contract may sit in its kept part. */
	let keptFrom: string | undefined;
	let ignored = 0;
	let leafTime = Number.NaN;
	let id = session.getLeafId();
	while (id && (!found || windowRevision === undefined)) {
		const entry = session.getEntry(id);
		if (!entry) break;
		if (Number.isNaN(leafTime)) leafTime = entryTime(entry);
		if (!found && entry.type === "custom" && entry.customType === STATE_ENTRY && isOwnStateData(entry.data)) {
			const state = readStateEntry(entry.data);
			if (state)
				found = {
					state,
					anchor: readEntryAnchor(entry.data),
					time: entryTime(entry),
					parentId: entry.parentId ?? null,
				};
			else ignored++;
		} else if (windowRevision === undefined && entry.type === "compaction") {
			// An older compaction inside the kept part ends the window; the newest one keeps from its first kept entry.
			if (keptFrom !== undefined) windowRevision = -1;
			else keptFrom = entry.firstKeptEntryId ?? entry.id;
		} else if (
			windowRevision === undefined &&
			entry.type === "custom_message" &&
			entry.customType === CONTRACT_MESSAGE
		) {
			windowRevision = readContractDetails(entry.details)?.revision;
		}
		if (windowRevision === undefined && entry.id === keptFrom) windowRevision = -1;
		if (!found) after.push(entry);
		id = entry.parentId ?? null;
	}
	if (!found) return { state: EMPTY_STATE, branchTotal: 0, windowRevision: windowRevision ?? -1, ignored };
	if (!found.anchor) {
		const scanned = scanBranch(session.getBranch() as ScannedEntry[]);
		return { ...scanned, ignored: Math.max(ignored, scanned.ignored) };
	}
	const activeMs = Math.max(0, leafTime - found.time) || 0;
	const held = found.anchor.held ? heldResponseEntries(session, found.parentId) : [];
	const replayed = replayAfter(found.state, found.anchor, after.reverse(), activeMs, held);
	return { ...replayed, windowRevision: windowRevision ?? -1, ignored };
}
