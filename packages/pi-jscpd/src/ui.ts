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

/**
 * Reports ignored saved state (malformed `pi-jscpd/*` entries, an unusable baseline file) at most
 * once per runtime: a UI warning, otherwise one `console.error` line (stderr), like pi-reset and
 * pi-goal. Returns whether it reported.
 */
export function reportIgnoredOnce(): (ctx: ExtensionContext, ignored: readonly string[]) => boolean {
	let reported = false;
	return (ctx, ignored) => {
		if (reported || ignored.length === 0) return false;
		reported = true;
		const text = `pi-jscpd: ignored saved state in this session — ${ignored.join("; ")}.`;
		try {
			if (ctx.hasUI) {
				ctx.ui.notify(text, "warning");
				return true;
			}
		} catch {
			// A stale ctx: fall back to stderr.
		}
		console.error(text);
		return true;
	};
}
