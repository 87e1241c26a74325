/**
 * The `/goal` manager menu of the interactive TUI (bare `/goal`). A thin adapter over Pi's dialogs:
 * what the menu offers is pure (menu-model.ts) and every action goes through the same paths as the
 * typed subcommands. Each dialog captures the goal's identity (id + status) and the session it
 * opened in; when the user answers, a changed identity or a replaced session means nothing happens
 * (with a short notice). Session replacement also dismisses an open dialog through its AbortSignal.
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { DialogScope } from "@pi-lifecycle/lifecycle-kit";
import { describeGoalState } from "../core/goal-words.js";
import {
	budgetLine,
	CHANGED_NOTICE,
	costLine,
	goalIdentity,
	MENU_LABELS,
	menuItems,
	menuTitle,
	objectiveEdit,
	objectiveProblem,
	parseBudget,
	parseBudgetChange,
	parseCostChange,
	parseSettingValue,
	SETTING_HELP,
	settingsItems,
} from "../core/menu-model.js";
import { isUnfinished } from "../core/types.js";
import { type CommandDeps, statusText } from "./commands.js";
import { say } from "./output.js";
import {
	changeSetting,
	clearGoal,
	editGoal,
	pauseGoal,
	resumeGoal,
	sayOutcomeOf,
	startGoal,
} from "./use-cases.js";

export { CHANGED_NOTICE } from "../core/menu-model.js";

/** Notice shown when the session was replaced while a dialog was open. */
const REPLACED_NOTICE = "The session changed while the dialog was open; nothing was done.";

/** Whether bare `/goal` opens the menu here (interactive TUI with dialogs). */
export function opensMenu(args: string, ctx: Pick<ExtensionCommandContext, "hasUI" | "mode">): boolean {
	return args.trim() === "" && ctx.hasUI && ctx.mode === "tui";
}

/** One open menu: the identity it captured and the check made after every dialog. */
interface Opened {
	readonly deps: CommandDeps;
	readonly ctx: ExtensionCommandContext;
	readonly signal: AbortSignal | undefined;
	/** True if the session is unchanged and (unless `anyGoal`) the goal identity too; else says why. */
	still(anyGoal?: boolean): boolean;
}

function open(deps: CommandDeps, ctx: ExtensionCommandContext, scope: DialogScope | undefined): Opened {
	const session = deps.controller.ctx;
	const identity = goalIdentity(deps.controller.goal);
	const dialogs = scope?.open();
	const signal = dialogs?.signal;
	return {
		deps,
		ctx,
		signal,
		still(anyGoal = false) {
			if (dialogs?.current() === false || deps.controller.ctx !== session || session === undefined) {
				// The old ctx may be stale: a notice is best effort.
				try {
					say(ctx, REPLACED_NOTICE, "warning");
				} catch {}
				return false;
			}
			if (!anyGoal && goalIdentity(deps.controller.goal) !== identity) {
				say(ctx, CHANGED_NOTICE, "warning");
				return false;
			}
			return true;
		},
	};
}

/** Opens the manager menu and runs the chosen action. Never throws. */
export async function openGoalMenu(
	deps: CommandDeps,
	ctx: ExtensionCommandContext,
	scope: DialogScope | undefined,
): Promise<void> {
	const menu = open(deps, ctx, scope);
	const goal = deps.controller.goal;
	const items = menuItems(goal);
	const choice = await ctx.ui.select(
		menuTitle(goal),
		items.map((item) => item.label),
		{ signal: menu.signal },
	);
	const action = items.find((item) => item.label === choice)?.action;
	if (!action || !menu.still()) return;
	switch (action) {
		case "status":
			return say(ctx, statusText(deps.controller));
		case "pause":
			return sayOutcomeOf(ctx, pauseGoal(deps, ctx));
		case "resume":
			return sayOutcomeOf(ctx, resumeGoal(deps, ctx));
		case "clear":
			return clear(menu);
		case "edit":
			return edit(menu);
		case "budget":
			return changeBudget(menu);
		case "cost":
			return changeCost(menu);
		case "start":
		case "start-budget":
			return start(menu, action === "start-budget");
		case "settings":
			return settings(menu);
	}
}

async function clear(menu: Opened): Promise<void> {
	const goal = menu.deps.controller.goal;
	if (!goal) return;
	const yes = await menu.ctx.ui.confirm(
		`Clear goal ${goal.id}?`,
		`The goal (${describeGoalState(goal, menu.deps.controller.settings.automaticTurns)}) and its counters are removed. Other work is not aborted.`,
		{ signal: menu.signal },
	);
	if (!yes || !menu.still()) return;
	return sayOutcomeOf(menu.ctx, clearGoal(menu.deps, menu.ctx));
}

async function edit(menu: Opened): Promise<void> {
	const goal = menu.deps.controller.goal;
	if (!goal) return;
	// Pi's editor dialog takes no signal: the identity check after it covers a replaced session.
	const text = await menu.ctx.ui.editor(`Edit the objective of goal ${goal.id}`, goal.objective);
	const request = objectiveEdit(goal.objective, text);
	if (request.kind === "unchanged" || !menu.still()) return;
	if (request.kind === "invalid") return say(menu.ctx, request.error, "error");
	sayOutcomeOf(menu.ctx, editGoal(menu.deps, menu.ctx, { objective: request.objective }));
}

async function changeBudget(menu: Opened): Promise<void> {
	const goal = menu.deps.controller.goal;
	if (!goal) return;
	const tokens = await askUntilValid(
		menu,
		`Token budget of goal ${goal.id} (now ${budgetLine(goal.tokenBudget)})`,
		"e.g. 200k, 1.5m, or off for no budget",
		(typed) => {
			const budget = parseBudgetChange(typed);
			return { value: budget.tokens, error: budget.error ?? "Invalid token budget." };
		},
	);
	if (tokens === undefined) return;
	// The same path as `/goal edit --tokens N <objective>` with the objective unchanged.
	const { error } = editGoal(menu.deps, menu.ctx, { objective: goal.objective, tokenBudget: tokens });
	const now = menu.deps.controller.goal;
	const state = now ? describeGoalState(now, menu.deps.controller.settings.automaticTurns) : "cleared";
	const text = `Goal ${now?.id} now has ${budgetLine(now?.tokenBudget ?? null)} (${state}).`;
	sayOutcomeOf(menu.ctx, error ? { error, text: error } : { text });
}

async function changeCost(menu: Opened): Promise<void> {
	const goal = menu.deps.controller.goal;
	if (!goal) return;
	const typed = await menu.ctx.ui.input(
		`Money limit of goal ${goal.id} in US dollars (now ${costLine(goal)})`,
		"e.g. 2.50, or off for no limit",
		{ signal: menu.signal },
	);
	if (typed === undefined || !menu.still()) return;
	const change = parseCostChange(typed);
	if (change.cost === undefined) return say(menu.ctx, change.error ?? "Invalid money limit.", "error");
	// The same path as `/goal edit --cost X <objective>` with the objective unchanged.
	const { error } = editGoal(menu.deps, menu.ctx, { objective: goal.objective, costLimit: change.cost });
	const now = menu.deps.controller.goal;
	const text = now ? `Goal ${now.id} now has ${costLine(now)} (${now.status}).` : "";
	sayOutcomeOf(menu.ctx, error ? { error, text: error } : { text });
}

async function start(menu: Opened, withBudget: boolean): Promise<void> {
	const { ctx, deps, signal } = menu;
	const objective = await ctx.ui.input("Objective of the new goal", "what should be done", { signal });
	if (objective === undefined || !menu.still()) return;
	const problem = objectiveProblem(objective);
	if (problem) return say(ctx, problem, "error");
	let tokenBudget: number | null = null;
	if (withBudget) {
		const tokens = await askUntilValid(menu, "Token budget", "e.g. 100k, 1.5m or 300000", (typed) => {
			const budget = parseBudget(typed);
			return { value: budget.tokens, error: budget.error ?? "Invalid token budget." };
		});
		if (tokens === undefined) return;
		tokenBudget = tokens;
	}
	const current = deps.controller.goal;
	if (isUnfinished(current) && current) {
		const yes = await ctx.ui.confirm(
			"Replace the current goal?",
			`Goal ${current.id} is ${describeGoalState(current, deps.controller.settings.automaticTurns)}. The new goal starts with ${budgetLine(tokenBudget)}.`,
			{ signal },
		);
		if (!yes || !menu.still()) return;
	}
	sayOutcomeOf(ctx, startGoal(deps, ctx, { objective: objective.trim(), tokenBudget }));
}

async function settings(menu: Opened): Promise<void> {
	const { ctx, deps, signal } = menu;
	const items = settingsItems(deps.controller.settings);
	const choice = await ctx.ui.select(
		`${MENU_LABELS.settings.replace("…", "")} (saved globally)`,
		items.map((item) => item.label),
		{ signal },
	);
	const key = items.find((item) => item.label === choice)?.key;
	// Settings belong to no goal: only a replaced session cancels them.
	if (!key || !menu.still(true)) return;
	if (key === "retryUsageLimits") {
		const value = await ctx.ui.select("retryUsageLimits", ["on", "off"], { signal });
		if (!value || !menu.still(true)) return;
		return sayOutcomeOf(ctx, changeSetting(deps, ctx, "retryUsageLimits", value === "on"));
	}
	const value = await askUntilValid(
		menu,
		`${key}: ${SETTING_HELP[key]} (a whole number, or "off")`,
		String(deps.controller.settings[key] ?? "off"),
		(typed) => parseSettingValue(key, typed),
		true,
	);
	if (value === undefined) return;
	sayOutcomeOf(ctx, changeSetting(deps, ctx, key, value));
}

/**
 * Asks in an input dialog until the answer parses: an invalid one is said (a warning) and asked
 * again with the reason in the title. Undefined when dismissed or the goal or session changed.
 */
async function askUntilValid<T>(
	menu: Opened,
	title: string,
	placeholder: string,
	parse: (typed: string) => { readonly value?: T; readonly error?: string },
	settingsOnly = false,
): Promise<T | undefined> {
	let prompt = title;
	for (;;) {
		const typed = await menu.ctx.ui.input(prompt, placeholder, { signal: menu.signal });
		if (typed === undefined || !menu.still(settingsOnly)) return undefined;
		const parsed = parse(typed);
		if (parsed.value !== undefined) return parsed.value;
		const error = parsed.error ?? "Invalid value.";
		say(menu.ctx, `${error} Try again, or press Escape to cancel.`, "warning");
		prompt = `${error} ${title}`;
	}
}
