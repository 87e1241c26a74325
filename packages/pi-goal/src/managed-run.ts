/**
 * Opt-in managed-run protocol on `pi.events` (see README): another extension starts a goal with
 * `pi-goal:start`, may cancel it with `pi-goal:cancel`, and receives exactly one terminal
 * `pi-goal:event:<runId>`. Listeners never throw; malformed or foreign-session payloads are ignored.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { parseTokenCount } from "./accounting.js";
import { type CommandDeps, startGoal } from "./commands.js";
import { RUN_EVENT_PREFIX } from "./controller.js";
import { isUnfinished, MAX_OBJECTIVE } from "./types.js";

/** Start channel. */
export const START_CHANNEL = "pi-goal:start";
/** Cancel channel. */
export const CANCEL_CHANNEL = "pi-goal:cancel";

/** A validated start request. */
export interface StartRequest {
	readonly objective: string;
	readonly tokenBudget: number | null;
	readonly runId: string;
	readonly session: object;
}

/** Validates a `pi-goal:start` payload (pure, never throws). */
export function readStartRequest(payload: unknown): StartRequest | string {
	try {
		if (typeof payload !== "object" || payload === null) return "payload must be an object";
		const p = payload as Record<string, unknown>;
		if (typeof p.runId !== "string" || p.runId.length === 0 || p.runId.length > 200)
			return "runId must be a string";
		if (typeof p.session !== "object" || p.session === null) return "session must be ctx.sessionManager";
		if (typeof p.objective !== "string") return "objective must be a string";
		const objective = p.objective.trim();
		if (objective.length === 0 || objective.length > MAX_OBJECTIVE)
			return `objective must have 1-${MAX_OBJECTIVE} characters`;
		let tokenBudget: number | null = null;
		if (p.tokens !== undefined && p.tokens !== null) {
			const parsed =
				typeof p.tokens === "number" && Number.isSafeInteger(p.tokens) && p.tokens > 0
					? p.tokens
					: typeof p.tokens === "string"
						? parseTokenCount(p.tokens)
						: undefined;
			if (parsed === undefined) return "tokens must be a positive integer or a string like 100k";
			tokenBudget = parsed;
		}
		return { objective, tokenBudget, runId: p.runId, session: p.session };
	} catch {
		return "unreadable payload";
	}
}

/** Subscribes the managed-run channels. */
export function registerManagedRuns(pi: Pick<ExtensionAPI, "events">, deps: CommandDeps): void {
	const reject = (runId: unknown, session: unknown, reason: string) => {
		if (typeof runId !== "string" || runId.length === 0) return;
		pi.events.emit(`${RUN_EVENT_PREFIX}${runId}`, {
			type: "terminal",
			runId,
			status: "rejected",
			detail: reason,
			session,
		});
	};
	pi.events.on(START_CHANNEL, (payload: unknown) => {
		const ctx = deps.controller.ctx;
		const request = readStartRequest(payload);
		const raw = (typeof payload === "object" && payload !== null ? payload : {}) as Record<string, unknown>;
		if (typeof request === "string") return reject(raw.runId, raw.session, request);
		if (!ctx || request.session !== ctx.sessionManager) return; // another session's request
		if (isUnfinished(deps.controller.goal))
			return reject(request.runId, request.session, "another goal is unfinished in this session");
		const error = startGoal(deps, ctx, request);
		if (error) reject(request.runId, request.session, error);
	});
	pi.events.on(CANCEL_CHANNEL, (payload: unknown) => {
		try {
			const ctx = deps.controller.ctx;
			const p = payload as Record<string, unknown>;
			if (!ctx || p?.session !== ctx.sessionManager || typeof p.runId !== "string") return;
			const goal = deps.controller.goal;
			if (goal?.runId !== p.runId) return;
			const running = !ctx.isIdle();
			deps.controller.apply({ type: "clear", reason: "cancelled" }, ctx);
			deps.waker.cancel();
			if (running) ctx.abort();
		} catch {
			// Never throw into the emitter.
		}
	});
}
