/**
 * `/goal` argument parsing (pure): one registry from which help, completions and the parser
 * derive. Malformed input gets a clear error string.
 *
 * The grammar has no traps: a subcommand that takes no text, followed by text, is the first word
 * of an objective (`/goal clear the build warnings` starts a goal). `edit` takes text, so
 * `/goal edit <text>` is ambiguous: the command adapter asks in the TUI and edits elsewhere.
 * `/goal -- <objective>` always starts a goal, the objective taken literally.
 *
 * A bare word that only looks like a command (`/goal stop`, `/goal cancel`, `/goal budget 200k`)
 * is refused with the command meant: a user who typed it never wants a goal named "stop".
 */
import { budgetExhausted, parseTokenCount } from "./accounting.js";
import { takeTokens } from "./command-options.js";
import { type GoalRecord, MAX_OBJECTIVE } from "./types.js";

/** Subcommands with their one-line help. */
export const SUBCOMMANDS = {
	status: "show the current goal (bare /goal opens the goal menu in the TUI)",
	pause: "abort the current turn and pause the goal",
	resume: "resume a paused or stopped goal (new goal id), or end a wait",
	edit: "edit the objective: /goal edit [--tokens N] [--cost X] <objective>",
	clear: "remove the goal",
	"retry-usage-limits": "on|off: wait for a usage limit to reset instead of stopping (saved globally)",
	help: "show this help",
} as const satisfies Record<string, string>;

/** Subcommands that take no text: followed by text, the whole text is an objective. */
export const NO_TEXT_SUBCOMMANDS = ["status", "help", "pause", "resume", "clear"] as const;

/**
 * What the goal is now, as far as a suggestion cares: every suggested command must work in it
 * (`/goal resume` cannot bring back a cleared goal; `/goal pause` does nothing to a stopped one).
 * `exhausted`: stopped with its token budget used up, so resume is refused until the budget rises.
 */
export type GoalSituation = "none" | "working" | "waiting" | "stopped" | "exhausted";

/** The goal's situation for suggestions (`branchTotal`: the branch's running token total). */
export function goalSituation(goal: GoalRecord | null, branchTotal: number): GoalSituation {
	if (!goal) return "none";
	if (goal.status === "active") return goal.wait ? "waiting" : "working";
	return budgetExhausted(goal, branchTotal) ? "exhausted" : "stopped";
}

/** The command groups users reach for with a word that is not a subcommand. */
type NearGroup = "stop" | "remove" | "done" | "resume" | "start" | "status" | "menu" | "budget" | "help";

/** Words users type for a subcommand, with the group they mean (refused when they are the whole text). */
const NEAR_COMMANDS: Readonly<Record<string, NearGroup>> = {
	stop: "stop",
	cancel: "stop",
	abort: "stop",
	halt: "stop",
	quit: "stop",
	exit: "stop",
	end: "remove",
	remove: "remove",
	delete: "remove",
	reset: "remove",
	done: "done",
	finish: "done",
	complete: "done",
	continue: "resume",
	unpause: "resume",
	restart: "resume",
	start: "start",
	show: "status",
	info: "status",
	list: "status",
	menu: "menu",
	budget: "budget",
	tokens: "budget",
	"--help": "help",
	"-h": "help",
};

/**
 * The command meant by a group in this situation (one that works now), or, when nothing of the
 * group applies, why not (`noGoal`: there is no goal for it to act on).
 */
function suggestion(
	group: NearGroup,
	situation: GoalSituation,
	count: string,
): { meant: string } | { noGoal: true } {
	const hasGoal = situation !== "none";
	switch (group) {
		case "stop":
			if (!hasGoal) return { noGoal: true };
			return situation === "working" || situation === "waiting"
				? { meant: "/goal pause (keeps the goal) or /goal clear (removes it)" }
				: { meant: "/goal clear (the goal is already stopped; clear removes it)" };
		case "remove":
			return hasGoal ? { meant: "/goal clear" } : { noGoal: true };
		case "done":
			return hasGoal
				? { meant: "/goal clear (the model reports completion with goal_complete)" }
				: { noGoal: true };
		case "resume":
			switch (situation) {
				case "none":
					return { meant: "/goal <objective> (there is no goal to resume; start one)" };
				case "working":
					return { meant: "/goal status (the goal is already working)" };
				case "waiting":
					return { meant: "/goal resume (ends the wait)" };
				case "stopped":
					return { meant: "/goal resume" };
				case "exhausted":
					return {
						meant: "/goal edit --tokens N <objective> (its token budget is used up; raise it to resume)",
					};
			}
			break;
		case "start":
			return { meant: "/goal <objective>" };
		case "status":
			return { meant: "/goal status" };
		case "menu":
			return { meant: "/goal (bare, in the TUI)" };
		case "budget":
			return {
				meant: hasGoal ? `/goal edit --tokens ${count} <objective>` : `/goal --tokens ${count} <objective>`,
			};
		case "help":
			return { meant: "/goal help" };
	}
	return { meant: "/goal help" };
}

/** The refusal for a text that is only a command-like word (and a token count after `budget`). */
function nearCommandError(text: string, situation: GoalSituation): string | undefined {
	const [head = "", ...rest] = text.split(/\s+/);
	const word = head.toLowerCase();
	const group = Object.hasOwn(NEAR_COMMANDS, word) ? NEAR_COMMANDS[word] : undefined;
	if (!group) return undefined;
	const count = group === "budget" && rest.length === 1 ? (rest[0] ?? "") : "";
	const bare = rest.length === 0 || (count !== "" && parseTokenCount(count) !== undefined);
	if (!bare) return undefined;
	const literally = `To start a goal with this text: /goal -- ${text}`;
	const meant = suggestion(group, situation, count || "N");
	if ("noGoal" in meant) return `"/goal ${text}" is not a /goal command, and there is no goal. ${literally}`;
	return `"/goal ${text}" is not a /goal command; did you mean ${meant.meant}? ${literally}`;
}

/** A parsed `/goal` command. */
export type GoalCommand =
	| { readonly kind: "status" }
	| { readonly kind: "help" }
	| { readonly kind: "pause" }
	| { readonly kind: "resume" }
	| { readonly kind: "clear" }
	| { readonly kind: "retry-usage-limits"; readonly enabled: boolean }
	| {
			readonly kind: "start";
			readonly objective: string;
			readonly tokenBudget: number | null;
			/** Money limit in US dollars (`--cost 2.50`). */
			readonly costLimit?: number;
	  }
	| {
			readonly kind: "edit";
			readonly objective: string;
			readonly tokenBudget?: number;
			readonly costLimit?: number;
			/** Set when the whole text could also be a new goal's objective (`/goal edit the README`). */
			readonly orStart?: string;
	  };

/** Parse result. */
export type ParseResult =
	| { readonly ok: true; readonly command: GoalCommand }
	| { readonly ok: false; readonly error: string };

/** Help text shown by `/goal help` and after errors. */
export const HELP_TEXT = [
	"Usage:",
	"  /goal <objective>                 start a goal (1-4000 characters)",
	"  /goal --tokens N <objective>      start with a token budget (100k, 1.5m, 300000)",
	"  /goal --cost X <objective>        start with a money limit in US dollars (2.50), from the cost the model reports",
	"  /goal -- <objective>              start a goal, the objective taken literally",
	...Object.entries(SUBCOMMANDS).map(([name, text]) => `  /goal ${name.padEnd(28)}${text}`),
	"A subcommand that takes no text, followed by text, starts a goal with the whole text:",
	"/goal clear the build warnings in src/ starts that goal. /goal edit <text> asks in the TUI",
	"whether to edit the objective or start a new goal; without a UI it edits.",
	"A bare command-like word (stop, cancel, continue, budget 200k, ...) is refused: /goal -- stop starts that goal.",
].join("\n");

function objectiveError(objective: string): string | undefined {
	if (objective.length === 0) return "The objective is empty.";
	if (objective.length > MAX_OBJECTIVE)
		return `The objective has ${objective.length} characters; the limit is ${MAX_OBJECTIVE}.`;
	return undefined;
}

/**
 * Parses the text after `/goal`. `situation` only shapes the text of a near-command refusal
 * (whether a text is refused never depends on it); callers pass the goal's current one.
 */
export function parseGoalCommand(args: string, situation: GoalSituation = "none"): ParseResult {
	const text = args.trim();
	if (text === "") return { ok: true, command: { kind: "status" } };
	const literal = /^--(?:\s+|$)([\s\S]*)$/.exec(text);
	if (literal) return startCommand(literal[1] ?? "", null);
	const [head = "", ...restWords] = text.split(/\s+/);
	const word = head.toLowerCase();
	const noText = NO_TEXT_SUBCOMMANDS.find((name) => name === word);
	// Followed by text, a word that takes none begins an objective (falls through to start).
	if (noText && restWords.length === 0) return { ok: true, command: { kind: noText } };
	if (word === "retry-usage-limits") {
		const value = restWords.join(" ").toLowerCase();
		if (value !== "on" && value !== "off")
			return {
				ok: false,
				error:
					"/goal retry-usage-limits takes exactly one argument: on or off. (/goal -- <objective> starts a goal with any text.)",
			};
		return { ok: true, command: { kind: "retry-usage-limits", enabled: value === "on" } };
	}
	if (word === "edit") {
		const taken = takeTokens(text.slice(head.length).trim());
		if (taken.error) return { ok: false, error: taken.error };
		const error = objectiveError(taken.rest);
		if (error) return { ok: false, error: `/goal edit needs an objective. ${error}` };
		// `edit --tokens …` is unambiguous; plain text could also be a new goal's objective.
		const orStart =
			taken.tokens === undefined && taken.cost === undefined && objectiveError(text) === undefined
				? text
				: undefined;
		return {
			ok: true,
			command: {
				kind: "edit",
				objective: taken.rest,
				...(taken.tokens ? { tokenBudget: taken.tokens } : {}),
				...(taken.cost ? { costLimit: taken.cost } : {}),
				...(orStart ? { orStart } : {}),
			},
		};
	}
	const near = nearCommandError(text, situation);
	if (near) return { ok: false, error: near };
	const taken = takeTokens(text);
	if (taken.error) return { ok: false, error: taken.error };
	return startCommand(taken.rest, taken.tokens ?? null, taken.cost);
}

function startCommand(objective: string, tokenBudget: number | null, costLimit?: number): ParseResult {
	const error = objectiveError(objective.trim());
	if (error) return { ok: false, error };
	const cost = costLimit === undefined ? {} : { costLimit };
	return { ok: true, command: { kind: "start", objective: objective.trim(), tokenBudget, ...cost } };
}

/** Completions for the argument prefix. */
export function completeGoalArgs(
	prefix: string,
): { value: string; label: string; description: string }[] | null {
	const toggle = /^retry-usage-limits\s+(\S*)$/i.exec(prefix);
	if (toggle) {
		const values = ["on", "off"].filter((value) => value.startsWith((toggle[1] ?? "").toLowerCase()));
		return values.length > 0
			? values.map((value) => ({
					value: `retry-usage-limits ${value}`,
					label: value,
					description: value === "on" ? "wait for usage limits to reset" : "stop at a usage limit",
				}))
			: null;
	}
	if (/\s/.test(prefix)) return null;
	const items: { value: string; label: string; description: string }[] = Object.entries(SUBCOMMANDS)
		.filter(([name]) => name.startsWith(prefix.toLowerCase()))
		.map(([name, description]) => ({ value: name, label: name, description }));
	if ("--tokens".startsWith(prefix) && prefix.length > 0)
		items.push({ value: "--tokens ", label: "--tokens", description: "token budget, e.g. --tokens 100k" });
	if ("--cost".startsWith(prefix) && prefix.length > 0)
		items.push({
			value: "--cost ",
			label: "--cost",
			description: "money limit in US dollars, e.g. --cost 2.50",
		});
	return items.length > 0 ? items : null;
}
