/**
 * Which `pi-goal/*` entries and messages are ours (pure). Another goal extension (nijaru's
 * pi-goal) writes `pi-goal/state` entries and `pi-goal/continuation` messages too. Everything we
 * write carries `owner: GOAL_OWNER`; what earlier versions of ours wrote carries no owner but has
 * our fields. Anything else under those types belongs to another extension: restore, the context
 * window and before_agent_start leave it alone, and it is never counted as our malformed state.
 */
import { GOAL_OWNER } from "./types.js";

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null;
}

/** Reads `owner` once; a hostile getter reads as a foreign mark. */
function ownerOf(value: Record<string, unknown>): unknown {
	try {
		return value.owner;
	} catch {
		return Symbol("unreadable");
	}
}

/** Whether a record carries our owner mark, or (written by an earlier version of ours) no mark but one of our fields. */
function markedOrLegacy(value: unknown, legacyFields: readonly string[]): boolean {
	if (!isRecord(value)) return false;
	const owner = ownerOf(value);
	if (owner !== undefined) return owner === GOAL_OWNER;
	try {
		return legacyFields.every((key) => key in value);
	} catch {
		return false;
	}
}

/**
 * Whether a `pi-goal/state` entry's data is ours: marked, or an earlier version's `{v, state}`.
 * Data that is not an object is ours and malformed (no other extension's state is a bare value).
 */
export function isOwnStateData(data: unknown): boolean {
	if (!isRecord(data)) return true;
	return markedOrLegacy(data, ["v"]) || markedOrLegacy(data, ["state"]);
}

/** Whether a `pi-goal/contract` message's details are ours (marked, or an earlier version's fields). */
export function isOwnContractDetails(details: unknown): boolean {
	return markedOrLegacy(details, ["revision", "goalId", "active"]);
}

/** Whether a `pi-goal/continuation` message's details are ours (marked, or an earlier version's fields). */
export function isOwnContinuationDetails(details: unknown): boolean {
	return markedOrLegacy(details, ["goalId", "nonce", "iteration"]);
}
