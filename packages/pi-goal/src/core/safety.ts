/**
 * Automatic-work safety (pure): the automaticTurns cap and the no-progress breaker over a
 * fixed-size fingerprint of normalised tool-free output. Both pause; neither infers completion.
 */
import { observeStep, type StuckThresholds } from "./stuck.js";
import { normalizeReply, type StuckStep } from "./stuck-facts.js";
import type { GoalSafety, GoalSettings } from "./types.js";

/** Fresh counters for a new epoch. */
export function freshSafety(epoch: number): GoalSafety {
	return { epoch, automaticTurns: 0, noProgress: 0, fingerprint: null };
}

/** Near-identical replies match: the stuck detector's reading of a reply (stuck-facts.ts). */
export function normalizeOutput(text: string): string {
	return normalizeReply(text);
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
	/**
	 * What the stuck detector sees of the response (stuck-facts.ts); `reset` for a goal-tool call
	 * (a deliberate wait restarts the rules). Absent (the restore's replay): the recent steps stay.
	 */
	readonly step?: StuckStep | "reset";
}

/** Which breaker tripped, if any. */
export type SafetyTrip = "automatic-turns" | "no-progress" | "stuck" | undefined;

/** The limits countTurn applies; the stuck thresholds are off when absent. */
export type SafetyLimits = Pick<GoalSettings, "automaticTurns" | "noProgressTurns"> &
	Partial<Pick<GoalSettings, "repeatedActions" | "repeatedErrors" | "cycleActions">>;

/** The stuck rules' thresholds from the settings (absent ones off). */
function thresholds(settings: SafetyLimits): StuckThresholds {
	return {
		repeatedActions: settings.repeatedActions ?? null,
		repeatedErrors: settings.repeatedErrors ?? null,
		cycleActions: settings.cycleActions ?? null,
		noProgressTurns: settings.noProgressTurns,
	};
}

/** Counts one turn and reports whether a breaker trips (with its reason in plain words). */
export function countTurn(
	safety: GoalSafety,
	turn: TurnFacts,
	settings: SafetyLimits,
): { safety: GoalSafety; trip: SafetyTrip; detail?: string } {
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
	let next: GoalSafety = { epoch: safety.epoch, automaticTurns, noProgress, fingerprint: print };
	if (turn.step !== undefined) {
		const step = turn.step === "reset" ? undefined : turn.step;
		const observed = observeStep(safety.recent ?? [], step, thresholds(settings));
		next = { ...next, recent: observed.recent };
		if (observed.finding) {
			const trip = observed.finding.rule === "repeated-reply" ? "no-progress" : "stuck";
			return { safety: next, trip, detail: observed.finding.reason };
		}
	} else if (safety.recent) next = { ...next, recent: safety.recent };
	if (settings.noProgressTurns !== null && noProgress >= settings.noProgressTurns)
		return { safety: next, trip: "no-progress", detail: replyDetail(noProgress) };
	if (settings.automaticTurns !== null && automaticTurns >= settings.automaticTurns)
		return { safety: next, trip: "automatic-turns", detail: limitDetail(automaticTurns) };
	return { safety: next, trip: undefined };
}

function replyDetail(count: number): string {
	return `The model gave the same reply ${count} times in a row without doing anything. Tell it what to try differently, then /goal resume (or /goal clear).`;
}

function limitDetail(count: number): string {
	return `The goal used its ${count} responses without finishing. Check the work so far, then /goal resume for ${count} more (the automaticTurns setting sets the limit), or /goal clear.`;
}

/** The plain-words reason of a limit found by {@link limitReached}. */
export function limitDetailOf(trip: SafetyTrip, safety: GoalSafety): string | undefined {
	if (trip === "automatic-turns") return limitDetail(safety.automaticTurns);
	if (trip === "no-progress") return replyDetail(safety.noProgress);
	return undefined;
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
