/**
 * The findings triage in Pi's TUI (a thin adapter over triage.ts): Browse lists every current
 * finding, newest first; picking one opens its menu — ask the agent to fix it, show both blocks,
 * dismiss as intended (or undo) — which returns after showing or dismissing, so an undo is one
 * step away. Every answer is re-checked before it is acted on: the session the dialog opened in,
 * then the findings list it numbered (a newer result renumbers it).
 */
import type {
	ExtensionAPI,
	ExtensionCommandContext,
	ExtensionContext,
} from "@earendil-works/pi-coding-agent";
import {
	describeWriteError,
	type IdleDispatcher,
	type OpenedDialogs,
	type StaleGuard,
} from "@pi-lifecycle/lifecycle-kit";
import { OVERVIEW_NOTICES, recheck } from "../core/overview.js";
import { printablePath } from "../core/project-paths.js";
import type { Triage, TriageChange, TriageItem } from "../core/triage.js";
import { itemDetail, itemLine, listTitle, TRIAGE_LABELS } from "../core/triage-text.js";
import { FIX_REFUSALS, requestFix, showBlocks } from "./triage-actions.js";

/** Shown by "Browse findings (0)". */
export const NO_FINDINGS_NOTICE =
	"jscpd: no findings to browse yet. They appear after the automatic check, or run the changed check or a project scan from /jscpd.";

/** What the triage dialogs need. */
export interface TriageUiDeps {
	readonly triage: Triage;
	readonly pi: Pick<ExtensionAPI, "appendEntry" | "sendUserMessage">;
	/** The project root of the live runtime. */
	readonly root: () => string | undefined;
	readonly dispatcher: IdleDispatcher<ExtensionContext>;
	readonly guard: () => StaleGuard;
	readonly workflowBusy: () => boolean;
}

/** Re-checks after a dialog answer; says why (best effort) and returns false when it no longer applies. */
export function stillApplies(
	dialogs: OpenedDialogs,
	ctx: ExtensionCommandContext,
	findings?: { shown: number; latest: number },
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

/** The user-facing answer to a dismissal or undo. */
export function changeNotice(change: TriageChange, dismiss: boolean): string {
	const n = change.item.n;
	if (change.ok)
		return dismiss
			? `jscpd: finding ${n} dismissed as intended; it is not reported to the model again. Undo: /jscpd undismiss ${n}.`
			: `jscpd: finding ${n} is reported again when a check finds it.`;
	if (change.reason === "unchanged")
		return dismiss ? `jscpd: finding ${n} is already dismissed.` : `jscpd: finding ${n} is not dismissed.`;
	return `jscpd: the dismissal could not be saved in the session (${printablePath(describeWriteError(change.error))}); nothing changed.`;
}

/** Opens the findings list and the menu of the picked finding. */
export async function browseFindings(
	deps: TriageUiDeps,
	ctx: ExtensionCommandContext,
	dialogs: OpenedDialogs,
) {
	const version = deps.triage.version;
	const items = deps.triage.items();
	if (items.length === 0) return ctx.ui.notify(NO_FINDINGS_NOTICE, "info");
	const labels = items.map(itemLine);
	const choice = await ctx.ui.select(listTitle(deps.triage.counts()), labels, { signal: dialogs.signal });
	const picked = items[choice === undefined ? -1 : labels.indexOf(choice)];
	if (!picked || !stillApplies(dialogs, ctx, { shown: version, latest: deps.triage.version })) return;
	await findingMenu(deps, ctx, dialogs, picked, version);
}

/** Most rounds of one finding's menu (show and dismiss return to it). */
const MAX_ROUNDS = 50;

async function findingMenu(
	deps: TriageUiDeps,
	ctx: ExtensionCommandContext,
	dialogs: OpenedDialogs,
	picked: TriageItem,
	version: number,
): Promise<void> {
	let item = picked;
	for (let round = 0; round < MAX_ROUNDS; round++) {
		const options = [
			TRIAGE_LABELS.fix,
			TRIAGE_LABELS.show,
			item.dismissed ? TRIAGE_LABELS.undo : TRIAGE_LABELS.dismiss,
			TRIAGE_LABELS.back,
		];
		const choice = await ctx.ui.select(itemDetail(item), options, { signal: dialogs.signal });
		if (choice === undefined || choice === TRIAGE_LABELS.back) return;
		if (!stillApplies(dialogs, ctx, { shown: version, latest: deps.triage.version })) return;
		// The item's state now (told, dismissed), not when the menu was drawn.
		const current = deps.triage.items().find((candidate) => candidate.finding.key === item.finding.key);
		if (!current) return;
		item = current;
		if (choice === TRIAGE_LABELS.fix) {
			const outcome = await requestFix(deps, ctx, item);
			if (outcome.sent) ctx.ui.notify(`jscpd: asked the agent to fix finding ${item.n}.`, "info");
			else ctx.ui.notify(FIX_REFUSALS[outcome.reason], "warning");
			return;
		}
		if (choice === TRIAGE_LABELS.show) {
			const root = deps.root();
			ctx.ui.notify(root ? showBlocks(root, item) : "jscpd: no project root.", "info");
			continue;
		}
		const dismiss = choice === TRIAGE_LABELS.dismiss;
		const change = deps.triage.set(deps.pi, item, dismiss);
		ctx.ui.notify(changeNotice(change, dismiss), change.ok ? "info" : "warning");
		item = change.item;
	}
}
