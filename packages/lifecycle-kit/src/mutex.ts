/**
 * `workflow:mutex:v1`: an anonymous cooperative mutex on Pi's event bus. It answers one question:
 * is this group busy in this session? The full protocol is in docs/workflow-mutex-v1.md.
 *
 * Participants never learn who holds a group. An attempt is a fresh payload object
 * `{ session, group, busy: false }` emitted synchronously; every holder's synchronous listener sets
 * `busy = true` when the attempt is for its bound session and a group it holds. Because Pi's bus
 * runs the synchronous part of every listener inside `emit()`, the emitter knows the answer as soon
 * as `emit()` returns, and commits its own ownership in the same synchronous step.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

/** The bus channel, exactly. */
export const WORKFLOW_MUTEX_CHANNEL = "workflow:mutex:v1";

/** The one group the protocol defines: "an agent workflow drives this session". */
export const AGENT_WORKFLOW_GROUP = "agent-workflow";

/** The payload of one acquisition attempt. */
export interface WorkflowMutexAttempt {
	/** `ctx.sessionManager` of the session, compared by identity. */
	readonly session: object;
	/** The group being acquired, e.g. `"agent-workflow"`. */
	readonly group: string;
	/** Set to `true` by a holder; never set back to false. */
	busy: boolean;
}

/** The part of Pi's bus the mutex uses. */
export type MutexBus = Pick<ExtensionAPI["events"], "emit" | "on">;

/** Why an acquisition failed. */
export type AcquireFailure =
	| "unbound" // no session bound (before session_start or after shutdown)
	| "busy" // another participant holds the group in this session (or tampered with the attempt)
	| "held" // this participant already holds the group and re-entrancy was not asked for
	| "disposed" // the mutex was disposed
	| "rebound"; // the session binding changed during the attempt

/** The result of {@link WorkflowMutex.tryAcquire}. */
export type AcquireResult =
	| {
			readonly acquired: true;
			/** This acquisition's own token: pass it to {@link WorkflowMutex.release}. */
			readonly token: symbol;
			/** Whether the group was already held by this participant (a nested acquisition). */
			readonly reentrant: boolean;
	  }
	| { readonly acquired: false; readonly reason: AcquireFailure };

/** Options for one {@link WorkflowMutex.tryAcquire} call. */
export interface AcquireOptions {
	/**
	 * Allow a nested acquisition while this participant already holds the group. It gets its own
	 * token, and the group stays held until every live token is released. Default false: a second
	 * acquisition fails with `"held"`.
	 */
	readonly reentrant?: boolean;
}

/** Options for {@link WorkflowMutex}. */
export interface WorkflowMutexOptions {
	/** The group this participant acquires. Default {@link AGENT_WORKFLOW_GROUP}. */
	readonly group?: string;
}

/**
 * Reads a payload defensively: hostile payloads (getters that throw, Proxies, frozen objects) must
 * never make the listener throw. Returns undefined when the attempt is not well-formed.
 */
function readAttempt(payload: unknown): { session: unknown; group: unknown; busy: unknown } | undefined {
	try {
		if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return undefined;
		const record = payload as Record<string, unknown>;
		return { session: record.session, group: record.group, busy: record.busy };
	} catch {
		return undefined;
	}
}

/**
 * One participant of `workflow:mutex:v1`. Construct it in the extension factory (its listener is
 * registered there), bind it at `session_start`, unbind at `session_shutdown`.
 */
export class WorkflowMutex {
	readonly group: string;
	readonly #bus: MutexBus;
	#session: object | undefined;
	/** One token per live acquisition; the group is held while any is live. */
	readonly #tokens = new Set<symbol>();
	#generation = 0;
	#disposed = false;
	readonly #unsubscribe: () => void;

	constructor(bus: MutexBus, options: WorkflowMutexOptions = {}) {
		this.group = options.group ?? AGENT_WORKFLOW_GROUP;
		this.#bus = bus;
		this.#unsubscribe = bus.on(WORKFLOW_MUTEX_CHANNEL, (payload: unknown) => {
			this.#respond(payload);
		});
	}

	/** Moves on every bind, unbind and dispose; an acquisition that saw another generation fails. */
	get generation(): number {
		return this.#generation;
	}

	/** Whether this participant holds its group (at least one live acquisition). */
	get held(): boolean {
		return this.#tokens.size > 0;
	}

	/** Whether `token` is a live acquisition of this participant (not released, not dropped by a rebind). */
	holds(token: symbol): boolean {
		return this.#tokens.has(token);
	}

	/** The bound session manager, if any. */
	get session(): object | undefined {
		return this.#session;
	}

	/** Binds to `ctx.sessionManager`. A different session drops any ownership of the old one. */
	bind(session: object): void {
		if (this.#session !== session) this.#tokens.clear();
		this.#session = session;
		this.#generation++;
	}

	/** Releases and unbinds (at `session_shutdown`). */
	unbind(): void {
		this.#tokens.clear();
		this.#session = undefined;
		this.#generation++;
	}

	/**
	 * Tries to acquire the group for the bound session. Finish every asynchronous check before
	 * calling: between the probe and the commit there is no `await`, so nothing can interleave.
	 * Every successful call returns a fresh token; only that token releases this acquisition.
	 * While this participant holds the group, another call fails with `"held"` unless it passes
	 * `{ reentrant: true }`.
	 */
	tryAcquire(options: AcquireOptions = {}): AcquireResult {
		if (this.#disposed) return { acquired: false, reason: "disposed" };
		const session = this.#session;
		if (!session) return { acquired: false, reason: "unbound" };
		if (this.held) return this.#nested(options);
		const generation = this.#generation;
		const attempt: WorkflowMutexAttempt = { session, group: this.group, busy: false };
		try {
			this.#bus.emit(WORKFLOW_MUTEX_CHANNEL, attempt);
		} catch {
			// A stale runtime's bus throws; treat it as unbound.
			return { acquired: false, reason: "unbound" };
		}
		// A listener may have rebound or unbound us during emit.
		if (this.#disposed) return { acquired: false, reason: "disposed" };
		if (this.#session !== session || this.#generation !== generation)
			return { acquired: false, reason: "rebound" };
		// Re-check the payload itself: a listener that rewrote session or group, set busy to anything
		// but false, or replaced a field with a throwing getter makes the attempt fail closed.
		const seen = readAttempt(attempt);
		if (!seen || seen.session !== session || seen.group !== this.group || seen.busy !== false)
			return { acquired: false, reason: "busy" };
		// A listener acquired for this participant during emit: this call is now a nested one.
		if (this.held) return this.#nested(options);
		return { acquired: true, token: this.#commit(), reentrant: false };
	}

	/**
	 * Releases the acquisition `token` came from. A token that is not live (already released, from
	 * before a rebind, from another participant, or anything else) does nothing. Returns whether
	 * an acquisition was released; the group is free once no acquisition is live.
	 */
	release(token: symbol): boolean {
		return this.#tokens.delete(token);
	}

	#nested(options: AcquireOptions): AcquireResult {
		if (options.reentrant !== true) return { acquired: false, reason: "held" };
		return { acquired: true, token: this.#commit(), reentrant: true };
	}

	#commit(): symbol {
		const token = Symbol(`${this.group}-owner`);
		this.#tokens.add(token);
		return token;
	}

	/** Probes without acquiring: is the group busy (held by anyone, this participant included)? */
	isBusy(): boolean {
		const session = this.#session;
		if (!session || this.#disposed) return false;
		if (this.held) return true;
		const attempt: WorkflowMutexAttempt = { session, group: this.group, busy: false };
		try {
			this.#bus.emit(WORKFLOW_MUTEX_CHANNEL, attempt);
		} catch {
			return false;
		}
		return readAttempt(attempt)?.busy !== false;
	}

	/** Releases, unbinds and removes the listener. Idempotent. */
	dispose(): void {
		if (this.#disposed) return;
		this.#disposed = true;
		this.#tokens.clear();
		this.#session = undefined;
		this.#generation++;
		try {
			this.#unsubscribe();
		} catch {
			// The runtime may already be invalidated; its subscriptions are gone anyway.
		}
	}

	#respond(payload: unknown): void {
		if (!this.held || !this.#session) return;
		const attempt = readAttempt(payload);
		if (!attempt) return;
		if (attempt.session !== this.#session || attempt.group !== this.group || attempt.busy !== false) return;
		try {
			(payload as WorkflowMutexAttempt).busy = true;
		} catch {
			// Frozen or hostile payload: nothing we can do, and we must not throw.
		}
	}
}

/**
 * Creates a participant and binds it to Pi's session lifecycle: bind at `session_start`, release
 * and unbind at `session_shutdown`. Call in the extension factory.
 */
export function createWorkflowMutex(
	pi: Pick<ExtensionAPI, "events" | "on">,
	options: WorkflowMutexOptions = {},
): WorkflowMutex {
	const mutex = new WorkflowMutex(pi.events, options);
	pi.on("session_start", (_event, ctx) => mutex.bind(ctx.sessionManager));
	pi.on("session_shutdown", () => mutex.unbind());
	return mutex;
}
