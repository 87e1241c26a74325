/**
 * The goal controller: the one holder of the runtime's state (goal, settings, token total,
 * contract window). Adapters dispatch events; each runs through the pure reducer (goal-runtime.ts)
 * with mutex admission, and the named effects go to the one effect runner. It keeps derived things
 * (mutex ownership, footer, and through `attach` boundary arming, timers and the context fallback)
 * in line. There are no setters: nothing else mutates state.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { createFooterStatus, type StaleGuard, type WorkflowMutex } from "@pi-lifecycle/lifecycle-kit";
import { foldClock } from "../core/accounting.js";
import type { ContractDetails, GoalMessage } from "../core/contract.js";
import { footerText } from "../core/footer.js";
import { activates, type GoalFacts, offlineTimeDropped } from "../core/goal-machine.js";
import {
	EMPTY_RUNTIME,
	type GoalRuntime,
	goalFacts,
	type HostFacts,
	pendingContract,
	type RuntimeEffect,
	type RuntimeEvent,
	reduceRuntime,
} from "../core/goal-runtime.js";
import { persistedTotal, stateEntryData } from "../core/persistence.js";
import type { StateAnchor } from "../core/replay.js";
import {
	type GoalRecord,
	type GoalSettings,
	type GoalState,
	STATE_ENTRY,
	STATUS_KEY,
} from "../core/types.js";
import { type EffectPorts, EffectRunner } from "./effect-runner.js";
import { currentModel, hasUi, helpersAvailable } from "./host-facts.js";

/** Why a goal cannot start while another workflow holds the mutex. */
export const WORKFLOW_BUSY =
	"Another workflow is active in this session (workflow:mutex:v1 agent-workflow is busy). End it, then start or resume the goal.";

/** What the controller needs from the composition root. */
export interface ControllerDeps {
	/** Pi's API (appendEntry, sendMessage, events). */
	readonly pi: Pick<ExtensionAPI, "appendEntry" | "sendMessage" | "events" | "getActiveTools">;
	/** The workflow mutex participant. */
	readonly mutex: WorkflowMutex;
	/** Captures a generation guard (owner identity of the goal). */
	readonly guard: () => StaleGuard;
	/** Clock. */
	readonly now: () => number;
	/** The run under way: automatic goal work, goal-owned (written with each state entry for the replay). */
	readonly runOrigin?: () => Omit<StateAnchor, "tokens">;
}

/** The result of {@link GoalController.apply}. */
export interface ApplyResult {
	/** Whether the state changed. */
	readonly changed: boolean;
	/** Why the event was rejected (state unchanged). */
	readonly error?: string;
	/** The effects the transition ran, in order (a boundary reads its decision from them). */
	readonly effects: readonly RuntimeEffect[];
}

/** What follows the state, attached once after the dependants exist (no forward stubs). */
export interface ControllerAttachments extends EffectPorts {
	/** Called after every persisted change so dependants (boundary arming, wake timers) follow the state. */
	readonly onChange: () => void;
	/** Called when the window's contract revision changes (arms or disarms the context fallback). */
	readonly onWindowChange: () => void;
}

/** Holds one runtime's goal state. Create in the factory. */
export class GoalController {
	readonly #deps: ControllerDeps;
	#runtime: GoalRuntime = EMPTY_RUNTIME;
	#ctx: ExtensionContext | undefined;
	#owner: StaleGuard | undefined;
	/** The token of this controller's agent-workflow acquisition, while it holds one. */
	#mutexToken: symbol | undefined;
	/** The footer entry (setStatus only when the text or the context changes; a stale ctx is ignored). */
	readonly #footer = createFooterStatus(STATUS_KEY);
	readonly #runner: EffectRunner;
	#attached: ControllerAttachments | undefined;

	constructor(deps: ControllerDeps) {
		this.#deps = deps;
		this.#runner = new EffectRunner({
			pi: deps.pi,
			persist: () => this.#persist(),
			follow: (full) => (full ? this.sync() : this.refreshFooter()),
			refreshFooter: () => this.refreshFooter(),
			followWindow: () => this.#attached?.onWindowChange(),
			working: () => this.working,
			pendingContract: () => this.pendingContract(),
			published: (revision) => this.apply({ type: "window", revision }),
		});
	}

	/** Attaches the waker, the usage recovery and what follows a change (once, in the composition root). */
	attach(attachments: ControllerAttachments): void {
		this.#attached = attachments;
		this.#runner.attach(attachments);
	}

	/** Current state (immutable). */
	get state(): GoalState {
		return this.#runtime.goal;
	}
	/** Current goal, or null. */
	get goal(): GoalRecord | null {
		return this.#runtime.goal.goal;
	}
	/** Effective settings. */
	get settings(): GoalSettings {
		return this.#runtime.settings;
	}
	/** Running token total of the branch. */
	get branchTotal(): number {
		return this.#runtime.branchTotal;
	}
	/** The contract revision the current context window is known to hold (-1: none). */
	get windowRevision(): number {
		return this.#runtime.windowRevision;
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
		const goal = this.goal;
		return goal?.status === "active" && !goal.wait;
	}

	/** Facts for the reducer (the helper tools and the model of `ctx` are read lazily). */
	facts(ctx: ExtensionContext | undefined = this.#ctx): GoalFacts {
		return goalFacts(this.#runtime, this.#host(ctx));
	}

	#host(ctx: ExtensionContext | undefined): HostFacts {
		return {
			now: this.#deps.now(),
			helpersAvailable: () => helpersAvailable(this.#deps.pi),
			model: () => currentModel(ctx),
		};
	}

	/** Binds to a session after restore (session_start / session_tree). */
	bind(
		ctx: ExtensionContext,
		restored: { state: GoalState; branchTotal: number; windowRevision: number },
	): void {
		this.#ctx = ctx;
		this.#owner = this.#deps.guard();
		this.#runtime = {
			goal: offlineTimeDropped(restored.state, this.#deps.now()),
			settings: this.#runtime.settings,
			branchTotal: restored.branchTotal,
			windowRevision: restored.windowRevision,
		};
		if (this.goal?.status === "active" && !this.#acquireMutex())
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

	/**
	 * Runs one event. If it moves the goal into `active`, the mutex is acquired first and a busy
	 * group rejects the event before anything changes. The effects run in the reducer's order.
	 */
	apply(event: RuntimeEvent, ctx: ExtensionContext | undefined = this.#ctx): ApplyResult {
		const before = this.#runtime;
		const transition = reduceRuntime(before, event, this.#host(ctx));
		if (transition.error) return { changed: false, error: transition.error, effects: [] };
		const changed = transition.runtime.goal !== before.goal;
		if (changed && activates(before.goal, transition.runtime.goal) && !this.#acquireMutex())
			return { changed: false, error: WORKFLOW_BUSY, effects: [] };
		this.#runtime = transition.runtime;
		if (changed || transition.effects.length > 0) this.#runner.run(transition.effects, ctx, changed);
		return { changed, effects: transition.effects };
	}

	#persist(): void {
		try {
			const state = this.#runtime.goal;
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
		const { lastCounted: last, branchTotal } = this.#runtime;
		const session = this.#ctx?.sessionManager;
		if (!last || !session) return branchTotal;
		const total = persistedTotal(session, branchTotal, last);
		// On the branch: no walk next time (a cache, not a state change).
		if (total === branchTotal) this.#runtime = { ...this.#runtime, lastCounted: undefined };
		return total;
	}

	/** Releases the mutex when not active, refreshes the footer, notifies dependants. */
	sync(): void {
		if (this.goal?.status !== "active" && this.#mutexToken) {
			this.#deps.mutex.release(this.#mutexToken);
			this.#mutexToken = undefined;
		}
		this.refreshFooter();
		this.#attached?.onChange();
	}

	/**
	 * Updates the footer (Pi's setStatus only when the text changed). Without a UI (print and json
	 * modes) there is no footer, so the text is not built on every turn for nobody.
	 */
	refreshFooter(): void {
		if (this.#ctx && hasUi(this.#ctx)) this.#footer.set(this.#ctx, footerText(this.goal, this.facts()));
	}

	/**
	 * The contract message the window is missing, if any: the current revision of an active goal,
	 * or one inactive revision after a stop when the window held an earlier revision.
	 */
	pendingContract(): GoalMessage<ContractDetails> | undefined {
		return pendingContract(this.#runtime);
	}
}
