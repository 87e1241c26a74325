/**
 * An idle `/reset` opens its window at once when Pi can compact the window: Pi's manual compaction,
 * which pi-reset answers with its own instant reset (compaction.ts: no model call, the request's
 * handoff, the user's latest request and the digest). Then the transcript shows the reset where the
 * user asked for it, before their next message, and the context meter measures the new window from
 * its first answer.
 *
 * Pi refuses to compact a window that fits in `compaction.keepRecentTokens` ("Nothing to compact"),
 * or one that ends in a compaction ("Already compacted"), before it asks extensions, and shows the
 * refusal as an error. So the window is measured first, as Pi measures it, with a margin; a smaller
 * window keeps the next-run path (the next message's run starts in the new window, committed at the
 * run's first boundary).
 */
import {
	DEFAULT_COMPACTION_SETTINGS,
	type ExtensionAPI,
	type ExtensionCommandContext,
	type ExtensionContext,
	estimateTokens,
} from "@earendil-works/pi-coding-agent";
import { walkBackFromLeaf } from "@pi-lifecycle/lifecycle-kit";

/** Tokens above Pi's keep-recent budget a window must have, so that Pi's own count finds something to compact. */
const MARGIN_TOKENS = 1024;

/** Pi's effective `compaction.keepRecentTokens` for the current model (override, setting, default). */
export function keepRecentTokens(
	pi: Pick<ExtensionAPI, "getSettings">,
	ctx: Pick<ExtensionContext, "model">,
): number {
	try {
		const compaction = pi.getSettings().compaction;
		const key = ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : undefined;
		const override = key ? compaction?.modelOverrides?.[key]?.keepRecentTokens : undefined;
		const value = override ?? compaction?.keepRecentTokens;
		return typeof value === "number" && Number.isFinite(value) && value >= 0
			? value
			: DEFAULT_COMPACTION_SETTINGS.keepRecentTokens;
	} catch {
		return DEFAULT_COMPACTION_SETTINGS.keepRecentTokens;
	}
}

/**
 * Whether Pi will compact the window now: it does not end in a compaction, and its messages after
 * the first one exceed the keep-recent budget (Pi keeps that many recent tokens and needs something
 * before them). Counts only the window's own message entries (what a compaction kept is not
 * counted), so it errs towards "no". Walks the window once, at a `/reset`.
 */
export function piWillCompact(pi: Pick<ExtensionAPI, "getSettings">, ctx: ExtensionContext): boolean {
	const budget = keepRecentTokens(pi, ctx) + MARGIN_TOKENS;
	let tokens = 0;
	let first = 0;
	for (const entry of walkBackFromLeaf(ctx.sessionManager)) {
		if (entry.type === "compaction") {
			if (tokens === 0) return false;
			break;
		}
		if (entry.type !== "message") continue;
		first = estimateTokens(entry.message);
		tokens += first;
	}
	return tokens - first > budget;
}

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
