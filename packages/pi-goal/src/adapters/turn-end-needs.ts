/**
 * What makes the next `turn_end` worth a subscription (boundary.ts): a response with tool calls held
 * until its tools ran (with its results, the stuck detector's facts), or an accepted `new_context`.
 */
import type { HeldResponse } from "../core/replay.js";
import type { TurnFacts } from "../core/safety.js";
import { type CallFacts, type ResultFacts, toolStep } from "../core/stuck-facts.js";
import { TOOL_NAMES } from "../core/types.js";
import type { GoalController } from "./controller.js";

/** A response with tool calls whose count waits until its tools ran. */
export interface HeldTurn {
	readonly goalId: string;
	readonly turn: TurnFacts;
	/** Whether counting it trips a breaker (turn_end is armed for it). */
	trips: boolean;
	/** Its tool calls, and their results as they arrive (the stuck detector's facts). */
	readonly calls: readonly CallFacts[];
	readonly results: ResultFacts[];
}

/** The held turn with the stuck detector's step of its calls and results. */
export function withStep(held: HeldTurn): TurnFacts {
	const goalTool = held.calls.some((call) => GOAL_TOOL_NAMES.has(call.name));
	return { ...held.turn, step: goalTool ? "reset" : toolStep(held.calls, held.results) };
}
const GOAL_TOOL_NAMES: ReadonlySet<string> = new Set(TOOL_NAMES);

/** What makes the next `turn_end` worth a subscription, besides a pending contract revision. */
export class TurnEndNeeds {
	/**
	 * A response with tool calls, counted once its tools ran (a tool that stopped the goal, such as
	 * `goal_complete`, means it is not counted), at the next response, agent_end or turn_end.
	 */
	#held: HeldTurn | undefined;
	/** An accepted `new_context` call: this turn's boundary opens a new window. */
	#reset = false;

	/** A response with tool calls is held until its tools ran. */
	hold(held: HeldTurn): void {
		this.#held = held;
	}
	/**
	 * A tool result arrived (message_end of a toolResult): it joins the held response. Returns the
	 * held response once every call has its result and it does not trip yet, else undefined.
	 */
	addResult(result: ResultFacts): HeldTurn | undefined {
		const held = this.#held;
		if (!held?.calls.some((call) => call.id === result.id)) return undefined;
		held.results.push(result);
		return held.results.length >= held.calls.length && !held.trips ? held : undefined;
	}
	/** Takes the held response out (it is counted now, or dropped). */
	takeHeld(): HeldTurn | undefined {
		const held = this.#held;
		this.#held = undefined;
		return held;
	}
	/** An accepted `new_context` call: this turn's boundary opens a new window. */
	resetAccepted(): void {
		this.#reset = true;
	}
	/** The turn's boundary ran: the new window got its contract. */
	turnEnded(): void {
		this.#reset = false;
	}

	/** The held response as a state entry's anchor records it (replay.ts). */
	heldResponse(): HeldResponse | undefined {
		const held = this.#held;
		if (!held) return undefined;
		return {
			goalId: held.goalId,
			automatic: held.turn.automatic,
			goalWork: held.turn.goalWork ?? held.turn.automatic,
		};
	}

	/** Whether turn_end is needed (with the controller's pending contract). */
	wanted(controller: GoalController): boolean {
		return (
			this.#held?.trips === true ||
			(this.#reset && controller.goal?.status === "active") ||
			controller.pendingContract() !== undefined
		);
	}

	/** A new attempt starts or the session changed: nothing from an earlier turn carries over. */
	clear(): void {
		this.#held = undefined;
		this.#reset = false;
	}
}
