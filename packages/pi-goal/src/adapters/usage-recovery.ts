/**
 * Optional usage-limit recovery (`retryUsageLimits`): owns the one pending `usage:query:v1` query
 * of a usage-limit wait and checks the wait's model scope. The wait itself (absolute `resumeAt`,
 * 15-minute fallback) is goal state; its timer lives in wake.ts and only requests intent. A query
 * answer can only move the deadline of the exact wait it was asked for, after revalidating the
 * session, model, goal and generation. Persisted: only the chosen deadline (goal state).
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { LifecycleIdentity } from "@pi-lifecycle/lifecycle-kit";
import { sameScope } from "../core/goal-machine.js";
import type { GoalRecord } from "../core/types.js";
import { selectResetHint } from "../core/usage-reset.js";
import type { GoalController } from "./controller.js";
import { currentModel } from "./host-facts.js";
import { queryUsage } from "./usage-query.js";
import type { Timers } from "./wake.js";

/** Dependencies of {@link UsageRecovery}. */
export interface UsageRecoveryDeps {
	readonly pi: Pick<ExtensionAPI, "events">;
	readonly controller: GoalController;
	readonly identity: LifecycleIdentity;
	readonly timers: Timers;
	readonly now: () => number;
}

function waitKey(goal: GoalRecord | null): string | undefined {
	const wait = goal?.status === "active" ? goal.wait : undefined;
	return goal && wait?.kind === "usage_limit" && wait.resumeAt != null
		? `${goal.id}@${wait.resumeAt}`
		: undefined;
}

/** Owns usage-limit reset-hint queries for one runtime. */
export class UsageRecovery {
	readonly #deps: UsageRecoveryDeps;
	#pending: { readonly key: string; readonly abort: AbortController } | undefined;

	constructor(deps: UsageRecoveryDeps) {
		this.#deps = deps;
	}

	/** Whether a query is pending (tests, status). */
	get pending(): boolean {
		return this.#pending !== undefined;
	}

	/** Asks `usage:query:v1` for a reset hint for the goal's current usage-limit wait. */
	query(ctx: ExtensionContext): void {
		const { controller, identity, pi, timers, now } = this.#deps;
		const goal = controller.goal;
		const key = waitKey(goal);
		const wait = goal?.wait;
		if (!goal || !key || !wait?.usageLimit || wait.resumeAt == null) return;
		this.cancel();
		const model = currentModel(ctx);
		if (!sameScope(model, wait.usageLimit) || !model) return;
		const abort = new AbortController();
		this.#pending = { key, abort };
		const session = ctx.sessionManager;
		const sessionId = session.getSessionId();
		const guard = identity.guard("generation");
		const from = wait.resumeAt;
		const limit = wait.usageLimit;
		const scope = { provider: model.provider, modelId: model.id, modelName: model.name };
		const requestedAt = now();
		queryUsage(pi.events, scope, { now, timers, signal: abort.signal }).then((result) => {
			if (this.#pending?.key === key && this.#pending.abort === abort) this.#pending = undefined;
			if (!result.ok || abort.signal.aborted || !guard.isCurrent()) return;
			// Revalidate everything the request was bound to before touching the deadline.
			const live = controller.ctx;
			if (!live || live.sessionManager !== session || waitKey(controller.goal) !== key) return;
			if (live.sessionManager.getSessionId() !== sessionId || !sameScope(currentModel(live), limit)) return;
			const hint = selectResetHint(result.report, scope, requestedAt, now());
			if (hint.ok) controller.apply({ type: "reschedule", from, to: hint.resumeAt }, live);
		});
	}

	/**
	 * Follows the goal state (called on every change): a pending query whose wait is gone (pause,
	 * clear, edit, replacement, completion, limits, model change, wake) is cancelled.
	 */
	sync(): void {
		if (this.#pending && waitKey(this.#deps.controller.goal) !== this.#pending.key) this.cancel();
	}

	/** Cancels the pending query. */
	cancel(): void {
		this.#pending?.abort.abort();
		this.#pending = undefined;
	}
}
