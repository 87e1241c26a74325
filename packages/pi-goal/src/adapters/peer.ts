/**
 * Living beside another goal extension (narumiruna's pi-goal is the established peer). Both
 * register goal_complete, goal_blocked, goal_wait and /goal. Pi compares the tools every factory
 * registered once all have run, and reports each clash as a load error ("Tool … conflicts with …",
 * fatal in print mode); two /goal commands both lose the plain name (/goal:1, /goal:2). So pi-goal
 * registers its tools and /goal only at its first session_start, after checking that no other
 * extension holds the tool names (registration after load is supported: Pi refreshes its tool
 * registry). When one does, pi-goal stays dormant whatever the load order: no tools, no command,
 * no state, prompts or bus replies, and one message that says which extension handles goals.
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
	return `pi-goal: off in this Pi. Another goal extension${owner ? ` (${owner})` : ""} already provides ${foreign.map((tool) => tool.name).join(", ")}, so it handles goals and /goal here. To use pi-goal instead, remove that extension (pi list shows it, pi remove <its source>) and start Pi again.`;
}

/** Dormancy of one runtime, decided at the first session_start. */
export class Dormancy {
	#reason: string | undefined;
	#checked = false;

	/**
	 * Decides once (at the first session_start): returns the reason when dormant; otherwise calls
	 * `registerOurs` (the goal tools and /goal), once per runtime.
	 */
	check(pi: Pick<ExtensionAPI, "getAllTools">, registerOurs: () => void = () => {}): string | undefined {
		if (!this.#checked) {
			this.#checked = true;
			this.#reason = peerOwnsGoalTools(pi);
			if (this.#reason === undefined) registerOurs();
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
