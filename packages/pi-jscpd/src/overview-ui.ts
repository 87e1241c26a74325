/**
 * The bare `/jscpd` overview in Pi's interactive TUI: a thin adapter that shows the pure model
 * (overview.ts) with `ctx.ui.select` and reports outcomes with `ctx.ui.notify`. Opening it never
 * scans; the "Run …" entries go through the same dispatcher as `/jscpd changed` and `/jscpd scan`.
 * Every dialog gets the signal of the session it opened in (session replacement dismisses it), and
 * every answer is re-checked before it is acted on: a replaced session or, for the findings list,
 * a newer result means nothing happens (with a short notice).
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { DialogScope, OpenedDialogs } from "@pi-lifecycle/lifecycle-kit";
import { type LatestFindings, OVERVIEW_NOTICES, type OverviewModel, recheck } from "./overview.js";

/** Shown by "Browse findings (0)". */
export const NO_FINDINGS_NOTICE =
	"jscpd: no findings to browse yet. Run the changed check or a project scan from /jscpd first.";

/** Whether bare `/jscpd` opens the overview here (interactive TUI with dialogs). */
export function opensOverview(line: string, ctx: Pick<ExtensionCommandContext, "hasUI" | "mode">): boolean {
	return line.trim() === "" && ctx.hasUI && ctx.mode === "tui";
}

/** Opens the overview and runs the chosen entry. Never throws. */
export async function openOverview(
	model: OverviewModel,
	ctx: ExtensionCommandContext,
	scope: DialogScope,
): Promise<void> {
	try {
		const dialogs = scope.open();
		const menu = model.open();
		const choice = await ctx.ui.select(
			menu.title,
			menu.items.map((item) => item.label),
			{ signal: dialogs.signal },
		);
		const action = menu.items.find((item) => item.label === choice)?.action;
		if (!action || !still(dialogs, ctx)) return;
		if (action === "browse") return await browse(model, ctx, dialogs);
		const result = await model.run(action, ctx);
		ctx.ui.notify(result.message, result.status === "error" ? "error" : "info");
	} catch (err) {
		try {
			ctx.ui.notify(`jscpd overview failed: ${(err as Error)?.message ?? String(err)}`, "error");
		} catch {
			// A stale ctx (the session was replaced): nothing to report to.
		}
	}
}

/** Re-checks after a dialog answer; says why (best effort) and returns false when it no longer applies. */
function still(
	dialogs: OpenedDialogs,
	ctx: ExtensionCommandContext,
	findings?: { shown: LatestFindings; latest: LatestFindings | undefined },
): boolean {
	const verdict = recheck({ sessionCurrent: dialogs.current(), findings });
	if (verdict === "ok") return true;
	try {
		ctx.ui.notify(OVERVIEW_NOTICES[verdict], "warning");
	} catch {
		// The old ctx is stale after a replacement: the notice is best effort.
	}
	return false;
}

async function browse(model: OverviewModel, ctx: ExtensionCommandContext, dialogs: OpenedDialogs) {
	const shown = model.latest();
	if (!shown || shown.entries.length === 0) return ctx.ui.notify(NO_FINDINGS_NOTICE, "info");
	const source = shown.source === "scan" ? "the last project scan" : "the last changed check";
	const labels = shown.entries.map((entry, i) => `${i + 1}. ${entry.label}`);
	const choice = await ctx.ui.select(`jscpd findings from ${source} (${labels.length})`, labels, {
		signal: dialogs.signal,
	});
	const entry = shown.entries[choice === undefined ? -1 : labels.indexOf(choice)];
	if (!entry || !still(dialogs, ctx, { shown, latest: model.latest() })) return;
	ctx.ui.notify(entry.detail, "info");
}
