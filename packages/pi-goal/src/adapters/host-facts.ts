/**
 * Facts the reducer reads lazily from Pi: whether the helper tools a goal cannot work without
 * (goal_complete and goal_blocked; goal_wait is optional) are active, and the selected model. A
 * restrictive tool allowlist can hide the helpers; the goal then stops rather than running work it
 * could never finish.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { classifyLocalFault, piFaultPlaces } from "@pi-lifecycle/lifecycle-kit";
import type { AssistantLike } from "../core/errors.js";
import type { ModelRef } from "../core/goal-machine.js";
import type { ErrorFacts } from "../core/outcome.js";
import { TOOL_NAMES } from "../core/types.js";
import { sanitizeDetail } from "../core/usage-limit.js";

/** The helpers a goal cannot work without (goal_wait is optional). */
const REQUIRED_HELPERS = TOOL_NAMES.filter((name) => name !== "goal_wait");

/** Whether goal_complete and goal_blocked are active tools (a restrictive allowlist can hide them). */
export function helpersAvailable(pi: Pick<ExtensionAPI, "getActiveTools">): boolean {
	try {
		const active = pi.getActiveTools();
		return REQUIRED_HELPERS.every((name) => active.includes(name));
	} catch {
		return true; // a stale runtime cannot tell: do not stop on that
	}
}

/** The selected model of `ctx`; a stale context reads as none. */
export function currentModel(ctx: ExtensionContext | undefined): ModelRef | undefined {
	try {
		return ctx?.model as ModelRef | undefined;
	} catch {
		return undefined;
	}
}

/** Whether `ctx` has a UI (a footer to show); a stale context has none. */
export function hasUi(ctx: Pick<ExtensionContext, "hasUI">): boolean {
	try {
		return ctx.hasUI;
	} catch {
		return false;
	}
}

/**
 * Marks an error that is a local fault (Pi could not write the session file: EROFS, ENOSPC, …) so the
 * goal's wait names it with its next step instead of calling it a provider error.
 */
export function withLocalFault(
	facts: ErrorFacts | undefined,
	message: AssistantLike,
	ctx: ExtensionContext,
	agentDir: () => string,
): ErrorFacts | undefined {
	if (!facts) return facts;
	let dir: string | undefined;
	try {
		dir = agentDir();
	} catch {
		dir = undefined;
	}
	const fault = classifyLocalFault(message.errorMessage ?? "", piFaultPlaces(ctx, dir));
	if (!fault) return facts;
	return { ...facts, localFault: sanitizeDetail(`${fault.problem} (${fault.code}); ${fault.nextStep}`) };
}
