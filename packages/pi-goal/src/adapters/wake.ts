/**
 * Idle starts: kickoff while idle, /goal resume, a goal_wait deadline, a restored active goal and
 * the settled fallback all go through the kit's IdleDispatcher (sent only when idle, with no
 * pending messages, by the current owner; a failed send is restored). One key, so repeated
 * triggers never send twice. A delivered prompt is accepted at before_agent_start only with the
 * outstanding nonce: a delayed prompt of a replaced, stopped or cleared goal is aborted.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { IdleDispatcher, LifecycleIdentity } from "@pi-lifecycle/lifecycle-kit";
import { budgetExhausted } from "../core/accounting.js";
import type { ContinuationDetails } from "../core/contract.js";
import { continuationMessage } from "../core/contract.js";
import { automaticAllowed } from "../core/safety.js";
import type { GoalController } from "./controller.js";

/** The dispatcher key of goal wake-ups. */
export const WAKE_KEY = "pi-goal:wake";

/** Timer functions (injectable for tests). */
export interface Timers {
	setTimeout(fn: () => void, ms: number): unknown;
	clearTimeout(handle: unknown): void;
}

/** Longest single timer delay (setTimeout's limit); longer waits re-arm. */
const MAX_DELAY = 2 ** 31 - 1;

/** Dependencies of {@link GoalWaker}. */
export interface WakerDeps {
	readonly pi: Pick<ExtensionAPI, "sendMessage">;
	readonly controller: GoalController;
	readonly dispatcher: IdleDispatcher<ExtensionContext>;
	readonly identity: LifecycleIdentity;
	readonly timers: Timers;
	readonly nonce: () => string;
	/** Whether goal_complete and goal_blocked are active tools (rechecked before every send). */
	readonly helpersAvailable?: () => boolean;
}

/** Why a goal prompt is sent from idle. */
export type WakeKind = ContinuationDetails["kind"];

/** Owns idle wake-ups and wait-deadline timers for one runtime. */
export class GoalWaker {
	readonly #deps: WakerDeps;
	#outstanding: string | undefined;
	/** A prompt Pi deferred (sent while another agent_settled handler ran); accepted when it starts. */
	#deferred: string | undefined;
	/** Kind of the queued intent: a recovery request is never downgraded to a plain continuation. */
	#queued: WakeKind | undefined;
	#timer: { handle: unknown; key: string } | undefined;
	#soon = false;

	constructor(deps: WakerDeps) {
		this.#deps = deps;
	}

	/** Queues (or replaces) the wake intent for the current goal. */
	request(requested: WakeKind): void {
		const { controller, dispatcher, identity } = this.#deps;
		const goalId = controller.goal?.id;
		if (!goalId) return;
		// A usage-limit deadline that fired while Pi was busy keeps its recovery request (and exemption).
		const kind =
			this.#queued === "recovery" && requested === "continuation" && dispatcher.has(WAKE_KEY)
				? "recovery"
				: requested;
		this.#queued = kind;
		const automatic = kind === "continuation" || kind === "wake" || kind === "recovery";
		dispatcher.request({
			key: WAKE_KEY,
			guard: identity.guard("generation"),
			eligible: () => {
				const goal = controller.goal;
				if (!goal || goal.id !== goalId || !controller.working || !controller.owned) return false;
				if (budgetExhausted(goal, controller.branchTotal)) return false;
				return !automatic || automaticAllowed(goal.safety, controller.settings);
			},
			send: (ctx) => this.#send(ctx, kind),
		});
	}

	#send(ctx: ExtensionContext, kind: WakeKind): boolean {
		const { controller, pi } = this.#deps;
		this.#queued = undefined;
		if (this.#deps.helpersAvailable && !this.#deps.helpersAvailable()) {
			// Hidden after the goal started (an allowlist, another extension): it could never finish.
			controller.apply({ type: "pause", reason: "helpers-unavailable" }, ctx);
			return true; // nothing to restore: the goal stopped
		}
		if (kind === "continuation" || kind === "wake" || kind === "recovery")
			controller.apply({ type: "continued" }, ctx);
		const goal = controller.goal;
		if (!goal) return false;
		const nonce = this.#deps.nonce();
		this.#outstanding = nonce;
		pi.sendMessage(continuationMessage({ goalId: goal.id, iteration: goal.iteration, nonce, kind }), {
			triggerTurn: true,
		});
		// Pi marks the session busy synchronously when the run starts. Still idle: not started now,
		// or deferred by Pi until other agent_settled handlers finish; a deferred prompt that starts
		// later is accepted once (the intent stays queued in case it never arrives).
		const started = !ctx.isIdle();
		if (!started) {
			this.#deferred = nonce;
			this.#outstanding = undefined;
			this.#queued = kind;
		}
		return started;
	}

	/** Kind of the queued wake intent, if any (a boundary continuation keeps a queued recovery). */
	get queued(): WakeKind | undefined {
		return this.#deps.dispatcher.has(WAKE_KEY) ? this.#queued : undefined;
	}

	/** Tries to send now (commands, timers). Never throws. */
	flush(ctx: ExtensionContext | undefined = this.#deps.controller.ctx): void {
		if (!ctx || !this.#deps.dispatcher.has(WAKE_KEY)) return;
		this.#deps.dispatcher.flush(ctx).catch(() => undefined);
	}

	/** Flushes after the current handler chain (agent_settled, restore): Pi is idle by then. */
	flushSoon(): void {
		if (this.#soon || !this.#deps.dispatcher.has(WAKE_KEY)) return;
		this.#soon = true;
		const guard = this.#deps.identity.guard("generation");
		setImmediate(() => {
			this.#soon = false;
			if (guard.isCurrent()) this.flush();
		});
	}

	/** Drops a queued wake and invalidates an outstanding prompt (a newer prompt supersedes it). */
	cancel(): void {
		this.#deps.dispatcher.cancel(WAKE_KEY);
		this.#outstanding = undefined;
		this.#deferred = undefined;
		this.#queued = undefined;
	}

	/** Whether a delivered goal prompt is the outstanding one for the current active goal. */
	accept(details: ContinuationDetails): boolean {
		const goal = this.#deps.controller.goal;
		const known =
			(this.#outstanding !== undefined && details.nonce === this.#outstanding) ||
			(this.#deferred !== undefined && details.nonce === this.#deferred);
		const ok =
			known && goal?.status === "active" && goal.id === details.goalId && this.#deps.controller.owned;
		if (ok) {
			this.#outstanding = undefined;
			this.#deferred = undefined;
			this.#queued = undefined;
			this.#deps.dispatcher.cancel(WAKE_KEY);
		}
		return ok;
	}

	/** Arms or clears the wait-deadline timer to match the goal (never extends a deadline). */
	syncTimer(): void {
		const { controller, timers, identity } = this.#deps;
		const goal = controller.goal;
		const resumeAt = goal?.status === "active" ? goal.wait?.resumeAt : undefined;
		const key = resumeAt != null && goal ? `${goal.id}@${resumeAt}` : undefined;
		if (this.#timer && this.#timer.key === key) return;
		this.clearTimer();
		if (key === undefined || resumeAt == null || !goal) return;
		const guard = identity.guard("generation");
		const delay = Math.min(MAX_DELAY, Math.max(0, resumeAt - controller.facts().now));
		const fire = () => {
			if (this.#timer?.key !== key) return;
			this.#timer = undefined;
			if (!guard.isCurrent()) return;
			const current = controller.goal;
			if (current?.id !== goal.id || current.wait?.resumeAt !== resumeAt) return;
			if (controller.facts().now < resumeAt) return this.syncTimer();
			// The reducer wakes the goal and requests one prompt (a usage-limit wait: one recovery
			// request, same goal id, after checking that its model is still selected).
			controller.apply({ type: "deadline", resumeAt });
		};
		const handle = timers.setTimeout(() => {
			// session.dispose() emits no session_shutdown: a later deadline meets a stale ctx, which
			// throws. A throw from a timer would crash the embedder; the session is gone, so drop all.
			try {
				fire();
			} catch {
				this.dispose();
			}
		}, delay);
		this.#timer = { handle, key };
	}

	/** Cancels the timer. */
	clearTimer(): void {
		if (this.#timer) this.#deps.timers.clearTimeout(this.#timer.handle);
		this.#timer = undefined;
	}

	/** Drops everything (session_shutdown). */
	dispose(): void {
		this.clearTimer();
		this.#deps.dispatcher.cancelAll();
		this.#outstanding = undefined;
		this.#deferred = undefined;
		this.#queued = undefined;
	}
}
