/**
 * The bare `/jscpd` overview in Pi's interactive TUI: a thin adapter that shows the pure model
 * (overview.ts) with `ctx.ui.select` and reports outcomes with `ctx.ui.notify`. Opening it never
 * scans; the "Run …" entries go through the same dispatcher as `/jscpd changed` and `/jscpd scan`.
 * Every dialog gets the signal of the session it opened in (session replacement dismisses it), and
 * every answer is re-checked before it is acted on: a replaced session or, for the findings list,
 * a newer result means nothing happens (with a short notice).
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { DialogScope } from "@pi-lifecycle/lifecycle-kit";
import type { OverviewModel } from "../core/overview.js";
import { browseFindings, stillApplies, type TriageUiDeps } from "./triage-ui.js";

export { NO_FINDINGS_NOTICE } from "./triage-ui.js";

/** Whether bare `/jscpd` opens the overview here (interactive TUI with dialogs). */
export function opensOverview(line: string, ctx: Pick<ExtensionCommandContext, "hasUI" | "mode">): boolean {
	return line.trim() === "" && ctx.hasUI && ctx.mode === "tui";
}

/** Opens the overview and runs the chosen entry. Never throws. */
export async function openOverview(
	model: OverviewModel,
	ctx: ExtensionCommandContext,
	scope: DialogScope,
	triage: TriageUiDeps,
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
		if (!action || !stillApplies(dialogs, ctx)) return;
		if (action === "browse") return await browseFindings(triage, ctx, dialogs);
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
