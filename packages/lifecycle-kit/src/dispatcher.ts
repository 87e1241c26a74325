/**
 * Settled-idle dispatch: wake-ups that start a run from idle (a wait deadline, a command issued
 * while idle, a restored goal).
 *
 * Continuations inside a run ride Pi's actionable boundaries (see boundary.ts). This dispatcher is
 * for the rest, and it keeps the seeds' rules:
 * - an intent is sent only when `ctx.isIdle()`, `!ctx.hasPendingMessages()` and its guard is current;
 * - single flight: while one send is under way no other flush sends anything, so repeated settles
 *   and competing callbacks never send an intent twice nor start two runs at once;
 * - at most one intent is sent per {@link IdleDispatcher.flush} call (one run per settled boundary);
 * - stale intents are dropped before Pi's context is touched, so a flush from a timer that outlived
 *   a reload (whose `ctx` now throws) only cleans up;
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
	// biome-ignore lint/suspicious/noConfusingVoidType: callers pass plain or async functions that return nothing.
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
	| {
			readonly kind: "blocked";
			readonly reason: "busy" | "pending-messages";
			/** Keys of stale intents (dropped even when blocked). */
			readonly stale?: readonly string[];
	  }
	| { readonly kind: "send"; readonly intent: IdleIntent<C>; readonly stale: readonly string[] }
	| { readonly kind: "none"; readonly stale: readonly string[] };

function isEligible<C extends IdleProbe>(intent: IdleIntent<C>, ctx: C): boolean {
	if (!intent.eligible) return true;
	try {
		return intent.eligible(ctx) === true;
	} catch {
		// A throwing check is a "no": the intent stays queued for a later flush.
		return false;
	}
}

/**
 * Pure selection: which queued intent (if any) may be sent now, and which are stale.
 * Stale intents are found first, without touching `ctx`; when none is current the context is not
 * probed at all. Intents whose key is in flight are skipped. Order is insertion order.
 */
export function selectIntent<C extends IdleProbe>(
	queue: readonly IdleIntent<C>[],
	inFlight: ReadonlySet<string>,
	ctx: C,
): Selection<C> {
	const stale: string[] = [];
	const current: IdleIntent<C>[] = [];
	for (const intent of queue) {
		if (intent.guard.isCurrent()) current.push(intent);
		else stale.push(intent.key);
	}
	if (current.length === 0) return { kind: "none", stale };
	if (!ctx.isIdle()) return { kind: "blocked", reason: "busy", stale };
	if (ctx.hasPendingMessages()) return { kind: "blocked", reason: "pending-messages", stale };
	for (const intent of current) {
		if (inFlight.has(intent.key)) continue;
		if (!isEligible(intent, ctx)) continue;
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
	 * `agent_settled`, timers and commands, any number of times; never rejects. Stale intents are
	 * dropped. While a send is under way it returns `in-flight` and sends nothing.
	 *
	 * Inside `agent_settled` Pi defers the run a send requests until every settled handler has
	 * returned, so `ctx.isIdle()` stays true there: flush once per settle, not in a loop.
	 */
	async flush(ctx: C): Promise<FlushOutcome> {
		// Single flight across keys: one send (one run) at a time per dispatcher.
		const underWay = this.#inFlight.values().next();
		if (!underWay.done) return { status: "in-flight", key: underWay.value };
		const queue = [...this.#slots.values()].map((slot) => slot.intent);
		let selection: Selection<C>;
		try {
			selection = selectIntent(queue, this.#inFlight, ctx);
		} catch {
			// Pi's ctx throws once its runtime is stale (after reload or session replacement).
			return { status: "idle-blocked", reason: "busy" };
		}
		for (const key of selection.stale ?? []) this.#slots.delete(key);
		if (selection.kind === "blocked") return { status: "idle-blocked", reason: selection.reason };
		if (selection.kind === "none") return { status: "nothing-eligible" };
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
