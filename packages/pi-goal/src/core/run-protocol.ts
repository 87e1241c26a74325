/**
 * The managed-run wire protocol (pure), shaped like the established peer's (narumiruna's
 * pi-goal): `pi-goal:start` {runId, objective, tokenBudget?}, `pi-goal:cancel` {runId, reason?},
 * and on `pi-goal:event:<runId>` state events {type:"state", runId, goalId, status, summary?|reason?}
 * and error events {type:"error", runId, operation, error:{code, message}}. Our one addition is
 * `tokens` (spent) on terminal states: a plain number, never an object of the session. See
 * docs/pi-goal-managed-runs.md.
 */
import type { TerminalStatus } from "./goal-events.js";

/** Terminal event channel prefix. */
export const RUN_EVENT_PREFIX = "pi-goal:event:";

/** The peer's runId rule: a safe, bounded correlation id (an unsafe id gets no reply at all). */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Stable error codes (the peer's set). */
export type RunErrorCode =
	| "RPC_DISABLED"
	| "INVALID_REQUEST"
	| "NO_ACTIVE_SESSION"
	| "RUN_ID_IN_USE"
	| "RUN_NOT_FOUND"
	| "GOAL_ALREADY_EXISTS"
	| "ACTIVATION_FAILED"
	| "SUPERSEDED";

/** Statuses of a state event (the peer's set). */
export type RunStatus =
	| "active"
	| "complete"
	| "blocked"
	| "paused"
	| "usage_limited"
	| "budget_limited"
	| "cleared";

/** A state event. `tokens` (terminal states) is our one addition to the peer's fields. */
export interface RunStateEvent {
	readonly type: "state";
	readonly runId: string;
	readonly goalId: string;
	readonly status: RunStatus;
	readonly summary?: string;
	readonly reason?: string;
	readonly tokens?: number;
}

/** An error event. */
export interface RunErrorEvent {
	readonly type: "error";
	readonly runId: string;
	readonly operation: "start" | "cancel";
	readonly error: { readonly code: RunErrorCode; readonly message: string };
}

/** The state event that ends a managed run (exactly one per run). */
export function terminalEvent(effect: {
	readonly runId: string;
	readonly goalId: string;
	readonly status: TerminalStatus;
	readonly detail?: string;
	readonly tokens: number;
}): RunStateEvent {
	const status: RunStatus =
		effect.status === "cancelled" || effect.status === "replaced" || effect.status === "cleared"
			? "cleared"
			: effect.status;
	const detail =
		effect.detail ??
		(effect.status === "cancelled"
			? "cancelled by pi-goal:cancel"
			: effect.status === "replaced"
				? "managed goal superseded by another goal"
				: undefined);
	return {
		type: "state",
		runId: effect.runId,
		goalId: effect.goalId,
		status,
		...(detail === undefined ? {} : status === "complete" ? { summary: detail } : { reason: detail }),
		tokens: effect.tokens,
	};
}

/**
 * Emits a terminal state on the run's channel after the current transition settles (as the peer
 * does: a listener may start the next run). A stale bus or a throwing listener is ignored.
 */
export function emitTerminal(
	events: { emit(channel: string, data: unknown): void },
	effect: Parameters<typeof terminalEvent>[0],
): void {
	const event = terminalEvent(effect);
	queueMicrotask(() => {
		try {
			events.emit(`${RUN_EVENT_PREFIX}${effect.runId}`, event);
		} catch {
			// A stale bus after reload, or a throwing listener: nothing to tell.
		}
	});
}

/** An error event on the run's channel. */
export function errorEvent(
	runId: string,
	operation: "start" | "cancel",
	code: RunErrorCode,
	message: string,
): RunErrorEvent {
	return { type: "error", runId, operation, error: { code, message } };
}
