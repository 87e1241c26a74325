/**
 * `/reset [handoff]`, `/reset status`, `/reset on`, `/reset off`, `/reset help`.
 * Never throws: bad input and refusals are notices.
 */
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { LifecycleIdentity } from "@pi-lifecycle/lifecycle-kit";
import { warningMargin } from "../core/meter.js";
import { COMMAND_HELP, statusReport } from "../core/texts.js";
import { confirmCommitted } from "./boundary.js";
import { notify, type ResetControl } from "./control.js";
import { persistEnabled, restore } from "./lifecycle.js";
import type { ReserveReader } from "./settings.js";
import { normaliseHandoff } from "./tool.js";

/** Command name (DESIGN.md §3). */
export const COMMAND_NAME = "reset";

const SUBCOMMANDS = [
	{
		value: "status",
		label: "status",
		description: "Window id, tokens left before the checkpoint warning, resets",
	},
	{ value: "on", label: "on", description: "Turn pi-reset on for this session" },
	{
		value: "off",
		label: "off",
		description: "Turn pi-reset off for this session (Pi's own compaction applies)",
	},
	{ value: "help", label: "help", description: "Show /reset usage" },
] as const;

/** What `/reset status` needs besides the state. */
export interface StatusInputs {
	readonly reserve: ReserveReader;
	readonly marginTokens: () => number;
}

function tokensLeft(ctx: ExtensionCommandContext, inputs: StatusInputs): number | undefined {
	const usage = ctx.getContextUsage();
	if (!usage || usage.tokens === null) return undefined;
	const reserve = inputs.reserve.get(ctx);
	const margin = warningMargin(usage.contextWindow, reserve, inputs.marginTokens());
	if (margin === undefined) return undefined;
	return usage.contextWindow - usage.tokens - reserve - margin;
}

/** Registers `/reset`. */
export function registerResetCommand(
	pi: Pick<ExtensionAPI, "registerCommand" | "appendEntry">,
	control: ResetControl,
	identity: LifecycleIdentity,
	inputs: StatusInputs,
): void {
	const toggle = (enabled: boolean, ctx: ExtensionCommandContext) => {
		if (control.state.enabled === enabled) {
			notify(ctx, `pi-reset is already ${enabled ? "on" : "off"} for this session.`, "info");
			return;
		}
		// A boundary reset Pi already committed is confirmed (and announced) before off clears it.
		if (!enabled) confirmCommitted(control, ctx);
		persistEnabled(pi, enabled, ctx);
		identity.invalidate();
		if (enabled) restore(control, identity, ctx, true);
		else control.dispatch({ type: "toggle", enabled: false, generation: identity.snapshot.generation }, ctx);
		notify(
			ctx,
			enabled
				? "pi-reset is on: compactions become instant resets and new_context works."
				: "pi-reset is off for this session: Pi's own compaction applies and no reset is pending.",
			"info",
		);
	};

	pi.registerCommand(COMMAND_NAME, {
		description: "Start a fresh context window with an optional handoff; status, on, off",
		getArgumentCompletions: (prefix) => {
			const matches = SUBCOMMANDS.filter((item) => item.value.startsWith(prefix.trim()));
			return matches.length > 0 ? matches.map((item) => ({ ...item })) : null;
		},
		handler: async (args, ctx) => {
			const text = args.trim();
			const word = text.toLowerCase();
			// Only a bare subcommand word is a subcommand: `/reset status of the db is in notes.md` is a
			// handoff, and `/reset -- <handoff>` takes even a bare word (`/reset -- off`) as one.
			const literal = /^--(?:\s+|$)([\s\S]*)$/.exec(text);
			if (literal) return request(literal[1] ?? "", ctx);
			if (word === "help") return notify(ctx, COMMAND_HELP, "info");
			if (word === "on" || word === "off") return toggle(word === "on", ctx);
			if (word === "status") {
				const state = control.state;
				const report = statusReport({
					enabled: state.enabled,
					windowId: state.window.id,
					resets: state.window.resets,
					pending: state.request !== undefined || state.nextRun !== undefined,
					tokensLeft: tokensLeft(ctx, inputs),
					warned: state.window.warned,
				});
				return notify(ctx, report, "info");
			}
			return request(text, ctx);
		},
	});

	function request(text: string, ctx: ExtensionCommandContext): void {
		const effect = control.dispatch(
			{ type: "request", source: "command", handoff: normaliseHandoff(text), streaming: !ctx.isIdle() },
			ctx,
		);
		switch (effect.type) {
			case "rejected-off":
				notify(ctx, "pi-reset is off for this session; /reset on turns it back on.", "warning");
				break;
			case "already-pending":
				notify(ctx, "A reset is already pending for this window.", "info");
				break;
			case "arm-boundary":
				notify(ctx, "Reset requested: it happens at the next boundary of the current run.", "info");
				break;
			case "queued-next-run":
				notify(ctx, "Reset queued: your next message starts in a fresh context window.", "info");
				break;
			default:
				break;
		}
	}
}
