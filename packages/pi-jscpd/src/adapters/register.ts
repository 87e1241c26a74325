/**
 * Thin Pi adapters: event handlers, the `jscpd_run` tool, the `/jscpd` command and the findings
 * message renderer. Each handler forwards to the controller and returns fast.
 */
import { StringEnum } from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";
import { createArmedSubscription, type DialogScope, onResetAnnouncement } from "@pi-lifecycle/lifecycle-kit";
import { Type } from "typebox";
import { acksOfChangedDetails, TOOL_NAME } from "../core/deliveries.js";
import { createOverviewModel } from "../core/overview.js";
import { FINDINGS_MESSAGE } from "../core/presentation.js";
import {
	COMMAND_NAMES,
	commandCompletions,
	helpText,
	isUserCommandName,
	USER_COMMAND_NAMES,
} from "../core/registry.js";
import { endsInRecovery } from "../core/triggers.js";
import type { JscpdController } from "./controller.js";
import { dispatch, parseCommandLine, splitStringArgs } from "./dispatch.js";
import { openOverview, opensOverview } from "./overview-ui.js";
import { readOnlyTools } from "./read-only-tools.js";
import { findingCompletions, triageCommand } from "./triage-command.js";
import type { TriageUiDeps } from "./triage-ui.js";
import { notify } from "./ui.js";

/** Wires lifecycle events to the controller. `current()` is the controller of the live session. */
export function registerLifecycle(pi: ExtensionAPI, controller: JscpdController): void {
	pi.on("session_start", (event, ctx) => {
		controller.start(ctx, event.reason);
	});
	pi.on("session_shutdown", async (event) => {
		await controller.shutdown(event.reason);
	});
	pi.on("session_before_tree", () => {
		controller.invalidate();
	});
	pi.on("session_tree", (_event, ctx) => {
		controller.restoreBranch(ctx);
	});
	pi.on("input", () => {
		controller.cancelAutomatic();
		return { action: "continue" };
	});
	pi.on("before_agent_start", () => {
		controller.cancelAutomatic();
	});
	// Subscribed only while the baseline or the reference walk is pending (Pi skips tool_call entirely
	// without a handler): a tool that may change files waits for the reference walk (one walk), and a
	// write/edit's file content before it is kept for the baseline; the baseline scan is never awaited.
	const readOnly = readOnlyTools(pi, TOOL_NAME);
	const baselineWait = createArmedSubscription(() =>
		pi.on("tool_call", async (event, ctx) => {
			if (readOnly(event.toolName)) return;
			const write = event.toolName === "write" || event.toolName === "edit";
			await controller.beforeChange(ctx, write, (event.input as { path?: unknown }).path);
		}),
	);
	controller.onBaselineWait((pending) => {
		try {
			if (pending) baselineWait.arm();
			else baselineWait.disarm();
		} catch {
			// A stale runtime (reload, replacement): its API refuses new handlers.
		}
	});
	// tool_execution_end carries no input (no path), so mutations are read from tool_result. What
	// any other tool (bash, other extensions' tools) changed is found by the next walk.
	pi.on("tool_result", (event, ctx) => {
		const path = (event.input as { path?: unknown } | undefined)?.path;
		if (
			(event.toolName === "write" || event.toolName === "edit") &&
			typeof path === "string" &&
			!event.isError
		)
			controller.recordMutation(ctx, path);
	});
	// A retry or compaction retry follows an attempt that did not stop normally: not a trigger.
	let recovery = false;
	pi.on("agent_end", (event) => {
		recovery = endsInRecovery(event.messages);
	});
	// Notification only and O(1): a boundary continuation starts a background check, never awaited.
	pi.on("agent_start", (_event, ctx) => {
		controller.onAttemptStart(ctx, recovery);
		recovery = false;
	});
	pi.on("agent_settled", (_event, ctx) => {
		controller.startBackgroundCheck(ctx);
	});
	onResetAnnouncement(
		pi.events,
		"pi-jscpd",
		() => controller.currentSession(),
		(announcement) => controller.onReset(announcement),
	);
}

/** Registers `jscpd_run`. */
export function registerTool(pi: ExtensionAPI, controller: JscpdController): void {
	pi.registerTool({
		name: TOOL_NAME,
		label: "jscpd",
		// Sent with every request (issue 20): what a model needs to choose the tool. `help` lists what
		// each command does; wrong arguments and unknown commands are answered with the usage.
		description: "Find duplicated code (jscpd); scan args are paths.",
		parameters: Type.Object({
			command: StringEnum(COMMAND_NAMES as unknown as string[]),
			args: Type.Optional(Type.Array(Type.String())),
		}),
		// `args` as one string ("src lib") is still accepted: split like a `/jscpd` command line.
		prepareArguments: (raw) => splitStringArgs(raw) as never,
		async execute(_id, params, _signal, _onUpdate, ctx) {
			// A switch the model reaches acts on this session only; saved switches are the user's.
			const result = await dispatch(controller, ctx, params.command, params.args, "session");
			// The result goes to the model: what `changed` listed counts as delivered.
			if (result.status === "ok") controller.acknowledgeDelivered(acksOfChangedDetails(result.details));
			return {
				content: [{ type: "text", text: result.message }],
				details: result.details,
				isError: result.status === "error",
			};
		},
	});
}

/** What `/jscpd` needs besides the controller: the triage actions' host parts (see triage-ui.ts). */
export type TriageHost = Omit<TriageUiDeps, "triage" | "root">;

/** Registers `/jscpd`; the overview's dialogs live in `dialogs` (dismissed at session_shutdown). */
export function registerCommand(
	pi: ExtensionAPI,
	controller: JscpdController,
	dialogs: DialogScope,
	host: TriageHost,
): void {
	const overview = createOverviewModel({
		status: () => controller.status(),
		counts: () => controller.triage.counts(),
		dispatch: (command, ctx) => dispatch(controller, ctx, command, []),
	});
	const triage: TriageUiDeps = { ...host, triage: controller.triage, root: () => controller.state.root };
	pi.registerCommand("jscpd", {
		description: `Duplicate-code checks with jscpd (${[...COMMAND_NAMES, ...USER_COMMAND_NAMES].join(", ")})`,
		getArgumentCompletions: (prefix) =>
			findingCompletions(controller.triage, prefix) ?? commandCompletions(prefix),
		handler: async (line, ctx) => {
			if (opensOverview(line, ctx)) return openOverview(overview, ctx, dialogs, triage);
			const { command, args } = parseCommandLine(line);
			const result = isUserCommandName(command)
				? triageCommand(controller.triage, pi, command, args)
				: await dispatch(controller, ctx, command, args);
			notify(ctx, result.message, result.status === "error" ? "error" : "info");
		},
	});
}

/** Registers the findings message renderer. */
export function registerRenderer(pi: ExtensionAPI): void {
	pi.registerMessageRenderer(FINDINGS_MESSAGE, (message, options, theme) => {
		const text =
			typeof message.content === "string"
				? message.content
				: message.content.map((c) => ("text" in c ? c.text : "")).join("\n");
		const [head = "", ...rest] = text.split("\n");
		const body = options.expanded ? rest : rest.slice(0, 6);
		return new Text(
			[theme.fg("warning", head), ...body.map((line) => theme.fg("dim", line))].join("\n"),
			options.outputPad,
			0,
		);
	});
}

/** Help text, exported for docs and tests. */
export { helpText };
