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

/**
 * Validates a `pi-goal:start` payload (pure, never throws). Each field is read exactly once, so a
 * getter cannot pass validation with one value and start the goal with another.
 */
export function readStartRequest(payload: unknown): StartRequest | string {
	try {
		if (typeof payload !== "object" || payload === null) return "payload must be an object";
		const runId = field(payload, "runId");
		const session = field(payload, "session");
		const rawObjective = field(payload, "objective");
		const tokens = field(payload, "tokens");
		if (typeof runId !== "string" || runId.length === 0 || runId.length > 200)
			return "runId must be a string";
		if (typeof session !== "object" || session === null) return "session must be ctx.sessionManager";
		if (typeof rawObjective !== "string") return "objective must be a string";
		const objective = rawObjective.trim();
		if (objective.length === 0 || objective.length > MAX_OBJECTIVE)
			return `objective must have 1-${MAX_OBJECTIVE} characters`;
		let tokenBudget: number | null = null;
		if (tokens !== undefined && tokens !== null) {
			const parsed =
				typeof tokens === "number" && Number.isSafeInteger(tokens) && tokens > 0
					? tokens
					: typeof tokens === "string" && tokens.length <= 40
						? parseTokenCount(tokens)
						: undefined;
			if (parsed === undefined) return "tokens must be a positive integer or a string like 100k";
			tokenBudget = parsed;
		}
		return { objective, tokenBudget, runId, session };
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
		try {
			const ctx = deps.controller.ctx;
			const request = readStartRequest(payload);
			if (typeof request === "string")
				return reject(field(payload, "runId"), field(payload, "session"), request);
			if (!ctx || request.session !== ctx.sessionManager) return; // another session's request
			if (isUnfinished(deps.controller.goal))
				return reject(request.runId, request.session, "another goal is unfinished in this session");
			const error = startGoal(deps, ctx, request);
			if (error) reject(request.runId, request.session, error);
		} catch {
			// Never throw into the emitter (a listener of the terminal event may throw too).
		}
	});
	pi.events.on(CANCEL_CHANNEL, (payload: unknown) => {
		try {
			const ctx = deps.controller.ctx;
			const session = field(payload, "session");
			const runId = field(payload, "runId");
			if (!ctx || session !== ctx.sessionManager || typeof runId !== "string") return;
			const goal = deps.controller.goal;
			if (goal?.runId !== runId) return;
			const running = !ctx.isIdle();
			deps.controller.apply({ type: "clear", reason: "cancelled" }, ctx);
			deps.waker.cancel();
			if (running) ctx.abort();
		} catch {
			// Never throw into the emitter.
		}
	});
}
