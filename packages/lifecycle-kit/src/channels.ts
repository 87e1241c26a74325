/**
 * Cross-extension bus channels other than the mutex. Installed Pi packages load with separate
 * module roots, so everything that crosses extensions goes over `pi.events`.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/** Emitted by pi-reset after a committed reset boundary. */
export const RESET_CHANNEL = "pi-lifecycle:reset:v1";

/** Payload of {@link RESET_CHANNEL}. */
export interface ResetAnnouncement {
	/** `ctx.sessionManager` of the session that was reset (compare by identity). */
	readonly session: object;
	/** The id of the new context window. */
	readonly windowId: string;
	/** The id of the compaction entry that starts the new window. */
	readonly entryId: string;
}

/** Defensive check for a {@link RESET_CHANNEL} payload (never throws). */
export function isResetAnnouncement(payload: unknown): payload is ResetAnnouncement {
	try {
		if (typeof payload !== "object" || payload === null) return false;
		const p = payload as Record<string, unknown>;
		return (
			typeof p.session === "object" &&
			p.session !== null &&
			typeof p.windowId === "string" &&
			typeof p.entryId === "string"
		);
	} catch {
		return false;
	}
}

/**
 * Reads a {@link RESET_CHANNEL} payload once into a plain announcement (never throws). Listeners
 * use the copy, never the payload: a getter that answers differently on a second read, or throws
 * on it, cannot slip a value past the check or throw into the emitter.
 */
export function readResetAnnouncement(payload: unknown): ResetAnnouncement | undefined {
	try {
		if (typeof payload !== "object" || payload === null) return undefined;
		const p = payload as Record<string, unknown>;
		const session = p.session;
		const windowId = p.windowId;
		const entryId = p.entryId;
		if (typeof session !== "object" || session === null) return undefined;
		if (typeof windowId !== "string" || typeof entryId !== "string") return undefined;
		return { session, windowId, entryId };
	} catch {
		return undefined;
	}
}

/** The part of `pi.events` a reset listener needs. */
export type ResetBus = Pick<ExtensionAPI["events"], "on">;

/**
 * Subscribes to {@link RESET_CHANNEL} for one extension: each payload is read once
 * ({@link readResetAnnouncement}), announcements of another session are dropped (`currentSession`
 * returns `ctx.sessionManager` of the bound session, or undefined when none is bound), and nothing
 * the listener throws reaches the emitter (it is written to stderr with `source` as prefix).
 * Returns the unsubscribe function.
 */
export function onResetAnnouncement(
	bus: ResetBus,
	source: string,
	currentSession: () => object | undefined,
	listener: (announcement: ResetAnnouncement) => void,
): () => void {
	return bus.on(RESET_CHANNEL, (payload: unknown) => {
		const announcement = readResetAnnouncement(payload);
		if (!announcement) return;
		let current: object | undefined;
		try {
			current = currentSession();
		} catch {
			return; // A stale context: the new runtime listens for its own session.
		}
		if (current === undefined || announcement.session !== current) return;
		try {
			listener(announcement);
		} catch (error) {
			console.error(`${source}: handling a reset announcement failed (${(error as Error).message})`);
		}
	});
}
