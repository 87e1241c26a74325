/**
 * The one dispatcher behind `/jscpd` and `jscpd_run`. It never throws: every outcome is
 * `{ status, message, details }`, with a bounded, model-readable message.
 */
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { OVERRIDDEN_NOTE, saveAndReload } from "@pi-lifecycle/lifecycle-kit";
import { beyondCovered } from "../core/compare.js";
import { checkedNote } from "../core/kinds.js";
import { baselineNotReadyText, bound, changedText, scanText } from "../core/presentation.js";
import { printablePath } from "../core/project-paths.js";
import { COMMANDS, type CommandName, helpText, isCommandName } from "../core/registry.js";
import { compareGroups } from "../core/report.js";
import { statusText } from "../core/status-text.js";
import { detectionOf, SETTINGS_SPEC } from "./config.js";
import type { JscpdController } from "./controller.js";
import { findNewGroups } from "./find-new.js";
import { tokenize, validateScanPaths } from "./paths.js";
import { runScan } from "./scan.js";
import { safeTrusted } from "./ui.js";

/** The outcome of one dispatched command. */
export interface DispatchResult {
	/** `ok`, or `error` for bad input and failed scans. */
	readonly status: "ok" | "error";
	/** Bounded text for the user or the model. */
	readonly message: string;
	/** Structured data (tool `details`). */
	readonly details: Readonly<Record<string, unknown>>;
}

/** Normalises tool/command arguments into a token list. */
export function toArgs(args: unknown): string[] | undefined {
	if (args === undefined || args === null) return [];
	if (typeof args === "string") return tokenize(args);
	if (Array.isArray(args) && args.every((arg) => typeof arg === "string")) return args as string[];
	return undefined;
}

/**
 * `jscpd_run`'s raw arguments before Pi validates them: the declaration lists `args` as an array
 * (the shorter schema), and a string is split into that array exactly as {@link toArgs} would.
 * Anything else is returned unchanged (never throws).
 */
export function splitStringArgs(raw: unknown): unknown {
	try {
		if (typeof raw !== "object" || raw === null) return raw;
		const args = (raw as { args?: unknown }).args;
		return typeof args === "string" ? { ...raw, args: tokenize(args) } : raw;
	} catch {
		return raw;
	}
}

function error(command: string, message: string, extra: Record<string, unknown> = {}): DispatchResult {
	return { status: "error", message: bound(message), details: { command, ...extra } };
}

/** Parses a `/jscpd …` command line into command and arguments. */
export function parseCommandLine(line: string): { command: string; args: string[] } {
	const tokens = tokenize(line.trim());
	return { command: tokens[0] ?? "help", args: tokens.slice(1) };
}

/**
 * Who a switch (`on`/`off`) belongs to: the user's `/jscpd on|off` saves it in the global
 * settings file; the model's `jscpd_run` switches this session only and saves nothing.
 */
export type SwitchScope = "global" | "session";

/** Dispatches one command. Never throws. */
export async function dispatch(
	controller: JscpdController,
	ctx: ExtensionContext,
	command: unknown,
	rawArgs: unknown,
	scope: SwitchScope = "global",
): Promise<DispatchResult> {
	try {
		if (!isCommandName(command)) {
			return error(String(command), `Unknown jscpd command "${String(command)}".\n${helpText()}`);
		}
		const args = toArgs(rawArgs);
		if (!args) return error(command, "args must be a string or a list of strings");
		if (!COMMANDS[command].takesArgs && args.length > 0)
			return error(command, `"${command}" takes no arguments`);
		return await run(controller, ctx, command, args, scope);
	} catch (err) {
		return error(
			String(command),
			`jscpd ${String(command)} failed: ${(err as Error)?.message ?? String(err)}`,
		);
	}
}

/** One subcommand's handler (the registry names the commands; this table must cover every one). */
type Handler = (
	controller: JscpdController,
	ctx: ExtensionContext,
	args: string[],
	scope: SwitchScope,
) => DispatchResult | Promise<DispatchResult>;

const HANDLERS: { readonly [K in CommandName]: Handler } = {
	help: (_controller, _ctx, _args, scope) => ({
		status: "ok",
		message: helpText(scope === "global" ? "user" : "model"),
		details: { command: "help" },
	}),
	status: (controller, _ctx, args) => {
		const verbose = args.length === 1 && (args[0] === "--verbose" || args[0] === "-v");
		if (args.length > 0 && !verbose) return error("status", `"status" takes only --verbose`);
		const status = controller.status();
		return { status: "ok", message: statusText(status, verbose), details: { command: "status", status } };
	},
	on: (controller, ctx, _args, scope) => switchTo(controller, ctx, true, scope),
	off: (controller, ctx, _args, scope) => switchTo(controller, ctx, false, scope),
	scan: (controller, _ctx, args, scope) => scan(controller, args, scope),
	changed: (controller, _ctx, _args, scope) => changed(controller, scope),
};

function run(
	controller: JscpdController,
	ctx: ExtensionContext,
	command: CommandName,
	args: string[],
	scope: SwitchScope,
): DispatchResult | Promise<DispatchResult> {
	return HANDLERS[command](controller, ctx, args, scope);
}

function switchTo(
	controller: JscpdController,
	ctx: ExtensionContext,
	enabled: boolean,
	scope: SwitchScope,
): DispatchResult {
	return scope === "session" ? sessionToggle(controller, ctx, enabled) : toggle(controller, ctx, enabled);
}

async function scan(
	controller: JscpdController,
	args: string[],
	scope: SwitchScope,
): Promise<DispatchResult> {
	const { root, runner, capability, settings, baseline } = controller.state;
	if (!root) return error("scan", "jscpd has no project root yet (no session started)");
	const paths = validateScanPaths(root, args);
	if (!paths.ok) return error("scan", `jscpd scan rejected: ${paths.error}`, { rejected: true });
	// The kinds the session's checks use: a session that went exact-only (its baseline overloaded
	// near-copy detection) scans exact clones too, and says so; before a baseline, the settings'.
	const detection = ("detection" in baseline ? baseline.detection : undefined) ?? detectionOf(settings);
	const outcome = await controller.explicit(async (signal) =>
		runScan(runner, await capability(), {
			root,
			paths: paths.paths,
			timeoutMs: settings.timeoutMs,
			signal,
			detection,
		}),
	);
	if (outcome.status !== "ok")
		return error("scan", `jscpd scan ${outcome.status}: ${printablePath(outcome.reason)}`, {
			outcome: outcome.status,
		});
	// The model's scan result counts as told; groups the user dismissed are never listed again.
	const { listed: groups, note } = controller.triage.scanResult(
		[...outcome.report.groups].sort(compareGroups),
		scope === "session",
	);
	return {
		status: "ok",
		message:
			scanText(
				groups,
				Math.max(settings.maxFindings, 10),
				outcome.report.sources,
				outcome.report.omitted,
				checkedNote(detection),
			) + note,
		details: {
			command: "scan",
			total: groups.length,
			sources: outcome.report.sources,
			omitted: outcome.report.omitted,
			groups: groups.slice(0, 50).map((g) => ({
				identity: g.identity,
				lines: g.lines,
				tokens: g.tokens,
				format: g.format,
				locations: g.locations,
				...(g.kind && g.kind !== "exact" ? { kind: g.kind, similarity: g.similarity } : {}),
			})),
		},
	};
}

async function changed(controller: JscpdController, scope: SwitchScope): Promise<DispatchResult> {
	const { root, runner, capability, settings, baseline, mutations, index, focus } = controller.state;
	if (!root) return error("changed", "jscpd has no project root yet (no session started)");
	if (baseline.status !== "accepted" && baseline.status !== "partial") {
		const reason = "reason" in baseline ? printablePath(baseline.reason ?? "") : undefined;
		return error("changed", baselineNotReadyText(baseline.status, reason, scope === "session"));
	}
	// A command earlier in this turn (bash) may have changed files the settle probe has not seen yet.
	await controller.probeOutside();
	if (mutations.changed.size === 0) {
		const unseen = controller.state.incomplete;
		return {
			status: "ok",
			message: unseen
				? `jscpd changed: no changed files found in this session, but ${unseen}; nothing to compare.`
				: "jscpd changed: no files changed in this session; nothing to compare.",
			details: { command: "changed", findings: [] },
		};
	}
	const outcome = await controller.explicit(async (signal) =>
		findNewGroups({
			runner,
			capability: await capability(),
			root,
			timeoutMs: settings.timeoutMs,
			signal,
			// Compared with the baseline, so detected with the baseline's kinds.
			detection: baseline.detection,
			baseline: index,
			focus,
			changed: () => mutations.changed,
		}),
	);
	if (outcome.status !== "ok")
		return error("changed", `jscpd changed ${outcome.status}: ${printablePath(outcome.reason)}`, {
			outcome: outcome.status,
		});
	// Every current finding goes to the triage list; the result lists those not dismissed, capped.
	const { listed, note } = controller.triage.changedResult(outcome.current);
	// A copy note counts from the copies the model was told about or the user dismissed.
	const covered = (identity: string) =>
		mutations.isAcknowledged(identity) || controller.triage.isDismissed(identity);
	const selection = {
		findings: listed.slice(0, settings.maxFindings).map((finding) => beyondCovered(finding, covered)),
		omitted: Math.max(0, listed.length - settings.maxFindings),
	};
	return {
		status: "ok",
		message: changedText(selection, {
			acknowledged: (identity) => mutations.isAcknowledged(identity),
			partial: baseline.status === "partial" ? (baseline.reason ?? "incomplete") : undefined,
			incomplete: controller.state.incomplete,
			triage: note,
			checked: checkedNote(baseline.detection),
		}),
		details: {
			command: "changed",
			baseline: baseline.status,
			omitted: selection.omitted,
			findings: selection.findings.map((f) => ({
				identity: f.identity,
				label: f.label,
				lines: f.group.lines,
				tokens: f.group.tokens,
				locations: f.group.locations,
				...(f.group.kind && f.group.kind !== "exact"
					? { kind: f.group.kind, similarity: f.group.similarity, original: f.original }
					: {}),
			})),
		},
	};
}

function toggle(controller: JscpdController, ctx: ExtensionContext, enabled: boolean): DispatchResult {
	const location = { agentDir: controller.agentDir(), cwd: ctx.cwd, projectTrusted: safeTrusted(ctx) };
	const saved = saveAndReload(SETTINGS_SPEC, location, { enabled });
	if (!saved.ok)
		return error(enabled ? "on" : "off", `Could not save the setting: ${printablePath(saved.error)}`);
	// The user's saved switch also ends a session switch the model set.
	controller.reloadSettings(ctx, null);
	if (!enabled) controller.cancelAutomatic();
	const effective = controller.status().settings.enabled;
	const note = saved.overridden.length > 0 ? ` (${OVERRIDDEN_NOTE})` : "";
	return {
		status: "ok",
		message: `jscpd automatic checkpoint ${effective ? "enabled" : "disabled"}${note}. Saved to ${printablePath(saved.path)}.`,
		details: { command: enabled ? "on" : "off", enabled: effective, path: saved.path },
	};
}

/** `jscpd_run on|off`: this session only, nothing saved (the user's settings stay as they are). */
function sessionToggle(controller: JscpdController, ctx: ExtensionContext, enabled: boolean): DispatchResult {
	controller.reloadSettings(ctx, enabled);
	if (!enabled) controller.cancelAutomatic();
	return {
		status: "ok",
		message: `jscpd automatic checkpoint ${enabled ? "on" : "off"} for this session only; the user's saved setting is unchanged.`,
		details: { command: enabled ? "on" : "off", enabled, scope: "session" },
	};
}
