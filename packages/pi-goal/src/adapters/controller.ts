/**
 * The goal controller: holds the current state, runs transitions through the pure reducer with
 * mutex admission, persists changes, applies effects and keeps derived things (mutex ownership,
 * boundary arming, footer, contract window) in line. Adapters call it; nothing else mutates state.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { createFooterStatus, type StaleGuard, type WorkflowMutex } from "@pi-lifecycle/lifecycle-kit";
import { foldClock } from "../core/accounting.js";
import { type ContractDetails, contractMessage, type GoalMessage } from "../core/contract.js";
import { footerText } from "../core/footer.js";
import { activates, EMPTY_STATE, type GoalEvent, reduceGoal, type Transition } from "../core/goal-machine.js";
import { persistedTotal, persistWorthy, stateEntryData } from "../core/persistence.js";
import type { StateAnchor } from "../core/replay.js";
import { emitTerminal } from "../core/run-protocol.js";
import {
	DEFAULT_SETTINGS,
	type GoalRecord,
	type GoalSettings,
	type GoalState,
	STATE_ENTRY,
	STATUS_KEY,
} from "../core/types.js";

export { RUN_EVENT_PREFIX } from "../core/run-protocol.js";

/** Why a goal cannot start while another workflow holds the mutex. */
export const WORKFLOW_BUSY =
	"Another workflow is active in this session (workflow:mutex:v1 agent-workflow is busy). End it, then start or resume the goal.";

/** What the controller needs from the composition root. */
export interface ControllerDeps {
	/** Pi's API (appendEntry, sendMessage, events). */
	readonly pi: Pick<ExtensionAPI, "appendEntry" | "sendMessage" | "events">;
	/** The workflow mutex participant. */
	readonly mutex: WorkflowMutex;
	/** Captures a generation guard (owner identity of the goal). */
	readonly guard: () => StaleGuard;
	/** Clock. */
	readonly now: () => number;
	/** Called after every change so dependants (boundary arming, wake timers) follow the state. */
	readonly onChange?: () => void;
	/** Called when the window's contract revision changes (arms or disarms the context fallback). */
	readonly onWindowChange?: () => void;
	/** The run under way: automatic goal work, goal-owned (written with each state entry for the replay). */
	readonly runOrigin?: () => Omit<StateAnchor, "tokens">;
}

/** The result of {@link GoalController.apply}. */
export interface ApplyResult {
	/** Whether the state changed. */
	readonly changed: boolean;
	/** Why the event was rejected (state unchanged). */
	readonly error?: string;
}

/** Holds one runtime's goal state. Create in the factory. */
export class GoalController {
	readonly #deps: ControllerDeps;
	#state: GoalState = EMPTY_STATE;
	#branchTotal = 0;
	#windowRevision = -1;
	#settings: GoalSettings = DEFAULT_SETTINGS;
	#ctx: ExtensionContext | undefined;
	#owner: StaleGuard | undefined;
	/** The last goal removed by clear, for its inactive contract revision. */
	#cleared: GoalRecord | undefined;
	/** The token of this controller's agent-workflow acquisition, while it holds one. */
	#mutexToken: symbol | undefined;
	/** The assistant message counted last, until it is seen on the branch (Pi persists it after message_end). */
	#lastCounted: { leafBefore: string | null; tokens: number } | undefined;
	/** The footer entry (setStatus only when the text or the context changes; a stale ctx is ignored). */
	readonly #footer = createFooterStatus(STATUS_KEY);

	constructor(deps: ControllerDeps) {
		this.#deps = deps;
	}

	/** Current state (immutable). */
	get state(): GoalState {
		return this.#state;
	}
	/** Current goal, or null. */
	get goal(): GoalRecord | null {
		return this.#state.goal;
	}
	/** Effective settings. */
	get settings(): GoalSettings {
		return this.#settings;
	}
	/** Running token total of the branch. */
	get branchTotal(): number {
		return this.#branchTotal;
	}
	/** The session context captured at session_start (undefined after shutdown). */
	get ctx(): ExtensionContext | undefined {
		return this.#ctx;
	}
	/** Whether the goal belongs to the current session generation (run ownership). */
	get owned(): boolean {
		return this.#owner?.isCurrent() ?? false;
	}

	/** Whether the goal is active and not waiting. */
	get working(): boolean {
		const goal = this.#state.goal;
		return goal?.status === "active" && !goal.wait;
	}

	/** Facts for the reducer. */
	facts() {
		return { now: this.#deps.now(), branchTotal: this.#branchTotal, settings: this.#settings };
	}

	/** Binds to a session after restore (session_start / session_tree). */
	bind(
		ctx: ExtensionContext,
		restored: { state: GoalState; branchTotal: number; windowRevision: number },
	): void {
		this.#ctx = ctx;
		this.#owner = this.#deps.guard();
		this.#branchTotal = restored.branchTotal;
		this.#windowRevision = restored.windowRevision;
		this.#cleared = undefined;
		this.#lastCounted = undefined;
		const goal = restored.state.goal;
		// Offline time never counts: a restored active goal's clock restarts now.
		const now = this.#deps.now();
		const clock =
			goal && goal.status === "active" && !goal.wait
				? { activeMs: goal.clock.activeMs, since: now }
				: goal
					? { activeMs: goal.clock.activeMs, since: null }
					: undefined;
		this.#state = goal && clock ? { ...restored.state, goal: { ...goal, clock } } : restored.state;
		if (goal?.status === "active" && !this.#acquireMutex())
			this.apply({ type: "pause", reason: "workflow-busy" });
		this.sync();
	}

	/**
	 * Whether another workflow holds workflow:mutex:v1 (a probe, nothing is acquired). A workflow
	 * such as plan mode may also narrow the active tools, so this is asked before blaming them.
	 */
	otherWorkflowActive(): boolean {
		return !this.#deps.mutex.held && this.#deps.mutex.isBusy();
	}

	/** Unbinds at session_shutdown (after a checkpoint). */
	unbind(): void {
		this.#ctx = undefined;
		this.#owner = undefined;
	}

	/** Replaces effective settings. */
	setSettings(settings: GoalSettings): void {
		this.#settings = settings;
	}

	/**
	 * Adds one assistant message's tokens to the running branch total (at its message_end, before Pi
	 * persists it; `leafBefore` is the leaf then, see persistedTotal).
	 */
	addTokens(tokens: number, leafBefore?: string | null): void {
		if (tokens <= 0) return;
		this.#branchTotal += tokens;
		if (leafBefore !== undefined) this.#lastCounted = { leafBefore, tokens };
	}

	/**
	 * Runs one event. If it moves the goal into `active`, the mutex is acquired first and a busy
	 * group rejects the event before anything changes.
	 */
	apply(event: GoalEvent, ctx: ExtensionContext | undefined = this.#ctx): ApplyResult {
		const before = this.#state;
		const transition: Transition = reduceGoal(before, event, this.facts());
		if (transition.error) return { changed: false, error: transition.error };
		if (transition.state === before) return { changed: false };
		if (activates(before, transition.state) && !this.#acquireMutex())
			return {
				changed: false,
				error: WORKFLOW_BUSY,
			};
		if (event.type === "clear" && before.goal) this.#cleared = before.goal;
		this.#state = transition.state;
		if (!persistWorthy(before, transition.state)) {
			// Per-turn counters only: no entry (the restore replays them), nothing to re-arm.
			this.refreshFooter();
			return { changed: true };
		}
		this.#persist();
		for (const effect of transition.effects) {
			if (effect.type === "abort") {
				if (ctx && !ctx.isIdle()) ctx.abort();
			} else emitTerminal(this.#deps.pi.events, { ...effect, session: ctx?.sessionManager });
		}
		this.sync();
		return { changed: true };
	}

	/** Persists a checkpoint (before compaction, at shutdown) when a goal exists. */
	checkpoint(): void {
		const goal = this.#state.goal;
		if (goal?.status !== "active") return;
		this.#state = { ...this.#state, goal: { ...goal, clock: foldClock(goal.clock, this.#deps.now()) } };
		this.#persist();
	}

	#persist(): void {
		try {
			const state = this.#state;
			const goal = state.goal;
			// The running period is folded in, so the restore only adds the time the branch shows after the entry.
			const saved = goal
				? { ...state, goal: { ...goal, clock: foldClock(goal.clock, this.#deps.now()) } }
				: state;
			const origin = this.#deps.runOrigin?.() ?? { automatic: false, goalWork: false };
			const anchor = { tokens: this.#persistedTotal(), ...origin };
			this.#deps.pi.appendEntry(STATE_ENTRY, stateEntryData(saved, anchor));
		} catch {
			// Stale runtime: the next restore reads the last entry that made it.
		}
	}

	/** Acquires agent-workflow unless this controller's acquisition is still live (one token per ownership). */
	#acquireMutex(): boolean {
		if (this.#mutexToken && this.#deps.mutex.holds(this.#mutexToken)) return true;
		const result = this.#deps.mutex.tryAcquire();
		this.#mutexToken = result.acquired ? result.token : undefined;
		return result.acquired;
	}

	/** The branch total of the messages already on the branch (see {@link persistedTotal}). */
	#persistedTotal(): number {
		const last = this.#lastCounted;
		const session = this.#ctx?.sessionManager;
		if (!last || !session) return this.#branchTotal;
		const total = persistedTotal(session, this.#branchTotal, last);
		if (total === this.#branchTotal) this.#lastCounted = undefined; // on the branch: no walk next time
		return total;
	}

	/** Releases the mutex when not active, refreshes the footer, notifies dependants. */
	sync(): void {
		if (this.#state.goal?.status !== "active" && this.#mutexToken) {
			this.#deps.mutex.release(this.#mutexToken);
			this.#mutexToken = undefined;
		}
		this.refreshFooter();
		this.#deps.onChange?.();
	}

	/** Updates the footer (Pi's setStatus only when the text changed). */
	refreshFooter(): void {
		if (this.#ctx) this.#footer.set(this.#ctx, footerText(this.#state.goal, this.facts()));
	}

	// --- contract window -------------------------------------------------------------------

	/** The contract revision the current context window is known to hold (-1: none). */
	get windowRevision(): number {
		return this.#windowRevision;
	}

	/** Records that a contract revision entered the window (-1: the window holds none). */
	markWindow(revision: number): void {
		if (this.#windowRevision === revision) return;
		this.#windowRevision = revision;
		this.#deps.onWindowChange?.();
	}

	/** The context window lost its messages (compaction, reset, tree navigation). */
	forgetWindow(): void {
		this.markWindow(-1);
	}

	/**
	 * The contract message the window is missing, if any: the current revision of an active goal,
	 * or one inactive revision after a stop when the window held an earlier revision.
	 */
	pendingContract(): GoalMessage<ContractDetails> | undefined {
		const { goal, revision } = this.#state;
		if (this.#windowRevision === revision) return undefined;
		if (goal?.status === "active") return contractMessage(goal, revision);
		if (this.#windowRevision < 0) return undefined;
		if (goal) return contractMessage(goal, revision);
		return this.#cleared ? contractMessage(this.#cleared, revision, "cleared") : undefined;
	}
}
