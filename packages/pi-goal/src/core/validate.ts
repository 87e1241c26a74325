/**
 * Deep validation of a persisted goal record (pure, never throws). Everything restored from a
 * session file is untrusted: a record is accepted only when every field has a shape pi-goal could
 * have written, and it is rebuilt field by field (unknown keys are dropped). Anything else is
 * rejected so the restore falls back to the previous valid entry, or to no goal.
 */
import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import { STUCK_WINDOW } from "./stuck.js";
import { readStuckSteps } from "./stuck-facts.js";
import {
	GOAL_STATUSES,
	type GoalClock,
	type GoalRecord,
	type GoalSafety,
	type GoalUsage,
	type GoalWait,
	MAX_OBJECTIVE,
	type PauseReason,
	type UsageLimitScope,
	type WaitKind,
} from "./types.js";

/** Every pause reason (persistence validates against it). */
export const PAUSE_REASONS: readonly PauseReason[] = [
	"user",
	"interrupted",
	"cancelled",
	"automatic-turns",
	"no-progress",
	"stuck",
	"workflow-busy",
	"helpers-unavailable",
];
/** Every wait kind (persistence validates against it). */
export const WAIT_KINDS: readonly WaitKind[] = [
	"explicit",
	"provider_error",
	"provider_retry",
	"usage_limit",
];

/** Shape of a goal id (`g-` + 8 hex today; a little wider for ids from older versions and tests). */
export const GOAL_ID_PATTERN = /^[A-Za-z0-9][\w.:-]{0,99}$/;
/** Longest persisted wait reason, outcome, run id and usage-limit scope field, in characters. */
const MAX_WAIT_REASON = 1000;
const MAX_OUTCOME = 8000;
const MAX_RUN_ID = 200;
const MAX_SCOPE_FIELD = 200;
const MAX_FINGERPRINT = 200;

type Rec = Record<string, unknown>;

function isRecord(value: unknown): value is Rec {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function finite(value: unknown): value is number {
	return typeof value === "number" && Number.isFinite(value);
}

function count(value: unknown): value is number {
	return Number.isSafeInteger(value) && (value as number) >= 0;
}

function boundedString(value: unknown, max: number, min = 0): value is string {
	return typeof value === "string" && value.length >= min && value.length <= max;
}

function oneOf<T extends string>(list: readonly T[], value: unknown): value is T {
	return typeof value === "string" && (list as readonly string[]).includes(value);
}

function readUsage(value: unknown): GoalUsage | undefined {
	if (!isRecord(value)) return undefined;
	const { spent, baseline } = value;
	if (!finite(spent) || spent < 0) return undefined;
	if (!(baseline === null || (finite(baseline) && baseline >= 0))) return undefined;
	return { spent, baseline };
}

function readClock(value: unknown): GoalClock | undefined {
	if (!isRecord(value)) return undefined;
	const { activeMs, since } = value;
	if (!finite(activeMs) || activeMs < 0) return undefined;
	if (!(since === null || finite(since))) return undefined;
	return { activeMs, since };
}

function readSafety(value: unknown): GoalSafety | undefined {
	if (!isRecord(value)) return undefined;
	const { epoch, automaticTurns, noProgress, fingerprint } = value;
	if (!count(epoch) || !count(automaticTurns) || !count(noProgress)) return undefined;
	if (!(fingerprint === null || boundedString(fingerprint, MAX_FINGERPRINT))) return undefined;
	// The stuck detector's steps: malformed ones are dropped, not the record (the detector restarts).
	const recent = value.recent === undefined ? undefined : readStuckSteps(value.recent, STUCK_WINDOW);
	return { epoch, automaticTurns, noProgress, fingerprint, ...(recent ? { recent } : {}) };
}

function readScope(value: unknown): UsageLimitScope | undefined {
	if (!isRecord(value)) return undefined;
	const { provider, model, api } = value;
	if (!boundedString(provider, MAX_SCOPE_FIELD) || !boundedString(model, MAX_SCOPE_FIELD)) return undefined;
	if (!boundedString(api, MAX_SCOPE_FIELD)) return undefined;
	return { provider, model, api };
}

/** Reads a wait record; `null` means malformed (undefined means absent). */
function readWait(value: unknown): GoalWait | undefined | null {
	if (value === undefined) return undefined;
	if (!isRecord(value)) return null;
	const { reason, resumeAt, kind, usageLimit } = value;
	if (!boundedString(reason, MAX_WAIT_REASON)) return null;
	if (!(resumeAt === null || finite(resumeAt))) return null;
	if (kind !== undefined && !oneOf(WAIT_KINDS, kind)) return null;
	let scope: UsageLimitScope | undefined;
	if (usageLimit !== undefined) {
		scope = readScope(usageLimit);
		if (!scope) return null;
	}
	return {
		reason,
		resumeAt,
		...(kind === undefined ? {} : { kind }),
		...(scope ? { usageLimit: scope } : {}),
	};
}

/** Reads a persisted goal record; undefined when anything is malformed. Never throws. */
export function readGoalRecord(value: unknown): GoalRecord | undefined {
	try {
		return readGoalUnsafe(value);
	} catch {
		return undefined; // a hostile getter or proxy
	}
}

function readGoalUnsafe(value: unknown): GoalRecord | undefined {
	if (!isRecord(value)) return undefined;
	const { id, objective, tokenBudget, status, pauseReason, pauseDetail, outcome, iteration, runId } = value;
	if (typeof id !== "string" || !GOAL_ID_PATTERN.test(id)) return undefined;
	if (!boundedString(objective, MAX_OBJECTIVE, 1) || objective.trim().length === 0) return undefined;
	if (!(tokenBudget === null || (Number.isSafeInteger(tokenBudget) && (tokenBudget as number) > 0)))
		return undefined;
	if (!oneOf(GOAL_STATUSES, status)) return undefined;
	if (pauseReason !== undefined && !oneOf(PAUSE_REASONS, pauseReason)) return undefined;
	if (outcome !== undefined && typeof outcome !== "string") return undefined;
	if (pauseDetail !== undefined && !boundedString(pauseDetail, MAX_WAIT_REASON)) return undefined;
	if (!count(iteration)) return undefined;
	if (runId !== undefined && !boundedString(runId, MAX_RUN_ID, 1)) return undefined;
	const usageRetries = value.usageRetries;
	const toolWork = value.toolWork;
	const { costLimit, costSpent, costUnreported } = value;
	if (costLimit !== undefined && !(finite(costLimit) && costLimit > 0)) return undefined;
	if (costSpent !== undefined && !(finite(costSpent) && costSpent >= 0)) return undefined;
	if (costUnreported !== undefined && costUnreported !== true) return undefined;
	if (toolWork !== undefined && toolWork !== true) return undefined;
	if (usageRetries !== undefined && !count(usageRetries)) return undefined;
	const wait = readWait(value.wait);
	if (wait === null) return undefined;
	const usage = readUsage(value.usage);
	const clock = readClock(value.clock);
	const safety = readSafety(value.safety);
	if (!usage || !clock || !safety) return undefined;
	return {
		id,
		objective,
		tokenBudget: tokenBudget as number | null,
		status,
		...(pauseReason === undefined ? {} : { pauseReason }),
		...(pauseDetail === undefined ? {} : { pauseDetail }),
		// Display-only text: a long one is cut rather than rejected (rejecting would resurrect an older state).
		...(outcome === undefined
			? {}
			: { outcome: outcome.length > MAX_OUTCOME ? `${cutText(outcome, MAX_OUTCOME)}…` : outcome }),
		...(wait === undefined ? {} : { wait }),
		iteration,
		usage,
		clock,
		safety,
		...(runId === undefined ? {} : { runId }),
		...(usageRetries === undefined ? {} : { usageRetries: usageRetries as number }),
		...(toolWork === true ? { toolWork: true as const } : {}),
		...(costLimit === undefined ? {} : { costLimit: costLimit as number }),
		...(costSpent === undefined ? {} : { costSpent: costSpent as number }),
		...(costUnreported === true ? { costUnreported: true as const } : {}),
	};
}

/** Reads a persisted contract revision (a non-negative safe integer). */
export function validRevision(value: unknown): value is number {
	return count(value);
}
