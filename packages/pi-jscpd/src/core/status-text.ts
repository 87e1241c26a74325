/**
 * The `/jscpd status` text (pure): what is checked, what the last check found, why anything is off
 * and what to do, in users' words. Internals (generations, attempts, detection mode names, the
 * executable's path, settings sources) only with `--verbose`.
 */
import { bound } from "./presentation.js";
import { printablePath } from "./project-paths.js";
import type { StatusView } from "./status.js";

function plural(count: number, noun: string): string {
	return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** What the checkpoint does, or why it does not run and what to do. */
function checkedLine(view: StatusView): string {
	if (!view.settings.enabled) return "Automatic jscpd checks are off. Turn them on with /jscpd on.";
	const kinds = view.baseline.kinds ?? view.settings.kinds;
	const what =
		kinds.length === 1 && kinds[0] === "exact" ? "copied code" : `copied code (${kinds.join(", ")})`;
	return `Automatic jscpd checks are on: after each agent run, files changed this session are checked for new ${what}.`;
}

function jscpdLine(view: StatusView): string | undefined {
	const cap = view.capability;
	if (cap.status === "available") return undefined;
	if (cap.status === "probing") return "Looking for jscpd…";
	return `jscpd cannot run: ${printablePath(cap.reason)}. Install jscpd (5.x) or reinstall pi-jscpd.`;
}

function baselineLine(view: StatusView): string {
	const b = view.baseline;
	const reason = b.reason ? printablePath(b.reason) : "";
	switch (b.status) {
		case "none":
		case "pending":
			return "Recording the duplicates the project already has (the baseline); checks start when it is done.";
		case "accepted":
			return `Baseline: ${plural(b.groups ?? 0, "duplicated block")} already in the project when the session started (not reported).${b.fallback ? ` ${exactOnlySentence(b.fallback)}` : ""}`;
		case "partial":
			return `Baseline incomplete (${reason}): automatic checks are paused. /jscpd changed still lists new duplicates; a new session records a full baseline.`;
		default:
			return `Baseline could not be recorded (${reason || b.status}): automatic checks are paused. Try /jscpd scan to see the error, raise "timeoutMs" in pi-jscpd's settings if it timed out, or start a new session.`;
	}
}

/** One sentence when this session dropped renamed and near-copy detection (the baseline's fallback). */
function exactOnlySentence(fallback: string): string {
	const why = fallback.replace(
		/^renamed and near-copy detection turned off for this session \((.*)\)$/,
		"$1",
	);
	return `This session checks exact copies only: ${printablePath(why)}.`;
}

function capitalised(text: string): string {
	return text.charAt(0).toUpperCase() + text.slice(1);
}

/** How changes are found, in plain words. */
function changesLine(view: StatusView): string {
	const files = `${plural(view.changedFiles, "file")} changed this session`;
	const how =
		view.externalDetection === "none"
			? "changes are found once the project's files are listed"
			: `changes made by any means (tools, commands, editors) are found by comparing the project's files with a list taken at the start${view.externalDetection === "files+git" ? "; git tells checkouts and pulls apart from the session's own work" : ""}`;
	return `${capitalised(files)}; ${how}.`;
}

function lastCheckLine(view: StatusView): string | undefined {
	const outcome = view.lastOutcome;
	if (!outcome) return view.settings.enabled ? "No check has run yet." : undefined;
	// What the check read: a focused check costs what changed; a whole scan says why it ran.
	const text = printablePath(outcome.scope ? `${outcome.text}; ${outcome.scope}` : outcome.text);
	switch (outcome.kind) {
		case "clean":
			return `Last check: no new duplicates (${text}).`;
		case "findings":
			return `Last check: ${text}. /jscpd lists them; /jscpd dismiss <n> marks one as intended.`;
		case "incomplete":
			return `Last check could not see everything: ${text}.`;
		case "timeout":
			return `Last check timed out: ${text}. Raise "timeoutMs" in pi-jscpd's settings, or see /jscpd status --verbose.`;
		case "unavailable":
			return `Last check could not run: ${text}.`;
		default:
			return `Last check failed: ${text}.`;
	}
}

function skippedLine(view: StatusView): string | undefined {
	const skipped = view.skippedIgnoreFiles ?? [];
	if (skipped.length === 0) return undefined;
	const named = skipped
		.slice(0, 3)
		.map((file) => `${printablePath(file.path)} (${file.why})`)
		.join(", ");
	const more = skipped.length > 3 ? ` and ${skipped.length - 3} more` : "";
	return `Ignore file${skipped.length === 1 ? "" : "s"} skipped: ${named}${more}. jscpd is given the project's files one by one instead; fix or remove ${skipped.length === 1 ? "it" : "them"} to scan normally.`;
}

function trustLine(view: StatusView): string | undefined {
	if (view.trusted !== false) return undefined;
	return "This project is not trusted: git, the project's jscpd config and its .gitignore are not used (/trust to change that).";
}

/** Internals for `--verbose`. */
function verboseLines(view: StatusView): string[] {
	const cap = view.capability;
	const scheduler = view.scheduler;
	return [
		"",
		"Details:",
		`  project: ${view.root === undefined ? "(none)" : printablePath(view.root)}`,
		`  jscpd: ${cap.status === "available" ? `${cap.version} (${cap.source}: ${printablePath(cap.command)})` : cap.status}`,
		`  settings: timeout ${view.settings.timeoutMs} ms, max ${view.settings.maxFindings} findings, kinds ${view.settings.kinds.join(", ")}${view.settings.kinds.includes("similar") ? ` (similarity ${view.settings.similarity})` : ""}${view.settings.minTokens === undefined ? "" : `, min ${view.settings.minTokens} tokens`}${view.settings.minLines === undefined ? "" : `, min ${view.settings.minLines} lines`}; a change applies from the next baseline`,
		`  baseline: ${view.baseline.status}${view.baseline.file ? ` (${printablePath(view.baseline.file)})` : ""}`,
		`  change detection: ${view.externalDetection}`,
		`  incomplete: ${view.incomplete ? printablePath(view.incomplete) : "no"}`,
		`  findings acknowledged by the model: ${view.acknowledged}${view.redelivered > 0 ? ` (${view.redelivered} re-delivered after a reset)` : ""}`,
		`  mutation generation ${scheduler.mutationGeneration}, last automatic attempt ${scheduler.attemptedGeneration}${scheduler.automaticActive ? ", check running" : ""}`,
		...view.recentChecks.map(
			(record) =>
				`  check of generation ${record.generation}: ${record.disposition} (${printablePath(record.detail)})`,
		),
		...view.settingsSources.map((source) => `  settings ${printablePath(source)}`),
	];
}

/** The `/jscpd status` text; `verbose` adds the internals. */
export function statusText(view: StatusView, verbose = false): string {
	const lines = [
		checkedLine(view),
		jscpdLine(view),
		baselineLine(view),
		changesLine(view),
		view.incomplete ? `Not every change can be checked: ${printablePath(view.incomplete)}.` : undefined,
		lastCheckLine(view),
		skippedLine(view),
		trustLine(view),
	].filter((line): line is string => line !== undefined);
	return bound([...lines, ...(verbose ? verboseLines(view) : [])].join("\n"));
}
