/**
 * Attempt identity: Pi has no run id, so we derive one.
 *
 * - a run starts at `before_agent_start` (once per started run);
 * - an attempt starts at `agent_start` (every low-level run: retries, compaction retries,
 *   boundary continuations);
 * - a settle happens at `agent_settled` (once per started run, at the very end).
 *
 * Every id is scoped by the session id and a per-runtime nonce (the factory re-runs on reload, so
 * a reloaded runtime never shares ids with the old one). A generation moves on session start,
 * shutdown, tree navigation and explicit invalidation; a {@link StaleGuard} captured before any
 * asynchronous work answers "am I still current?" when that work completes.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { decideTrustAtSessionStart } from "./project-trust.js";

/** Where the lifecycle stands right now. All counters start at 0. */
export interface IdentitySnapshot {
	/** Pi's session id, or `""` before the first session_start. */
	readonly sessionId: string;
	/** Random per-runtime nonce (one per extension factory call). */
	readonly nonce: string;
	/** Moves on session start, shutdown, tree navigation and {@link LifecycleIdentity.invalidate}. */
	readonly generation: number;
	/** Runs started (before_agent_start) in this runtime. */
	readonly run: number;
	/** Low-level attempts started (agent_start) in this runtime. */
	readonly attempt: number;
	/**
	 * Attempts of the current run so far: 0 between before_agent_start and its first agent_start,
	 * 1 during the first attempt, 2+ during a retry, compaction retry or settle continuation. Keeps
	 * the last run's count after agent_settled; 0 again after session_start or session_shutdown.
	 */
	readonly attemptOfRun: number;
	/** Runs settled (agent_settled) in this runtime. */
	readonly settle: number;
	/** Whether a run is between before_agent_start/agent_start and agent_settled. */
	readonly running: boolean;
	/** False after session_shutdown until the next session_start. */
	readonly active: boolean;
}

/** The scope a guard checks. Wider scopes survive more events. */
export type GuardScope = "generation" | "run" | "attempt";

/** A captured identity that late callbacks use to ask whether they are still current. */
export interface StaleGuard {
	/** What the guard captured. */
	readonly scope: GuardScope;
	/** The snapshot at capture time. */
	readonly captured: IdentitySnapshot;
	/** A printable id for logs and message markers, e.g. `s1:ab12cd:g2:r3`. */
	readonly id: string;
	/** True while nothing in the guard's scope has moved on. */
	isCurrent(): boolean;
}

/** The lifecycle events identity reacts to (a pure transition table, see {@link nextIdentity}). */
export type IdentityEvent =
	| { readonly type: "session_start"; readonly sessionId: string }
	| { readonly type: "session_shutdown" }
	| { readonly type: "session_tree" }
	| { readonly type: "invalidate" }
	| { readonly type: "before_agent_start" }
	| { readonly type: "agent_start" }
	| { readonly type: "agent_settled" };

/** The initial snapshot for a runtime. */
export function initialIdentity(nonce: string): IdentitySnapshot {
	return {
		sessionId: "",
		nonce,
		generation: 0,
		run: 0,
		attempt: 0,
		attemptOfRun: 0,
		settle: 0,
		running: false,
		active: false,
	};
}

/**
 * Whether the snapshot is inside an attempt that is not the first of its run (a retry, a
 * compaction retry, a continuation Pi started after agent_end). False between runs.
 */
export function isContinuation(snapshot: IdentitySnapshot): boolean {
	return snapshot.running && snapshot.attemptOfRun > 1;
}

/** Pure transition: the snapshot after one lifecycle event. */
export function nextIdentity(state: IdentitySnapshot, event: IdentityEvent): IdentitySnapshot {
	switch (event.type) {
		case "session_start":
			return {
				...state,
				sessionId: event.sessionId,
				generation: state.generation + 1,
				attemptOfRun: 0,
				running: false,
				active: true,
			};
		case "session_shutdown":
			return { ...state, generation: state.generation + 1, attemptOfRun: 0, running: false, active: false };
		case "session_tree":
		case "invalidate":
			return { ...state, generation: state.generation + 1 };
		case "before_agent_start":
			return { ...state, run: state.run + 1, attemptOfRun: 0, running: true };
		case "agent_start":
			// A retry or boundary continuation is a new attempt of the same run; a run started without
			// before_agent_start (not expected on Pi >= 1.3) still gets a run number.
			return state.running
				? { ...state, attempt: state.attempt + 1, attemptOfRun: state.attemptOfRun + 1 }
				: { ...state, run: state.run + 1, attempt: state.attempt + 1, attemptOfRun: 1, running: true };
		case "agent_settled":
			return { ...state, settle: state.settle + 1, running: false };
	}
}

/** Whether `current` is still within the scope captured by `captured`. */
export function isSameScope(
	scope: GuardScope,
	captured: IdentitySnapshot,
	current: IdentitySnapshot,
): boolean {
	if (captured.nonce !== current.nonce || captured.sessionId !== current.sessionId) return false;
	if (captured.generation !== current.generation || !current.active) return false;
	if (scope === "generation") return true;
	if (captured.run !== current.run) return false;
	return scope === "run" || captured.attempt === current.attempt;
}

function formatId(scope: GuardScope, s: IdentitySnapshot): string {
	const base = `${s.sessionId || "nosession"}:${s.nonce}:g${s.generation}`;
	if (scope === "generation") return base;
	if (scope === "run") return `${base}:r${s.run}`;
	return `${base}:r${s.run}:a${s.attempt}`;
}

function randomNonce(): string {
	return Math.random().toString(36).slice(2, 10).padEnd(8, "0");
}

/**
 * Holds the identity of one extension runtime. Feed it events with {@link trackLifecycle} (or call
 * {@link LifecycleIdentity.apply} yourself) and capture guards before asynchronous work.
 */
export class LifecycleIdentity {
	#state: IdentitySnapshot;
	readonly #listeners = new Set<(state: IdentitySnapshot, event: IdentityEvent) => void>();

	/** @param nonce Per-runtime nonce; random by default. */
	constructor(nonce: string = randomNonce()) {
		this.#state = initialIdentity(nonce);
	}

	/** The current snapshot (immutable). */
	get snapshot(): IdentitySnapshot {
		return this.#state;
	}

	/** Id of the current run, e.g. `sess:nonce:g1:r4`. */
	get runId(): string {
		return formatId("run", this.#state);
	}

	/** Id of the current low-level attempt. */
	get attemptId(): string {
		return formatId("attempt", this.#state);
	}

	/** Whether the current attempt is not the first of its run (see {@link isContinuation}). */
	get isContinuation(): boolean {
		return isContinuation(this.#state);
	}

	/** Id of the most recent settle. */
	get settleId(): string {
		return `${formatId("generation", this.#state)}:s${this.#state.settle}`;
	}

	/** Applies one event. Listeners run after the state has moved. */
	apply(event: IdentityEvent): IdentitySnapshot {
		this.#state = nextIdentity(this.#state, event);
		for (const listener of this.#listeners) listener(this.#state, event);
		return this.#state;
	}

	/** Moves the generation on (e.g. when an owner is toggled off): every earlier guard goes stale. */
	invalidate(): void {
		this.apply({ type: "invalidate" });
	}

	/** Captures a guard for the given scope (default `generation`). */
	guard(scope: GuardScope = "generation"): StaleGuard {
		const captured = this.#state;
		return {
			scope,
			captured,
			id: formatId(scope, captured),
			isCurrent: () => isSameScope(scope, captured, this.#state),
		};
	}

	/** Observes transitions (for adapters that cancel work on invalidation). Returns an unsubscribe. */
	onChange(listener: (state: IdentitySnapshot, event: IdentityEvent) => void): () => void {
		this.#listeners.add(listener);
		return () => this.#listeners.delete(listener);
	}
}

/** The part of Pi's API identity tracking needs. */
export type LifecycleEventSource = Pick<ExtensionAPI, "on">;

/**
 * Subscribes a {@link LifecycleIdentity} to Pi's lifecycle events. Call it in the extension factory
 * before registering handlers that capture guards, so that identity moves first.
 *
 * Only cheap notification events are used (never `turn_end` or `context`).
 */
export function trackLifecycle(
	pi: LifecycleEventSource,
	identity = new LifecycleIdentity(),
): LifecycleIdentity {
	pi.on("session_start", (event, ctx) => {
		// Trust is taken at the session start, before any handler of the extension reads it.
		decideTrustAtSessionStart(event, ctx);
		identity.apply({ type: "session_start", sessionId: ctx.sessionManager.getSessionId() });
	});
	pi.on("session_shutdown", () => {
		identity.apply({ type: "session_shutdown" });
	});
	pi.on("session_tree", () => {
		identity.apply({ type: "session_tree" });
	});
	pi.on("before_agent_start", () => {
		identity.apply({ type: "before_agent_start" });
	});
	pi.on("agent_start", () => {
		identity.apply({ type: "agent_start" });
	});
	pi.on("agent_settled", () => {
		identity.apply({ type: "agent_settled" });
	});
	return identity;
}
