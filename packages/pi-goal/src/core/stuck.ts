/**
 * The stuck detector (pure): named rules over the goal's most recent responses (at most
 * {@link STUCK_WINDOW} steps, oldest first). Each rule returns what repeated, in plain words, and
 * what to do next; the goal is paused with that reason. A rule with a null threshold is off. The
 * defaults were picked from the scripted corpus (test/stuck-corpus): stuck work pauses within 8
 * requests, and real progress (new files, long edits of one file, a test re-run after each real
 * edit, polling with goal_wait) is never stopped.
 */
import type { StuckStep } from "./stuck-facts.js";

/** The number of recent steps the rules can see (fixed: memory and work per response stay O(1)). */
export const STUCK_WINDOW = 8;

/** Thresholds of the rules (settings); null turns a rule off. */
export interface StuckThresholds {
	/** The same tool call with the same result this many responses in a row. */
	readonly repeatedActions: number | null;
	/** Every tool call failed with the same error output this many responses in a row. */
	readonly repeatedErrors: number | null;
	/** The last this-many responses cycle between two or three actions. */
	readonly cycleActions: number | null;
	/** The same text-only reply (numbers and whitespace aside) this many responses in a row. */
	readonly noProgressTurns: number | null;
}

/** Which rule found the goal stuck, and the reason shown to the user. */
export interface StuckFinding {
	readonly rule: "repeated-action" | "repeated-error" | "action-cycle" | "repeated-reply";
	readonly reason: string;
}

const NEXT =
	"Look at it yourself or tell the model what to try differently, then /goal resume (or /goal clear).";

function tail(recent: readonly StuckStep[], n: number): readonly StuckStep[] | undefined {
	return n >= 1 && recent.length >= n ? recent.slice(-n) : undefined;
}

function quoted(label: string): string {
	return `\`${label.replace(/`/g, "'")}\``;
}

/** Rule: the same tool call with the same result, `n` responses in a row. */
export function repeatedAction(recent: readonly StuckStep[], n: number | null): StuckFinding | undefined {
	const last = n === null ? undefined : tail(recent, n);
	const first = last?.[0];
	if (!last || !first?.tools || !last.every((step) => step.action === first.action)) return undefined;
	const what = first.error !== null ? "failed" : "ran";
	return {
		rule: "repeated-action",
		reason: `${quoted(first.label)} ${what} ${last.length} times in a row with the same output. ${NEXT}`,
	};
}

/** Rule: every tool call failed with the same error, `n` responses in a row (the calls may differ). */
export function repeatedError(recent: readonly StuckStep[], n: number | null): StuckFinding | undefined {
	const last = n === null ? undefined : tail(recent, n);
	const error = last?.[0]?.error;
	if (!last || error === null || error === undefined || !last.every((step) => step.error === error))
		return undefined;
	const latest = last.at(-1) as StuckStep;
	return {
		rule: "repeated-error",
		reason: `The same error came back ${last.length} times in a row (last from ${quoted(latest.label)}). ${NEXT}`,
	};
}

/**
 * Rule: the last `n` responses cycle between two or three different actions (A B A B A B, or
 * A B C A B C) with the same results each time.
 */
export function actionCycle(recent: readonly StuckStep[], n: number | null): StuckFinding | undefined {
	const last = n === null ? undefined : tail(recent, n);
	if (!last) return undefined;
	for (const period of [2, 3]) {
		if (last.length < 2 * period) continue;
		const cycle = last.slice(0, period);
		if (new Set(cycle.map((step) => step.action)).size < 2) continue;
		if (!last.every((step, i) => step.action === (cycle[i % period] as StuckStep).action)) continue;
		const labels = [...new Set(cycle.map((step) => quoted(step.label)))].join(", ");
		return {
			rule: "action-cycle",
			reason: `The work went round in a circle: ${labels} repeated ${Math.floor(last.length / period)} times with the same results. ${NEXT}`,
		};
	}
	return undefined;
}

/** Rule: the same text-only reply (numbers and whitespace aside), `n` responses in a row. */
export function repeatedReply(recent: readonly StuckStep[], n: number | null): StuckFinding | undefined {
	const last = n === null ? undefined : tail(recent, n);
	const first = last?.[0];
	if (!last || !first || first.tools || !last.every((step) => step.action === first.action)) return undefined;
	return {
		rule: "repeated-reply",
		reason: `The model gave the same reply ${last.length} times in a row without doing anything. ${NEXT}`,
	};
}

/** The rules in the order their reasons are preferred (the most specific first). */
const RULES = [
	(recent: readonly StuckStep[], t: StuckThresholds) => repeatedAction(recent, t.repeatedActions),
	(recent: readonly StuckStep[], t: StuckThresholds) => repeatedError(recent, t.repeatedErrors),
	(recent: readonly StuckStep[], t: StuckThresholds) => actionCycle(recent, t.cycleActions),
	(recent: readonly StuckStep[], t: StuckThresholds) => repeatedReply(recent, t.noProgressTurns),
] as const;

/**
 * Adds one response's step to the recent steps (a goal-tool response, undefined, restarts them:
 * a deliberate wait is no repetition) and runs the rules. O(window).
 */
export function observeStep(
	recent: readonly StuckStep[],
	step: StuckStep | undefined,
	thresholds: StuckThresholds,
): { recent: readonly StuckStep[]; finding: StuckFinding | undefined } {
	if (!step) return { recent: [], finding: undefined };
	const next = [...recent.slice(-(STUCK_WINDOW - 1)), step];
	for (const rule of RULES) {
		const finding = rule(next, thresholds);
		if (finding) return { recent: next, finding };
	}
	return { recent: next, finding: undefined };
}
