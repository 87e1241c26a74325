/**
 * Settled-idle dispatch: wake-ups that start a run from idle (a wait deadline, a command issued
 * while idle, a restored goal).
 *
 * Continuations inside a run ride Pi's actionable boundaries (see boundary.ts). This dispatcher is
 * for the rest, and it keeps the seeds' rules:
 * - an intent is sent only when `ctx.isIdle()`, `!ctx.hasPendingMessages()` and its guard is current;
 * - single flight per intent: repeated settles and competing callbacks never send it twice;
 * - at most one intent is sent per {@link IdleDispatcher.flush} call (one run per settled boundary);
 * - a failed send restores the intent unless something newer replaced or cancelled it.
 *
 * The decision is a pure function ({@link selectIntent}); the class only holds the queue.
 */
import type { StaleGuard } from "./identity.js";

/** What the dispatcher needs from Pi's context. */
export interface IdleProbe {
	/** Pi's `ctx.isIdle()`: no run, no compaction. */
	isIdle(): boolean;
	/** Pi's `ctx.hasPendingMessages()`: queued steering or follow-up user messages. */
	hasPendingMessages(): boolean;
}

/** A wake-up that wants to start a run. */
export interface IdleIntent<C extends IdleProbe = IdleProbe> {
	/** Unique per purpose (e.g. `goal:wake`); a new intent with the same key replaces the old one. */
	readonly key: string;
	/** Owner identity captured when the intent was made; a stale owner's intent is dropped. */
	readonly guard: StaleGuard;
	/** Optional extra eligibility check run right before sending (budget, mode, …). */
	readonly eligible?: (ctx: C) => boolean;
	/**
	 * Starts the run (e.g. `pi.sendMessage(…, { triggerTurn: true })`). Throwing, rejecting or
	 * returning `false` counts as a failed send.
	 */
	readonly send: (ctx: C) => void | boolean | Promise<void | boolean>;
}

/** Why an intent was or was not sent by one flush. */
export type FlushOutcome =
	| { readonly status: "sent"; readonly key: string }
	| { readonly status: "failed"; readonly key: string; readonly error: unknown; readonly restored: boolean }
	| { readonly status: "idle-blocked"; readonly reason: "busy" | "pending-messages" }
	| { readonly status: "nothing-eligible" }
	| { readonly status: "in-flight"; readonly key: string };

/** One queued intent with its bookkeeping. */
interface Slot<C extends IdleProbe> {
	readonly intent: IdleIntent<C>;
	/** Monotonic stamp: a restore only happens if the slot was not replaced since. */
	readonly stamp: number;
}

/** Result of the pure selection step. */
export type Selection<C extends IdleProbe> =
	| { readonly kind: "blocked"; readonly reason: "busy" | "pending-messages" }
	| { readonly kind: "send"; readonly intent: IdleIntent<C>; readonly stale: readonly string[] }
	| { readonly kind: "none"; readonly stale: readonly string[] };

/**
 * Pure selection: which queued intent (if any) may be sent now, and which are stale.
 * Intents whose key is in flight are skipped. Order is insertion order.
 */
export function selectIntent<C extends IdleProbe>(
	queue: readonly IdleIntent<C>[],
	inFlight: ReadonlySet<string>,
	ctx: C,
): Selection<C> {
	if (!ctx.isIdle()) return { kind: "blocked", reason: "busy" };
	if (ctx.hasPendingMessages()) return { kind: "blocked", reason: "pending-messages" };
	const stale: string[] = [];
	for (const intent of queue) {
		if (!intent.guard.isCurrent()) {
			stale.push(intent.key);
			continue;
		}
		if (inFlight.has(intent.key)) continue;
		if (intent.eligible && !intent.eligible(ctx)) continue;
		return { kind: "send", intent, stale };
	}
	return { kind: "none", stale };
}

/** Queue of idle wake-ups for one extension runtime. */
export class IdleDispatcher<C extends IdleProbe = IdleProbe> {
	readonly #slots = new Map<string, Slot<C>>();
	readonly #inFlight = new Set<string>();
	/** In-flight keys cancelled during their send: never restored. */
	readonly #cancelledInFlight = new Set<string>();
	#stamp = 0;

	/** Queues (or replaces) an intent. Nothing is sent until {@link flush}. */
	request(intent: IdleIntent<C>): void {
		this.#slots.set(intent.key, { intent, stamp: ++this.#stamp });
	}

	/** Drops an intent; an in-flight send of it will not be restored on failure. */
	cancel(key: string): boolean {
		if (this.#inFlight.has(key)) this.#cancelledInFlight.add(key);
		return this.#slots.delete(key);
	}

	/** Drops every intent, including restores of sends under way. */
	cancelAll(): void {
		for (const key of this.#inFlight) this.#cancelledInFlight.add(key);
		this.#slots.clear();
	}

	/** Whether an intent with this key is queued (not counting one being sent). */
	has(key: string): boolean {
		return this.#slots.has(key);
	}

	/** Keys of queued intents, in order. */
	get pendingKeys(): string[] {
		return [...this.#slots.keys()];
	}

	/** Whether a send for this key is under way. */
	isInFlight(key: string): boolean {
		return this.#inFlight.has(key);
	}

	/**
	 * Sends at most one eligible intent if Pi is idle with nothing queued. Safe to call from
	 * `agent_settled`, timers and commands, any number of times. Stale intents are dropped.
	 */
	async flush(ctx: C): Promise<FlushOutcome> {
		const queue = [...this.#slots.values()].map((slot) => slot.intent);
		const selection = selectIntent(queue, this.#inFlight, ctx);
		if (selection.kind === "blocked") return { status: "idle-blocked", reason: selection.reason };
		for (const key of selection.stale) this.#slots.delete(key);
		if (selection.kind === "none") {
			const busyKey = [...this.#slots.keys()].find((key) => this.#inFlight.has(key));
			return busyKey ? { status: "in-flight", key: busyKey } : { status: "nothing-eligible" };
		}
		const { intent } = selection;
		const slot = this.#slots.get(intent.key);
		// Take the intent out before sending: a second flush during the send cannot see it.
		this.#slots.delete(intent.key);
		this.#inFlight.add(intent.key);
		let failure: { error: unknown } | undefined;
		try {
			const accepted = await intent.send(ctx);
			if (accepted === false) failure = { error: new Error(`send of ${intent.key} was not accepted`) };
		} catch (error) {
			failure = { error };
		}
		const cancelled = this.#cancelledInFlight.delete(intent.key);
		this.#inFlight.delete(intent.key);
		if (!failure) return { status: "sent", key: intent.key };
		const replaced = this.#slots.has(intent.key);
		const restored = !cancelled && !replaced && intent.guard.isCurrent() && slot !== undefined;
		if (restored && slot) this.#slots.set(intent.key, slot);
		return { status: "failed", key: intent.key, error: failure.error, restored };
	}
}
