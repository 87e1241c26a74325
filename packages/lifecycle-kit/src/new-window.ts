/**
 * New-window drafts (`pi-lifecycle:new-window:v1`): an extension that must put something into the
 * next context window (pi-goal's contract) hands it to the owner of the pending reset (pi-reset),
 * which proposes it together with its reset.
 *
 * Why: the alternative is that extension's own `turn_end` handler for the reset turn, and Pi
 * rebuilds a preview of the whole branch (a copy into an in-memory session plus a projection) after
 * every boundary handler, so each extra handler costs one more whole-branch copy per reset, growing
 * with the session. An offer that nobody accepts (no reset owner, or an older one) changes nothing:
 * the offerer subscribes `turn_end` as before.
 *
 * Installed Pi packages load with separate module roots, so the offer crosses over `pi.events`
 * (synchronous: the owner accepts before `emit` returns).
 */
import type { ExtensionAPI, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";

/** Emitted by an extension with drafts for the next context window. */
export const NEW_WINDOW_CHANNEL = "pi-lifecycle:new-window:v1";

/** Payload of {@link NEW_WINDOW_CHANNEL}. */
export interface NewWindowOffer {
	/** `ctx.sessionManager` of the session whose next window the drafts are for (compared by identity). */
	readonly session: object;
	/** Who offers (one offer per owner is kept; a later one replaces it). */
	readonly owner: string;
	/**
	 * Called once, inside the boundary handler that proposes the reset: the drafts for the new
	 * window, in order (custom entries and custom messages only).
	 */
	readonly drafts: () => readonly SessionBoundaryDraft[];
	/** Set by the reset owner that will call `drafts` at its reset boundary. */
	accepted: boolean;
}

/** The part of `pi.events` the two sides need. */
export type NewWindowBus = Pick<ExtensionAPI["events"], "emit" | "on">;

/**
 * Offers drafts for the next window of `session` to the owner of a pending reset. Returns true when
 * one accepted: it calls `drafts` when it proposes the reset, and the caller needs no `turn_end`
 * handler for it. Never throws (false when the bus refuses).
 */
export function offerNewWindowDrafts(
	bus: Pick<NewWindowBus, "emit">,
	session: object,
	owner: string,
	drafts: () => readonly SessionBoundaryDraft[],
): boolean {
	const offer: NewWindowOffer = { session, owner, drafts, accepted: false };
	try {
		bus.emit(NEW_WINDOW_CHANNEL, offer);
	} catch {
		return false;
	}
	return offer.accepted === true;
}

interface Accepted {
	readonly session: object;
	readonly drafts: () => readonly SessionBoundaryDraft[];
}

/** Only entries that open a window: custom entries and custom messages (no reset, no edit of the old one). */
function opensWindow(draft: SessionBoundaryDraft): boolean {
	return draft.type === "custom" || draft.type === "custom_message";
}

/** The reset owner's side: accepts offers while a reset is pending and proposes them with it. */
export class NewWindowCollector {
	readonly #offers = new Map<string, Accepted>();

	/**
	 * Subscribes to offers: each is read once and accepted while `resetPending()` (a reset will be
	 * proposed at a boundary of this run). Returns the unsubscribe function.
	 */
	listen(bus: Pick<NewWindowBus, "on">, resetPending: () => boolean): () => void {
		return bus.on(NEW_WINDOW_CHANNEL, (payload: unknown) => {
			try {
				if (typeof payload !== "object" || payload === null) return;
				const p = payload as Record<string, unknown>;
				const session = p.session;
				const owner = p.owner;
				const drafts = p.drafts;
				if (typeof session !== "object" || session === null) return;
				if (typeof owner !== "string" || typeof drafts !== "function") return;
				if (!resetPending()) return;
				this.#offers.set(owner, { session, drafts: drafts as Accepted["drafts"] });
				p.accepted = true;
			} catch {
				// A hostile payload or a stale runtime: the offerer falls back to its own turn_end.
			}
		});
	}

	/** Offers held. */
	get size(): number {
		return this.#offers.size;
	}

	/**
	 * The drafts of every offer for `session`, in offer order, and forgets all offers (each is
	 * proposed once). A throwing offer, and any draft that is not a custom entry or custom message,
	 * is skipped.
	 */
	take(session: object): SessionBoundaryDraft[] {
		const offers = [...this.#offers.values()];
		this.#offers.clear();
		const out: SessionBoundaryDraft[] = [];
		for (const offer of offers) {
			if (offer.session !== session) continue;
			try {
				const drafts = [...offer.drafts()].filter(opensWindow);
				out.push(...drafts);
			} catch {
				// The offerer's state went stale; the reset itself goes ahead.
			}
		}
		return out;
	}

	/** Forgets all offers (session shutdown). */
	clear(): void {
		this.#offers.clear();
	}
}
