/**
 * Rule "a reload keeps the last walk": `/reload` builds a new runtime, whose first walk would become
 * the reference, so a file another process (or an unchecked command) changed since the last walk
 * would count as unchanged for the rest of the session. The last walk is handed to the next runtime
 * of the same session, project and trust instead, through one process-wide slot (the kit's
 * `processWideValue`: a reload may load a new copy of this module). One slot: at most one walk is
 * held, and a start that is not the reload's takes it away. The slot is a box under a `v2` name
 * (`v1` held the walk itself: a new name keeps the two shapes apart).
 */
import { processWideValue } from "@pi-lifecycle/lifecycle-kit";

interface Held<T> {
	readonly key: string;
	readonly value: T;
}

function slot(): { held?: Held<unknown> } {
	return processWideValue<{ held?: Held<unknown> }>("pi-lifecycle/pi-jscpd/walk-handover/v2", () => ({}));
}

/** Who may take a handed-over walk: the same session, project root and trust. */
export function handOverKey(sessionId: string, root: string, trusted: boolean): string {
	return JSON.stringify([sessionId, root, trusted]);
}

/** Holds `value` for the next runtime (replaces anything held). */
export function handOver<T>(key: string, value: T): void {
	slot().held = { key, value };
}

/** Takes what was handed over under `key` (the slot is emptied either way). */
export function takeHandedOver<T>(key: string): T | undefined {
	const box = slot();
	const held = box.held;
	box.held = undefined;
	return held?.key === key ? (held.value as T) : undefined;
}
