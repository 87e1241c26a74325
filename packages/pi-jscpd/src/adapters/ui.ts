/** Small host helpers shared by the adapters and the controller. */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { isExplicitlyTrusted } from "@pi-lifecycle/lifecycle-kit";

/** Tells the user something: a notification with a UI, stderr without one. */
export function notify(ctx: ExtensionContext, text: string, level: "info" | "warning" | "error"): void {
	if (ctx.hasUI) ctx.ui.notify(text, level);
	else process.stderr.write(`${text}\n`);
}

/** Explicit project trust (`isExplicitlyTrusted`: Pi's implicit default does not count), false when stale. */
export function safeTrusted(ctx: ExtensionContext): boolean {
	return isExplicitlyTrusted(ctx);
}

/** `ctx.isIdle()`, undefined when the context is stale. */
export function safeIdle(ctx: ExtensionContext | undefined): boolean | undefined {
	try {
		return ctx?.isIdle();
	} catch {
		return undefined;
	}
}
