/**
 * Opt-in managed runs on `pi.events` (`managedRuns: true`), wire-compatible with the established
 * peer's protocol (run-protocol.ts, docs/pi-goal-managed-runs.md): another extension starts a goal
 * with `pi-goal:start`, may cancel it with `pi-goal:cancel`, and hears `pi-goal:event:<runId>`: a
 * synchronous `active` state at start, exactly one terminal state later, or an error event.
 * Listeners never throw; an unsafe runId gets no reply; a payload naming another session is ignored.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { parseTokenCount } from "../core/accounting.js";
import {
	errorEvent,
	RUN_EVENT_PREFIX,
	RUN_ID_PATTERN,
	type RunErrorCode,
	type RunStateEvent,
} from "../core/run-protocol.js";
import { MAX_OBJECTIVE } from "../core/types.js";
import type { Dormancy } from "./peer.js";
import { cancelManagedGoal, startGoal, type UseCaseDeps } from "./use-cases.js";

/** Start channel. */
export const START_CHANNEL = "pi-goal:start";
/** Cancel channel. */
export const CANCEL_CHANNEL = "pi-goal:cancel";
/** Longest cancel reason (the peer's limit). */
const MAX_CANCEL_REASON = 1000;

/** A validated start request. */
export interface StartRequest {
	readonly objective: string;
	readonly tokenBudget: number | null;
	readonly runId: string;
	/** Our addition: `ctx.sessionManager` of the caller (optional; the protocol is session-local). */
	readonly session?: object;
}

/** Reads one field of an untrusted payload once; a throwing getter or proxy trap reads as undefined. */
function field(payload: unknown, key: string): unknown {
	try {
		return typeof payload === "object" && payload !== null
			? (payload as Record<string, unknown>)[key]
			: undefined;
	} catch {
		return undefined;
	}
}

/** Every field a start or cancel payload may carry. */
const PAYLOAD_FIELDS = ["runId", "session", "objective", "tokenBudget", "tokens", "reason"] as const;

/**
 * A plain copy of a start or cancel payload, each field read exactly once (undefined when not an
 * object). Listeners read only the copy: a getter that answers differently on a second read
 * cannot answer on one runId and start the goal under another.
 */
function readOnce(payload: unknown): Record<string, unknown> | undefined {
	if (typeof payload !== "object" || payload === null) return undefined;
	const copy: Record<string, unknown> = {};
	for (const key of PAYLOAD_FIELDS) copy[key] = field(payload, key);
	return copy;
}

/** The payload's runId when it is safe to answer on (the peer's pattern), else undefined. */
export function readRunId(payload: unknown): string | undefined {
	const runId = field(payload, "runId");
	return typeof runId === "string" && RUN_ID_PATTERN.test(runId) ? runId : undefined;
}

function readBudget(payload: unknown): number | null | string {
	// The peer's `tokenBudget` (positive integer); our older `tokens` also takes "100k".
	const tokenBudget = field(payload, "tokenBudget");
	const tokens = tokenBudget ?? field(payload, "tokens");
	if (tokens === undefined || tokens === null) return null;
	if (typeof tokens === "number" && Number.isSafeInteger(tokens) && tokens > 0) return tokens;
	if (tokenBudget === undefined && typeof tokens === "string" && tokens.length <= 40) {
		const parsed = parseTokenCount(tokens);
		if (parsed !== undefined) return parsed;
	}
	return "tokenBudget must be a positive integer";
}

/**
 * Validates a `pi-goal:start` payload (pure, never throws). Each field is read exactly once, so a
 * getter cannot pass validation with one value and start the goal with another.
 */
export function readStartRequest(payload: unknown): StartRequest | string {
	try {
		if (typeof payload !== "object" || payload === null) return "start payload must be an object";
		const runId = readRunId(payload);
		if (runId === undefined) return "runId must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$";
		const session = field(payload, "session");
		if (session !== undefined && (typeof session !== "object" || session === null))
			return "session must be ctx.sessionManager when given";
		const rawObjective = field(payload, "objective");
		if (typeof rawObjective !== "string") return "objective must be a string";
		const objective = rawObjective.trim();
		if (objective.length === 0 || objective.length > MAX_OBJECTIVE)
			return `objective must have 1-${MAX_OBJECTIVE} characters`;
		const tokenBudget = readBudget(payload);
		if (typeof tokenBudget === "string") return tokenBudget;
		return { objective, tokenBudget, runId, ...(session ? { session: session as object } : {}) };
	} catch {
		return "unreadable payload";
	}
}

/** Subscribes the managed-run channels. */
export function registerManagedRuns(
	pi: Pick<ExtensionAPI, "events">,
	deps: UseCaseDeps & { readonly dormancy?: Pick<Dormancy, "dormant"> },
): void {
	/** runIds used in the bound session (a runId is never reopened). */
	let used = { session: undefined as object | undefined, ids: new Set<string>() };
	const emit = (runId: string, event: RunStateEvent | ReturnType<typeof errorEvent>) =>
		pi.events.emit(`${RUN_EVENT_PREFIX}${runId}`, event);
	const fail = (runId: string, operation: "start" | "cancel", code: RunErrorCode, message: string) =>
		emit(runId, errorEvent(runId, operation, code, message));
	/** The bound session, or an error already sent; undefined when the request is not ours to answer. */
	const bound = (payload: unknown, runId: string, operation: "start" | "cancel") => {
		if (deps.dormancy?.dormant) return undefined; // another goal extension owns the channels
		const session = field(payload, "session");
		const ctx = deps.controller.ctx;
		if (!ctx) {
			fail(runId, operation, "NO_ACTIVE_SESSION", "No active pi-goal session.");
			return undefined;
		}
		if (session !== undefined && session !== ctx.sessionManager) return undefined; // another session's
		if (used.session !== ctx.sessionManager) used = { session: ctx.sessionManager, ids: new Set() };
		return ctx;
	};

	pi.events.on(START_CHANNEL, (live: unknown) => {
		try {
			const payload = readOnce(live);
			const runId = readRunId(payload);
			if (runId === undefined) return; // no safe channel to answer on
			const ctx = bound(payload, runId, "start");
			if (!ctx) return;
			if (!deps.controller.settings.managedRuns)
				return fail(runId, "start", "RPC_DISABLED", "Managed runs are off (pi-goal setting managedRuns).");
			if (used.ids.has(runId))
				return fail(runId, "start", "RUN_ID_IN_USE", "runId was already used in this session.");
			const request = readStartRequest(payload);
			if (typeof request === "string") return fail(runId, "start", "INVALID_REQUEST", request);
			const existing = deps.controller.goal;
			if (existing && existing.status !== "complete")
				return fail(runId, "start", "GOAL_ALREADY_EXISTS", `Goal ${existing.id} is ${existing.status}.`);
			used.ids.add(runId);
			// The reducer's runStarted effect sends the `active` state synchronously, before the kickoff:
			// a listener can still cancel.
			const { error } = startGoal(deps, ctx, request);
			if (error) fail(runId, "start", "ACTIVATION_FAILED", error);
		} catch {
			// Never throw into the emitter (a listener of our event may throw too).
		}
	});
	pi.events.on(CANCEL_CHANNEL, (live: unknown) => {
		try {
			const payload = readOnce(live);
			const runId = readRunId(payload);
			if (runId === undefined) return;
			const ctx = bound(payload, runId, "cancel");
			if (!ctx) return;
			const reason = field(payload, "reason");
			if (reason !== undefined && (typeof reason !== "string" || reason.trim().length > MAX_CANCEL_REASON))
				return fail(
					runId,
					"cancel",
					"INVALID_REQUEST",
					`reason must be a string of at most ${MAX_CANCEL_REASON} characters`,
				);
			const goal = deps.controller.goal;
			if (goal?.runId !== runId || goal.status !== "active")
				return fail(runId, "cancel", "RUN_NOT_FOUND", "No active managed run matches runId.");
			// The peer's protocol pauses (the reducer aborts a run under way); the caller's reason
			// reaches the terminal state.
			const detail = typeof reason === "string" && reason.trim() ? reason.trim() : undefined;
			cancelManagedGoal(deps, ctx, detail);
		} catch {
			// Never throw into the emitter.
		}
	});
}
