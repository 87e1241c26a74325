/**
 * Living beside another goal extension (narumiruna's pi-goal is the established peer). Both
 * register goal_complete, goal_blocked and goal_wait; Pi keeps the first registration of a name.
 * When another extension's tools hold those names, ours would never see a call, so pi-goal stays
 * dormant: no state, prompts, commands' effects or bus replies, and one message saying why.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { TOOL_NAMES } from "../core/types.js";
import { GOAL_TOOL_SCHEMAS } from "./tools.js";

/** A registered tool as `pi.getAllTools()` reports it. */
interface ToolView {
	readonly name: string;
	readonly parameters?: unknown;
	readonly sourceInfo?: { readonly path?: string };
}

/**
 * Why pi-goal must stay dormant (another extension owns a goal tool name), or undefined. Pi returns
 * the registered definition's schema object, so ours is recognised by identity, not by wording.
 */
export function peerOwnsGoalTools(pi: Pick<ExtensionAPI, "getAllTools">): string | undefined {
	let tools: readonly ToolView[];
	try {
		tools = pi.getAllTools() as readonly ToolView[];
	} catch {
		return undefined; // a stale runtime cannot tell
	}
	const foreign = tools.filter(
		(tool) =>
			(TOOL_NAMES as readonly string[]).includes(tool.name) &&
			tool.parameters !== GOAL_TOOL_SCHEMAS[tool.name],
	);
	if (foreign.length === 0) return undefined;
	const owner = foreign.map((tool) => tool.sourceInfo?.path).find((path) => typeof path === "string");
	return `pi-goal is dormant: ${foreign.map((tool) => tool.name).join(", ")} ${foreign.length === 1 ? "is" : "are"} already registered by another extension${owner ? ` (${owner})` : ""}, which handles goals in this Pi. Uninstall one of the two goal extensions to use the other.`;
}

/** Dormancy of one runtime, decided at the first session_start. */
export class Dormancy {
	#reason: string | undefined;
	#checked = false;

	/** Decides once (at session_start); returns the reason when dormant. */
	check(pi: Pick<ExtensionAPI, "getAllTools">): string | undefined {
		if (!this.#checked) {
			this.#checked = true;
			this.#reason = peerOwnsGoalTools(pi);
		}
		return this.#reason;
	}

	/** Whether pi-goal is dormant (false before the first check). */
	get dormant(): boolean {
		return this.#reason !== undefined;
	}

	/** Why pi-goal is dormant, if it is. */
	get reason(): string | undefined {
		return this.#reason;
	}
}
