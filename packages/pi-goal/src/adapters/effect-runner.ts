/**
 * The one effect runner: executes a transition's named effects in the order the reducer returned
 * them. Derived state (mutex, footer, boundary arming, timers, the context fallback) follows the new
 * state before anything leaves the runtime (a contract, a goal prompt, a usage query, a managed
 * run's state), so whatever those start sees it consistent. Ports are attached once, after the
 * waker and the usage recovery exist (they read the controller, so they are built after it).
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ContractDetails, GoalMessage } from "../core/contract.js";
import type { WakeKind } from "../core/goal-machine.js";
import type { RuntimeEffect } from "../core/goal-runtime.js";
import { emitTerminal, RUN_EVENT_PREFIX, type RunStateEvent } from "../core/run-protocol.js";

/** What the runner asks of the idle wake-ups (wake.ts). */
export interface WakePort {
	cancel(): void;
	request(kind: WakeKind): void;
	flush(ctx?: ExtensionContext): void;
	flushSoon(): void;
}

/** What the runner asks of usage-limit recovery (usage-recovery.ts). */
export interface UsagePort {
	query(ctx: ExtensionContext): void;
}

/** What the runner tells the run under way (core/run.ts). */
export interface RunPort {
	continuationProposed(recovery: boolean): void;
}

/** The collaborators attached after construction. */
export interface EffectPorts {
	readonly waker: WakePort;
	readonly usage: UsagePort;
	readonly run: RunPort;
}

/** What the runner needs from the state holder. */
export interface EffectHost {
	readonly pi: Pick<ExtensionAPI, "sendMessage" | "events">;
	/** Writes the current state as a session entry. */
	persist(): void;
	/** Brings derived state in line; `full` after a persisted change, else the footer only. */
	follow(full: boolean): void;
	/** Updates the footer. */
	refreshFooter(): void;
	/** Re-arms what depends on the window's contract revision. */
	followWindow(): void;
	/** Whether the goal is active and not waiting now (an effect may run after a nested change). */
	working(): boolean;
	/** The contract revision the window is missing, if any. */
	pendingContract(): GoalMessage<ContractDetails> | undefined;
	/** Records that a contract revision entered the window (an idle append emits no message_end). */
	published?(revision: number): void;
}

/** Effects that leave the runtime: derived state follows before the first of them. */
const OUTWARD = new Set<RuntimeEffect["type"]>([
	"runStarted",
	"publishContract",
	"requestWake",
	"queryUsage",
	"continueInRun",
	"steerContract",
]);

/**
 * Appends a missing contract revision right away when Pi is idle (no run is started). Pi emits no
 * message_end for an idle append, so the window is marked here; else the next run start appends
 * the same revision again and the model reads it twice.
 */
export function publishWhileIdle(
	host: Pick<EffectHost, "pi" | "pendingContract" | "published">,
	ctx?: ExtensionContext,
): void {
	if (!ctx) return;
	try {
		if (!ctx.isIdle()) return;
	} catch {
		return;
	}
	const contract = host.pendingContract();
	if (!contract) return;
	host.pi.sendMessage(contract, { triggerTurn: false });
	host.published?.(contract.details.revision);
}

/**
 * Queues a missing contract revision as a steering message while a run is under way (after a
 * compaction): Pi delivers it before the next request, so it is persisted there and keeps its
 * position in every later request. While idle, publishWhileIdle appended it.
 */
function steerWhileRunning(host: Pick<EffectHost, "pi" | "pendingContract">, ctx?: ExtensionContext): void {
	if (!ctx) return;
	try {
		if (ctx.isIdle()) return;
	} catch {
		return;
	}
	const contract = host.pendingContract();
	if (contract) host.pi.sendMessage(contract, { deliverAs: "steer" });
}

/** Runs effects for one transition. */
export class EffectRunner {
	readonly #host: EffectHost;
	#ports: EffectPorts | undefined;

	constructor(host: EffectHost) {
		this.#host = host;
	}

	/** Attaches the waker and the usage recovery (once, in the composition root). */
	attach(ports: EffectPorts): void {
		this.#ports = ports;
	}

	/**
	 * Executes `effects` in order; `ctx` is the context of the event (a timer: the bound one).
	 * `goalChanged`: derived state follows the goal (else only the effects run).
	 */
	run(effects: readonly RuntimeEffect[], ctx: ExtensionContext | undefined, goalChanged: boolean): void {
		const host = this.#host;
		const persisted = effects.some((effect) => effect.type === "persist");
		let followed = !goalChanged;
		for (const effect of effects) {
			if (!followed && OUTWARD.has(effect.type)) {
				host.follow(persisted);
				followed = true;
			}
			this.#runOne(effect, ctx);
		}
		if (!followed) host.follow(persisted);
	}

	#runOne(effect: RuntimeEffect, ctx: ExtensionContext | undefined): void {
		const host = this.#host;
		const ports = this.#ports;
		switch (effect.type) {
			case "persist":
				host.persist();
				break;
			case "abort":
				if (ctx && !ctx.isIdle()) ctx.abort();
				break;
			case "terminal":
				emitTerminal(host.pi.events, effect);
				break;
			case "runStarted": {
				const { runId, goalId } = effect;
				const state: RunStateEvent = {
					type: "state",
					runId,
					goalId,
					status: "active",
				};
				host.pi.events.emit(`${RUN_EVENT_PREFIX}${runId}`, state);
				break;
			}
			case "cancelWake":
				ports?.waker.cancel();
				break;
			case "publishContract":
				publishWhileIdle(host, ctx);
				break;
			case "requestWake":
				// A listener of an earlier effect may have stopped the goal meanwhile.
				if (!ports || !host.working()) break;
				ports.waker.request(effect.kind);
				if (effect.when === "now") ports.waker.flush(ctx);
				else ports.waker.flushSoon();
				break;
			case "continueInRun":
				// The boundary proposes the prompt (it reads this effect); the run ahead is automatic work.
				ports?.run.continuationProposed(effect.kind === "recovery");
				break;
			case "steerContract":
				steerWhileRunning(host, ctx);
				break;
			case "queryUsage":
				if (ctx) ports?.usage.query(ctx);
				break;
			case "refreshFooter":
				host.refreshFooter();
				break;
			case "followWindow":
				host.followWindow();
				break;
		}
	}
}
