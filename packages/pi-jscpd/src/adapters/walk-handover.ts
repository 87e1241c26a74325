/**
 * Rule "a reload keeps the last walk": `/reload` builds a new runtime, whose first walk would become
 * the reference, so a file another process (or an unchecked command) changed since the last walk
 * would count as unchanged for the rest of the session. The last walk is handed to the next runtime
 * of the same session, project and trust instead, through one process-wide slot under a versioned
 * `Symbol.for` name (a reload may load a new copy of this module). One slot: at most one walk is held,
 * and a start that is not the reload's takes it away.
 */

const SLOT = Symbol.for("pi-lifecycle/pi-jscpd/walk-handover/v1");

interface Held<T> {
	readonly key: string;
	readonly value: T;
}

function holder(): { [SLOT]?: Held<unknown> } {
	return globalThis as { [SLOT]?: Held<unknown> };
}

/** Who may take a handed-over walk: the same session, project root and trust. */
export function handOverKey(sessionId: string, root: string, trusted: boolean): string {
	return JSON.stringify([sessionId, root, trusted]);
}

/** Holds `value` for the next runtime (replaces anything held). */
export function handOver<T>(key: string, value: T): void {
	holder()[SLOT] = { key, value };
}

/** Takes what was handed over under `key` (the slot is emptied either way). */
export function takeHandedOver<T>(key: string): T | undefined {
	const held = holder()[SLOT];
	delete holder()[SLOT];
	return held?.key === key ? (held.value as T) : undefined;
}
