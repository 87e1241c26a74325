/**
 * `/jscpd dismiss <n>` and `/jscpd undismiss <n>`: the user's triage from the command line (n is
 * the number Browse shows). Only `/jscpd` routes here; `jscpd_run` does not offer these commands.
 * Never throws.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { UserCommandName } from "../core/registry.js";
import type { Triage } from "../core/triage.js";
import { itemLine, listText } from "../core/triage-text.js";
import type { DispatchResult } from "./dispatch.js";
import { changeNotice } from "./triage-ui.js";

/** Runs a `/jscpd`-only triage command. */
export function triageCommand(
	triage: Triage,
	pi: Pick<ExtensionAPI, "appendEntry">,
	command: UserCommandName,
	args: readonly string[],
): DispatchResult {
	const items = triage.items();
	if (args.length === 0)
		return { status: "ok", message: listText(items, command, triage.savedDismissals), details: { command } };
	const [raw] = args;
	const n = raw !== undefined && /^\d{1,6}$/.test(raw) ? Number(raw) : Number.NaN;
	const item = items[n - 1];
	if (args.length > 1 || !item) {
		const range =
			items.length > 0
				? `findings are numbered 1-${items.length}`
				: command === "undismiss" && triage.savedDismissals.length > 0
					? "findings are not saved; a dismissed one is listed again once a check finds it"
					: "there are no findings yet";
		return {
			status: "error",
			message: `jscpd ${command}: "${args.join(" ")}" is not a finding number (${range}). Usage: /jscpd ${command} <n>; /jscpd ${command} lists them.`,
			details: { command },
		};
	}
	const dismiss = command === "dismiss";
	const change = triage.set(pi, item, dismiss);
	return {
		status: change.ok || change.reason === "unchanged" ? "ok" : "error",
		// Named: a newer finding renumbers the list (newest first) between listing and typing.
		message: `${changeNotice(change, dismiss)}\n${itemLine(change.item)}`,
		details: { command, n, changed: change.ok },
	};
}

/**
 * Completions of `/jscpd dismiss <n>` (findings not dismissed) and `undismiss <n>` (dismissed ones):
 * the numbers, each described by its list line; `undefined` for any other argument text.
 */
export function findingCompletions(triage: Triage, prefix: string) {
	const match = /^\s*(dismiss|undismiss)\s+(\d*)$/.exec(prefix);
	if (!match) return undefined;
	const [, command, typed = ""] = match;
	const items = triage
		.items()
		.filter((item) => String(item.n).startsWith(typed) && item.dismissed === (command === "undismiss"))
		.slice(0, 50)
		.map((item) => ({ value: `${command} ${item.n}`, label: String(item.n), description: itemLine(item) }));
	return items.length > 0 ? items : null;
}
