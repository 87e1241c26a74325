/** User-facing output in every mode: UI notify when available, else stderr (stdout holds JSON in json mode). */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

/** Message severity. */
export type Level = "info" | "warning" | "error";

/** Shows a message to the user. */
export function say(
	ctx: Pick<ExtensionContext, "hasUI" | "ui" | "mode">,
	text: string,
	level: Level = "info",
): void {
	if (ctx.hasUI) {
		ctx.ui.notify(text, level);
		return;
	}
	if (ctx.mode === "print" && level === "info") console.log(text);
	else console.error(`pi-goal: ${text}`);
}

/** Shows the error of an action if there is one, else its success text. */
export function sayOutcome(
	ctx: Pick<ExtensionContext, "hasUI" | "ui" | "mode">,
	error: string | undefined,
	success: string,
): void {
	say(ctx, error ?? success, error ? "error" : "info");
}
