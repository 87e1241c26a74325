/**
 * Automatic-work safety (pure): the automaticTurns cap and the no-progress breaker over a
 * fixed-size fingerprint of normalised tool-free output. Both pause; neither infers completion.
 */
import type { GoalSafety, GoalSettings } from "./types.js";

/** Fresh counters for a new epoch. */
export function freshSafety(epoch: number): GoalSafety {
	return { epoch, automaticTurns: 0, noProgress: 0, fingerprint: null };
}

/** Lower-cases and collapses whitespace so trivially reformatted replies match. */
export function normalizeOutput(text: string): string {
	return text.toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * A fixed-size (8 hex chars) FNV-1a fingerprint of normalised text. No raw text is stored.
 * Collisions only make the breaker pause early, never infer completion.
 */
export function fingerprint(text: string): string {
	let hash = 0x811c9dc5;
	const normalized = normalizeOutput(text);
	for (let i = 0; i < normalized.length; i++) {
		hash ^= normalized.charCodeAt(i);
		hash = Math.imul(hash, 0x01000193) >>> 0;
	}
	return `${hash.toString(16).padStart(8, "0")}:${Math.min(normalized.length, 0xffff).toString(16)}`;
}

/** One finished turn as safety sees it. */
export interface TurnFacts {
	/**
	 * Whether the turn belongs to automatic goal work (a continuation, not a user prompt). Recorded
	 * for the restore anchor; since issue 30 every response of an active goal counts either way.
	 */
	readonly automatic: boolean;
	/** Whether the turn belongs to a goal-owned run (kickoff and resume too); default `automatic`. */
	readonly goalWork?: boolean;
	/** Tool calls the assistant made in the turn. */
	readonly toolCalls: number;
	/** The assistant's text in the turn. */
	readonly text: string;
	/** The response was a provider error: it counts as a response, but is no reply for no-progress. */
	readonly error?: boolean;
}

/** Which breaker tripped, if any. */
export type SafetyTrip = "automatic-turns" | "no-progress" | undefined;

/** Counts one turn and reports whether a breaker trips. */
export function countTurn(
	safety: GoalSafety,
	turn: TurnFacts,
	settings: Pick<GoalSettings, "automaticTurns" | "noProgressTurns">,
): { safety: GoalSafety; trip: SafetyTrip } {
	// Every response of an active (or waiting) goal counts, whichever run it is in: the run /goal or
	// /goal resume started, a continuation, a wake, a recovery, a run the user steered or followed up
	// (issue 30). Only the usage-limit recovery's work-free rejection is exempt (the caller skips it).
	const automaticTurns = safety.automaticTurns + 1;
	let noProgress = 0;
	let print: string | null = null;
	if (turn.error && turn.toolCalls === 0) {
		noProgress = safety.noProgress;
		print = safety.fingerprint;
	} else if (turn.toolCalls === 0) {
		print = fingerprint(turn.text);
		noProgress = print === safety.fingerprint ? safety.noProgress + 1 : 1;
	}
	const next: GoalSafety = { epoch: safety.epoch, automaticTurns, noProgress, fingerprint: print };
	if (settings.noProgressTurns !== null && noProgress >= settings.noProgressTurns)
		return { safety: next, trip: "no-progress" };
	if (settings.automaticTurns !== null && automaticTurns >= settings.automaticTurns)
		return { safety: next, trip: "automatic-turns" };
	return { safety: next, trip: undefined };
}

/** Which limit stops automatic work now (e.g. after the settings lowered a limit), if any. */
export function limitReached(
	safety: GoalSafety,
	settings: Pick<GoalSettings, "automaticTurns" | "noProgressTurns">,
): SafetyTrip {
	if (settings.automaticTurns !== null && safety.automaticTurns >= settings.automaticTurns)
		return "automatic-turns";
	if (settings.noProgressTurns !== null && safety.noProgress >= settings.noProgressTurns)
		return "no-progress";
	return undefined;
}

/** Whether automatic work may start now (checked before a continuation is proposed). */
export function automaticAllowed(
	safety: GoalSafety,
	settings: Pick<GoalSettings, "automaticTurns" | "noProgressTurns">,
): boolean {
	if (settings.automaticTurns !== null && safety.automaticTurns >= settings.automaticTurns) return false;
	if (settings.noProgressTurns !== null && safety.noProgress >= settings.noProgressTurns) return false;
	return true;
}
