/** Small host helpers shared by the adapters and the controller. */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
	isExplicitlyTrusted,
	type NoticeContext,
	type NoticeLevel,
	tellUser,
} from "@pi-lifecycle/lifecycle-kit";

/**
 * Tells the user something under the kit's one no-UI policy (`tellUser`): a notification with a UI;
 * without one, an `info` answer in print mode on stdout, everything else on stderr ("pi-jscpd: …").
 */
export function notify(ctx: NoticeContext | undefined, text: string, level: NoticeLevel): void {
	tellUser(ctx, "pi-jscpd", text, level);
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
