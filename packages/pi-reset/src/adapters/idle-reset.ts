/**
 * An idle `/reset` opens its window at once when Pi can compact the window: Pi's manual compaction,
 * which pi-reset answers with its own instant reset (compaction.ts: no model call, the request's
 * handoff, the user's latest request and the digest). Then the transcript shows the reset where the
 * user asked for it, before their next message, and the context meter measures the new window from
 * its first answer.
 *
 * Pi refuses to compact a window that fits in `compaction.keepRecentTokens` ("Nothing to compact"),
 * or one that ends in a compaction ("Already compacted"), before it asks extensions, and shows the
 * refusal as an error. So the window is measured first, as Pi measures it, with a margin
 * (`piWillCompact`, pi-compacts-window.ts); a smaller window keeps the next-run path (the next
 * message's run starts in the new window, committed at the run's first boundary).
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";

/** Runs Pi's manual compaction and resolves whether it completed. */
export function compactNow(ctx: ExtensionCommandContext): Promise<boolean> {
	return new Promise((resolve) => {
		try {
			ctx.compact({ onComplete: () => resolve(true), onError: () => resolve(false) });
		} catch {
			resolve(false);
		}
	});
}
