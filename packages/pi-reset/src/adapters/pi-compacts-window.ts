/**
 * "Would Pi compact this window?", measured as Pi measures it: the window's message tokens, newest
 * first, read lazily from the leaf (the pure rules are core/threshold.ts's `piCompactsWindow` and
 * `piSurelyCompactsWindow`).
 */
import { type ExtensionAPI, type ExtensionContext, estimateTokens } from "@earendil-works/pi-coding-agent";
import { walkBackFromLeaf } from "@pi-lifecycle/lifecycle-kit";
import { piCompactsWindow, piSurelyCompactsWindow } from "../core/threshold.js";
import { keepRecentTokens } from "./pi-compaction-settings.js";

/**
 * The message tokens of the current window, newest first: back from the leaf to its compaction,
 * then (`withKept`) the entries that compaction kept, which Pi projects into the window. Without
 * `withKept` a window that ends in a compaction has no tokens.
 */
export function* windowMessageTokens(ctx: ExtensionContext, withKept: boolean): Generator<number> {
	let keptFrom: string | undefined;
	for (const entry of walkBackFromLeaf(ctx.sessionManager)) {
		if (keptFrom === undefined && entry.type === "compaction") {
			if (!withKept || entry.firstKeptEntryId === entry.id || !entry.firstKeptEntryId) return;
			keptFrom = entry.firstKeptEntryId;
			continue;
		}
		if (entry.type === "compaction") return;
		if (entry.type === "message") yield estimateTokens(entry.message);
		if (entry.id === keptFrom) return;
	}
}

/**
 * Whether Pi would compact the current window at its threshold (`piCompactsWindow`). Walks the
 * window only at a boundary after an answer over the threshold, and stops past the keep budget.
 */
export function createPiCompacts(pi: Pick<ExtensionAPI, "getSettings">): (ctx: ExtensionContext) => boolean {
	return (ctx) => piCompactsWindow(windowMessageTokens(ctx, true), keepRecentTokens(pi, ctx));
}

/**
 * Whether Pi will compact the window when asked now (`piSurelyCompactsWindow`): it does not end in
 * a compaction, and its own messages (what a compaction kept is not counted) after the oldest exceed
 * the keep-recent budget with a margin. Walks the window once, at a `/reset`.
 */
export function piWillCompact(pi: Pick<ExtensionAPI, "getSettings">, ctx: ExtensionContext): boolean {
	return piSurelyCompactsWindow(windowMessageTokens(ctx, false), keepRecentTokens(pi, ctx));
}
