/**
 * Optional usage-limit recovery (`retryUsageLimits`): owns the one pending `usage:query:v1` query
 * of a usage-limit wait and checks the wait's model scope. The wait itself (absolute `resumeAt`,
 * 15-minute fallback) is goal state; its timer lives in wake.ts and only requests intent. A query
 * answer can only move the deadline of the exact wait it was asked for, after revalidating the
 * session, model, goal and generation. Persisted: only the chosen deadline (goal state).
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { LifecycleIdentity } from "@pi-lifecycle/lifecycle-kit";
import type { GoalRecord, UsageLimitScope } from "../core/types.js";
import { selectResetHint } from "../core/usage-reset.js";
import type { GoalController } from "./controller.js";
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

/** The selected model as far as scope checks need it. */
type ModelLike = { readonly provider: string; readonly id: string; readonly name?: string } | undefined;

function waitKey(goal: GoalRecord | null): string | undefined {
	const wait = goal?.status === "active" ? goal.wait : undefined;
	return goal && wait?.kind === "usage_limit" && wait.resumeAt != null
		? `${goal.id}@${wait.resumeAt}`
		: undefined;
}

/** Whether the selected model is the one the usage limit rejected. */
export function sameScope(model: ModelLike, scope: UsageLimitScope): boolean {
	return model !== undefined && model.provider === scope.provider && model.id === scope.model;
}

function currentModel(ctx: ExtensionContext | undefined): ModelLike {
	try {
		return ctx?.model as ModelLike;
	} catch {
		return undefined;
	}
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

	/**
	 * Stops a usage-limit wait whose model is no longer selected (a model-scope mismatch stops
	 * quota recovery as usage_limited). Returns true when the goal was stopped.
	 */
	stopOnModelMismatch(model: ModelLike, ctx?: ExtensionContext): boolean {
		const { controller } = this.#deps;
		const wait = controller.goal?.status === "active" ? controller.goal.wait : undefined;
		if (wait?.kind !== "usage_limit" || !wait.usageLimit || sameScope(model, wait.usageLimit)) return false;
		const scope = wait.usageLimit;
		const to = model ? `${model.provider}/${model.id}` : "no model";
		controller.apply(
			{
				type: "usage_limited",
				detail: `usage limit of ${scope.provider}/${scope.model}; the model changed to ${to}`,
			},
			ctx,
		);
		return true;
	}

	/** Checks a due usage-limit wait against the selected model; false when it stopped the goal. */
	checkDue(): boolean {
		const ctx = this.#deps.controller.ctx;
		return !this.stopOnModelMismatch(currentModel(ctx), ctx);
	}
}
