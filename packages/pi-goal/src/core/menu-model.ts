/**
 * The `/goal` manager menu as data (pure): which actions fit the goal's state, their labels, the
 * goal identity a dialog captures, and parsing of settings values typed into a dialog.
 */

import { cutText } from "@pi-lifecycle/lifecycle-kit/text";
import { formatCost, formatTokens, parseCost, parseTokenCount } from "./accounting.js";
import { shortStateWords } from "./goal-words.js";
import { type GoalRecord, type GoalSettings, MAX_OBJECTIVE } from "./types.js";

/** What a menu entry does. */
export type MenuAction =
	| "start"
	| "start-budget"
	| "pause"
	| "resume"
	| "edit"
	| "budget"
	| "cost"
	| "status"
	| "clear"
	| "settings";

/** One entry of the manager menu. */
export interface MenuItem {
	/** What choosing it does. */
	readonly action: MenuAction;
	/** The text shown (unique within one menu). */
	readonly label: string;
}

/** Labels of the menu entries (the tour and the tmux tests match these). */
export const MENU_LABELS = {
	start: "Start a goal",
	replace: "Start a new goal (replaces this one)",
	"start-budget": "Start a goal with a token budget",
	pause: "Pause",
	resume: "Resume (new goal id)",
	wake: "Resume now (end the wait)",
	edit: "Edit the objective",
	budget: "Change the token budget…",
	cost: "Change the money limit…",
	status: "Full status",
	clear: "Clear the goal…",
	settings: "Settings…",
} as const;

/** The entries that fit the goal's state, in display order. */
export function menuItems(goal: GoalRecord | null): MenuItem[] {
	const items: MenuItem[] = [];
	if (goal?.status === "active") {
		if (goal.wait) items.push({ action: "resume", label: MENU_LABELS.wake });
		items.push({ action: "pause", label: MENU_LABELS.pause });
	} else if (goal && goal.status !== "complete" && goal.status !== "budget_limited") {
		// A used-up budget cannot resume: raising the budget (below) continues the goal instead.
		items.push({ action: "resume", label: MENU_LABELS.resume });
	}
	if (goal) items.push({ action: "edit", label: MENU_LABELS.edit });
	if (goal && goal.status !== "complete") items.push({ action: "budget", label: MENU_LABELS.budget });
	if (goal && goal.status !== "complete") items.push({ action: "cost", label: MENU_LABELS.cost });
	if (goal) items.push({ action: "status", label: MENU_LABELS.status });
	items.push({ action: "start", label: goal ? MENU_LABELS.replace : MENU_LABELS.start });
	items.push({ action: "start-budget", label: MENU_LABELS["start-budget"] });
	if (goal) items.push({ action: "clear", label: MENU_LABELS.clear });
	items.push({ action: "settings", label: MENU_LABELS.settings });
	return items;
}

/** The menu's title: one line naming the goal and its state. */
export function menuTitle(goal: GoalRecord | null): string {
	if (!goal) return "Goal · none";
	const state = shortStateWords(goal);
	const objective = goal.objective.length > 60 ? `${cutText(goal.objective, 59)}…` : goal.objective;
	return `Goal ${goal.id} · ${state} · ${objective}`;
}

/** Notice shown when the goal changed while a dialog about it was open. */
export const CHANGED_NOTICE =
	"The goal changed while the dialog was open; nothing was done. Run /goal again.";

/**
 * The identity a dialog captures when it opens: goal id and status (waiting counts as a status).
 * A dialog acts only if the identity is unchanged when the user answers.
 */
export function goalIdentity(goal: GoalRecord | null): string {
	if (!goal) return "none";
	return `${goal.id}:${goal.wait ? "waiting" : goal.status}`;
}

/** Why a typed objective cannot be used, or undefined when it can. */
export function objectiveProblem(objective: string): string | undefined {
	if (objective.trim() === "") return "The objective is empty.";
	if (objective.length > MAX_OBJECTIVE)
		return `The objective has ${objective.length} characters; the limit is ${MAX_OBJECTIVE}.`;
	return undefined;
}

/** What the text submitted in the edit dialog asks for. */
export type ObjectiveEdit =
	| { readonly kind: "unchanged" }
	| { readonly kind: "invalid"; readonly error: string }
	| { readonly kind: "edit"; readonly objective: string };

/**
 * The edit dialog's answer (undefined = cancelled) against the current objective. The text is the
 * objective, taken literally: unlike `/goal edit`, a leading `--tokens N` is not an option.
 */
export function objectiveEdit(current: string, text: string | undefined): ObjectiveEdit {
	if (text === undefined) return { kind: "unchanged" };
	const objective = text.trim();
	if (objective === current.trim()) return { kind: "unchanged" };
	const problem = objectiveProblem(objective);
	return problem === undefined ? { kind: "edit", objective } : { kind: "invalid", error: problem };
}

/** A typed token budget: the count, or why it is not one. */
export function parseBudget(text: string): { readonly tokens?: number; readonly error?: string } {
	const tokens = parseTokenCount(text.trim());
	return tokens === undefined
		? { error: `Invalid token budget "${text.trim()}": use a positive number like 100k, 1.5m or 300000.` }
		: { tokens };
}

/** A typed token budget for an existing goal: a count, or "off"/"none" to remove the budget. */
export function parseBudgetChange(text: string): {
	readonly tokens?: number | null;
	readonly error?: string;
} {
	const typed = text.trim().toLowerCase();
	if (typed === "off" || typed === "none") return { tokens: null };
	return parseBudget(text);
}

/** The settings the menu edits (managedRuns and the stuck detector's thresholds are set in the settings file). */
export type SettingKey = Exclude<
	keyof GoalSettings,
	"managedRuns" | "repeatedActions" | "repeatedErrors" | "cycleActions" | "usageRetries"
>;

/** Upper bounds of the numeric settings (as the settings file validator enforces them). */
const SETTING_MAX = { automaticTurns: 10_000, noProgressTurns: 1_000 } as const;

/** One settings entry: key and its label with the current value. */
/** One line per setting, shown beside it in the settings dialog. */
export const SETTING_HELP: Readonly<Record<SettingKey, string>> = Object.freeze({
	automaticTurns: "responses the agent may give for a goal before the goal pauses",
	noProgressTurns: "identical replies in a row, without progress, that pause the goal",
	retryUsageLimits: "on: at a provider's usage limit the goal waits and retries once by itself",
});

export function settingsItems(settings: GoalSettings): { key: SettingKey; label: string }[] {
	const show = (value: number | null, none: string) => (value === null ? none : String(value));
	const item = (key: SettingKey, value: string) => ({
		key,
		label: `${key}: ${value} · ${SETTING_HELP[key]}`,
	});
	return [
		item("automaticTurns", show(settings.automaticTurns, "unlimited")),
		item("noProgressTurns", show(settings.noProgressTurns, "off")),
		item("retryUsageLimits", settings.retryUsageLimits ? "on" : "off"),
	];
}

/**
 * Parses a typed value for a numeric setting: an integer in range, or `off` / `unlimited` / `none`
 * for null.
 */
export function parseSettingValue(
	key: "automaticTurns" | "noProgressTurns",
	text: string,
): { readonly value?: number | null; readonly error?: string } {
	const word = text.trim().toLowerCase();
	if (word === "off" || word === "unlimited" || word === "none" || word === "null") return { value: null };
	const max = SETTING_MAX[key];
	if (!/^\d+$/.test(word) || Number(word) < 1 || Number(word) > max)
		return { error: `${key} must be a whole number from 1 to ${max}, or "off".` };
	return { value: Number(word) };
}

/** A typed money limit for an existing goal: dollars, or "off"/"none" to remove it (null). */
export function parseCostChange(text: string): { readonly cost?: number | null; readonly error?: string } {
	const typed = text.trim().toLowerCase();
	if (typed === "off" || typed === "none") return { cost: null };
	const cost = parseCost(text);
	return cost === undefined
		? {
				error: `Invalid money limit "${text.trim()}": use an amount in US dollars greater than 0, like 2.50, or off.`,
			}
		: { cost };
}

/** One line summarising a money limit. */
export function costLine(goal: GoalRecord): string {
	return goal.costLimit === undefined ? "no money limit" : `a money limit of ${formatCost(goal.costLimit)}`;
}

/** One line summarising a budget for confirmations. */
export function budgetLine(tokens: number | null): string {
	return tokens === null ? "no token budget" : `a budget of ${formatTokens(tokens)} tokens`;
}
