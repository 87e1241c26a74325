/**
 * What Pi tells about other goal extensions (read-only): a registered tool with one of our names
 * that is not ours, a /goal command (or Pi's renamed /goal:N) that is not ours, and goal state of
 * another extension in a session's entries (ownership.ts tells ours apart).
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { isOwnContinuationDetails, isOwnContractDetails, isOwnStateData } from "../core/ownership.js";
import { CONTINUATION_MESSAGE, CONTRACT_MESSAGE, STATE_ENTRY, TOOL_NAMES } from "../core/types.js";
import { GOAL_TOOL_SCHEMAS } from "./tools.js";

/** What the check reads from Pi. */
export type PeerHost = Pick<ExtensionAPI, "getAllTools"> & Partial<Pick<ExtensionAPI, "getCommands">>;

/** Another goal extension as Pi shows it. */
export interface GoalPeer {
	/** Its path or package source, when Pi tells. */
	readonly source?: string;
	/** What it holds, in words ("already provides goal_complete", "registers /goal"). */
	readonly what: string;
}

/** A registered tool as `pi.getAllTools()` reports it. */
interface ToolView {
	readonly name: string;
	readonly parameters?: unknown;
	readonly sourceInfo?: { readonly path?: string };
}

/** A command as `pi.getCommands()` reports it. */
interface CommandView {
	readonly name: string;
	readonly source?: string;
	readonly sourceInfo?: { readonly path?: string };
}

/** A /goal command as Pi names it: `goal`, or `goal:N` when two extensions register it. */
const GOAL_COMMAND = /^goal(?::\d+)?$/;

function tools(pi: PeerHost): readonly ToolView[] {
	try {
		return pi.getAllTools() as readonly ToolView[];
	} catch {
		return []; // a stale runtime cannot tell
	}
}

function commands(pi: PeerHost): readonly CommandView[] {
	try {
		return (pi.getCommands?.() ?? []) as readonly CommandView[];
	} catch {
		return [];
	}
}

/** Ours is recognised by identity: Pi returns the registered definition's schema object. */
function isOurTool(tool: ToolView): boolean {
	return tool.parameters === GOAL_TOOL_SCHEMAS[tool.name];
}

function goalCommands(pi: PeerHost): readonly CommandView[] {
	return commands(pi).filter((entry) => entry.source === "extension" && GOAL_COMMAND.test(entry.name));
}

/**
 * Where ours was registered from, right after it registered: the only /goal then (a tool allowlist
 * can keep our tools out of Pi's registry, so not from the tools), else our tools' source.
 */
export function ownGoalSource(pi: PeerHost): string | undefined {
	const goal = goalCommands(pi);
	if (goal.length === 1) return goal[0]?.sourceInfo?.path;
	return tools(pi).find((tool) => isOurTool(tool))?.sourceInfo?.path;
}

/** Who registered ours, once it did: its source, when Pi told. */
export interface OwnRegistration {
	readonly source?: string;
}

/**
 * Another goal extension, or undefined: a tool with one of our names that is not ours, or a /goal
 * command that is not ours (before ours registers, every /goal is another's; after, one from
 * another source, or a second one when Pi told no source).
 */
export function findGoalPeer(pi: PeerHost, own?: OwnRegistration): GoalPeer | undefined {
	const foreign = tools(pi).filter(
		(tool) => (TOOL_NAMES as readonly string[]).includes(tool.name) && !isOurTool(tool),
	);
	if (foreign.length > 0)
		return {
			source: foreign.map((tool) => tool.sourceInfo?.path).find((path) => typeof path === "string"),
			what: `already provides ${foreign.map((tool) => tool.name).join(", ")}`,
		};
	const goal = goalCommands(pi);
	const what = "registers its own /goal command";
	if (!own) return goal[0] ? { source: goal[0].sourceInfo?.path, what } : undefined;
	if (own.source === undefined) return goal.length > 1 ? { what } : undefined;
	const command = goal.find((entry) => entry.sourceInfo?.path !== own.source);
	return command ? { source: command.sourceInfo?.path, what } : undefined;
}

/** A branch entry as the check reads it. */
interface EntryView {
	readonly type?: string;
	readonly customType?: string;
	readonly data?: unknown;
	readonly details?: unknown;
}

/** Whether a `pi-goal/*` entry or message is another extension's (a type we never write is). */
function isForeignGoalEntry(entry: EntryView): boolean {
	if (entry.type === "custom") return entry.customType !== STATE_ENTRY || !isOwnStateData(entry.data);
	if (entry.customType === CONTINUATION_MESSAGE) return !isOwnContinuationDetails(entry.details);
	if (entry.customType === CONTRACT_MESSAGE) return !isOwnContractDetails(entry.details);
	return true;
}

/**
 * Whether another goal extension wrote goal state in this session: its newest `pi-goal/*` entry on
 * the branch is not ours (a session where ours worked after it belongs to ours). One walk back from
 * the leaf to the newest goal entry, at session_start only.
 */
export function sessionHasForeignGoalState(branch: readonly unknown[]): boolean {
	for (let index = branch.length - 1; index >= 0; index--) {
		const entry = branch[index] as EntryView | undefined;
		if (!entry || typeof entry.customType !== "string" || !entry.customType.startsWith("pi-goal/")) continue;
		if (entry.type !== "custom" && entry.type !== "custom_message") continue;
		return isForeignGoalEntry(entry);
	}
	return false;
}
