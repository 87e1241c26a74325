/** User-facing output in every mode, under the kit's one no-UI policy (`tellUser`). */
import { type NoticeContext, type NoticeLevel, tellUser } from "@pi-lifecycle/lifecycle-kit";

/** Message severity. */
export type Level = NoticeLevel;

/** Shows a message to the user: UI notify, else stdout for print-mode answers, else stderr ("pi-goal: …"). */
export function say(ctx: NoticeContext | undefined, text: string, level: Level = "info"): void {
	tellUser(ctx, "pi-goal", text, level);
}
