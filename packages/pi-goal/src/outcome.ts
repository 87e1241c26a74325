/**
 * Outcome classification at settlement (pure). This is the seam issue 5 extends: provider-error
 * waiting and usage-limit recovery will add classes here; the boundary adapter only maps a class
 * to a goal event.
 */

/** What Pi reports about the final attempt (`agent_before_settle.outcome`). */
export type SettleOutcome = "completed" | "aborted" | "error";

/** Minimal view of the last assistant message. */
export interface LastAssistant {
	readonly stopReason?: string;
	readonly errorMessage?: string;
}

/** What the goal does with a settled outcome. */
export type OutcomeClass =
	| { readonly kind: "continue" } // eligible for one continuation
	| { readonly kind: "stop"; readonly reason: "error" } // pause: provider error (issue 5: wait instead)
	| { readonly kind: "none" }; // nothing (aborted runs are handled at agent_settled)

/** Classifies the final outcome of a run. */
export function classifyOutcome(outcome: SettleOutcome, _last?: LastAssistant): OutcomeClass {
	if (outcome === "completed") return { kind: "continue" };
	if (outcome === "error") return { kind: "stop", reason: "error" };
	return { kind: "none" };
}
