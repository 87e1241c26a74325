/**
 * The bare `/jscpd` overview in Pi's interactive TUI: a thin adapter that shows the pure model
 * (overview.ts) with `ctx.ui.select` and reports outcomes with `ctx.ui.notify`. Opening it never
 * scans; the "Run …" entries go through the same dispatcher as `/jscpd changed` and `/jscpd scan`.
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { OverviewModel } from "./overview.js";

/** Shown by "Browse findings (0)". */
export const NO_FINDINGS_NOTICE =
	"jscpd: no findings to browse yet. Run the changed check or a project scan from /jscpd first.";

/** Whether bare `/jscpd` opens the overview here (interactive TUI with dialogs). */
export function opensOverview(line: string, ctx: Pick<ExtensionCommandContext, "hasUI" | "mode">): boolean {
	return line.trim() === "" && ctx.hasUI && ctx.mode === "tui";
}

/** Opens the overview and runs the chosen entry. Never throws. */
export async function openOverview(model: OverviewModel, ctx: ExtensionCommandContext): Promise<void> {
	try {
		const menu = model.open();
		const choice = await ctx.ui.select(
			menu.title,
			menu.items.map((item) => item.label),
		);
		const action = menu.items.find((item) => item.label === choice)?.action;
		if (!action) return;
		if (action === "browse") return await browse(model, ctx);
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

async function browse(model: OverviewModel, ctx: ExtensionCommandContext): Promise<void> {
	const latest = model.latest();
	if (!latest || latest.entries.length === 0) return ctx.ui.notify(NO_FINDINGS_NOTICE, "info");
	const source = latest.source === "scan" ? "the last project scan" : "the last changed check";
	const labels = latest.entries.map((entry, i) => `${i + 1}. ${entry.label}`);
	const choice = await ctx.ui.select(`jscpd findings from ${source} (${labels.length})`, labels);
	const index = choice === undefined ? -1 : labels.indexOf(choice);
	const entry = latest.entries[index];
	if (entry) ctx.ui.notify(entry.detail, "info");
}
