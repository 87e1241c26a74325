/** Small host helpers shared by the adapters and the controller. */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

/** Tells the user something: a notification with a UI, stderr without one. */
export function notify(ctx: ExtensionContext, text: string, level: "info" | "warning" | "error"): void {
	if (ctx.hasUI) ctx.ui.notify(text, level);
	else process.stderr.write(`${text}\n`);
}

/** `ctx.isProjectTrusted()`, false when the context is stale. */
export function safeTrusted(ctx: ExtensionContext): boolean {
	try {
		return ctx.isProjectTrusted();
	} catch {
		return false;
	}
}

/** `ctx.isIdle()`, undefined when the context is stale. */
export function safeIdle(ctx: ExtensionContext | undefined): boolean | undefined {
	try {
		return ctx?.isIdle();
	} catch {
		return undefined;
	}
}
