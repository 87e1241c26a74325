/**
 * Subscriptions that exist only while armed.
 *
 * Pi pays for some events per registered handler, whatever the handler does: for each `context`
 * handler it copies the request's message list twice and compares the copies before every provider
 * request (the one `structuredClone` of the list happens for every request either way), and with
 * any `turn_end` / `agent_before_settle` handler it builds a context preview of the session at every
 * boundary. Both grow with session length. An extension that needs such an event only sometimes
 * (a pending reset, a contract to restore, a warning near the end of the window) subscribes while
 * it needs it and unsubscribes after. Pi checks for handlers when it dispatches, so an unsubscribed
 * event costs nothing.
 */

/** A subscription that can be switched on and off. */
export interface ArmedSubscription {
	/** Subscribes (idempotent). Takes effect from the next dispatch Pi starts. */
	arm(): void;
	/** Unsubscribes (idempotent). A dispatch already under way still calls the handler once. */
	disarm(): void;
	/** Whether the handler is subscribed. */
	readonly armed: boolean;
}

/**
 * Wraps one or more `pi.on` registrations so they can be armed and disarmed. Each function in
 * `subscribe` registers one handler and returns Pi's unsubscribe function.
 *
 * @example
 * const contextHook = createArmedSubscription(() => pi.on("context", (event) => restore(event)));
 * contextHook.arm(); // after a compaction, until the contract is persisted again
 */
export function createArmedSubscription(...subscribe: readonly (() => () => void)[]): ArmedSubscription {
	let unsubscribers: (() => void)[] = [];
	return {
		arm() {
			if (unsubscribers.length > 0) return;
			unsubscribers = subscribe.map((register) => register());
		},
		disarm() {
			const current = unsubscribers;
			unsubscribers = [];
			for (const unsubscribe of current) unsubscribe();
		},
		get armed() {
			return unsubscribers.length > 0;
		},
	};
}
