/**
 * `/goal edit <text>` is the one ambiguous form of `/goal`: edit the current objective to the text
 * after `edit`, or start a new goal whose objective is the whole text. The TUI asks; without a UI
 * it edits (the documented reading: a script that says `edit` means the subcommand).
 */

import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { DialogScope } from "@pi-lifecycle/lifecycle-kit";
import { cutText } from "@pi-lifecycle/lifecycle-kit";
import { goalIdentity } from "../core/menu-model.js";
import { isUnfinished } from "../core/types.js";
import type { GoalController } from "./controller.js";

/**
 * What the user chose: edit, start, or nothing (cancelled or the session changed); `changed` when
 * the goal's id or status changed while the question was open (the answer was about another goal).
 */
export type EditChoice = "edit" | "start" | "changed" | undefined;

/** Why a UI-less `/goal edit <text>` without a goal did nothing, and how to start that goal. */
export function noGoalToEditHint(text: string): string {
	return `To start a goal with this objective, run /goal -- ${text.length > 60 ? `${cutText(text, 60)}…` : text}`;
}

function shorten(text: string): string {
	return text.length > 80 ? `${cutText(text, 80)}…` : text;
}

/** Asks whether `/goal edit <text>` edits the objective or starts a new goal (TUI only). */
export async function askEditOrStart(
	controller: GoalController,
	ctx: ExtensionCommandContext,
	edit: { readonly objective: string; readonly orStart: string },
	dialogs: DialogScope | undefined,
): Promise<EditChoice> {
	if (!ctx.hasUI) return "edit";
	const goal = controller.goal;
	const replaces = isUnfinished(goal) ? " (replaces the current goal)" : "";
	const editLabel = goal ? `Edit the objective of goal ${goal.id} to: ${shorten(edit.objective)}` : undefined;
	const startLabel = `Start a new goal: ${shorten(edit.orStart)}${replaces}`;
	const identity = goalIdentity(goal);
	const opened = dialogs?.open();
	const choice = await ctx.ui.select(
		"/goal edit: edit the current objective or start a new goal?",
		editLabel ? [editLabel, startLabel] : [startLabel, "Cancel"],
		{ signal: opened?.signal },
	);
	if (opened && !opened.current()) return undefined;
	if (choice === undefined) return undefined;
	if (goalIdentity(controller.goal) !== identity) return "changed";
	if (choice === editLabel) return "edit";
	return choice === startLabel ? "start" : undefined;
}
