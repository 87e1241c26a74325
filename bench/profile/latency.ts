/** Scripted steps that answer after a fixed delay, standing in for a real model's latency. */
import type { FauxResponseStep } from "@earendil-works/pi-ai";

/** Wraps each step so the faux provider resolves it `ms` later (a timer, like a network reply). */
export function delayedSteps(steps: readonly FauxResponseStep[], ms: number): FauxResponseStep[] {
	return steps.map((step) => async (context, options, state, model) => {
		await new Promise((resolve) => setTimeout(resolve, ms));
		return typeof step === "function" ? step(context, options, state, model) : step;
	});
}
