/** User-facing output in every mode, under the kit's one no-UI policy (`tellUser`). */
import { type NoticeContext, type NoticeLevel, tellUser } from "@pi-lifecycle/lifecycle-kit";

/** Message severity. */
export type Level = NoticeLevel;

/** Shows a message to the user: UI notify, else stdout for print-mode answers, else stderr ("pi-goal: …"). */
export function say(ctx: NoticeContext | undefined, text: string, level: Level = "info"): void {
	tellUser(ctx, "pi-goal", text, level);
}

function hasUI(ctx: NoticeContext | undefined): boolean {
	try {
		return ctx?.hasUI === true;
	} catch {
		return false;
	}
}

/**
 * Says what a command did ("Goal g-… started.") or what the goal is doing. With a UI it is a
 * notice like any other; without one it goes to stderr: in print mode stdout holds only what a
 * script asked for (`/goal status`, `/goal help`) and the completion summary (README "Scripts and CI").
 */
export function sayProgress(ctx: NoticeContext | undefined, text: string): void {
	if (hasUI(ctx)) say(ctx, text);
	else console.error(text.startsWith("pi-goal:") ? text : `pi-goal: ${text}`);
}
