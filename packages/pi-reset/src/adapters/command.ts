/**
 * `/reset [handoff]`, `/reset status`, `/reset on`, `/reset off`, `/reset help`.
 * Never throws: bad input and refusals are notices.
 */
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import type { LifecycleIdentity } from "@pi-lifecycle/lifecycle-kit";
import { idleResetMayCompact } from "../core/compaction-peers.js";
import { warningMargin } from "../core/meter.js";
import { COMMAND_HELP, type MaskingFacts, statusReport } from "../core/texts.js";
import { confirmCommitted } from "./boundary.js";
import { notify, type ResetControl } from "./control.js";
import { compactNow } from "./idle-reset.js";
import { persistEnabled, restore } from "./lifecycle.js";
import type { ReserveReader } from "./pi-compaction-settings.js";
import { piWillCompact } from "./pi-compacts-window.js";
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
	{
		value: "--fresh",
		label: "--fresh",
		description: "New window without your earlier request and the digest (a handoff may follow)",
	},
] as const;

/** `/reset --fresh [handoff]`: the flag, then an optional handoff. */
const FRESH = /^--fresh(?:\s+|$)([\s\S]*)$/i;

/** What `/reset status` needs besides the state. */
export interface StatusInputs {
	readonly reserve: ReserveReader;
	readonly marginTokens: () => number;
	/** The masking settings in effect. */
	readonly masking?: () => MaskingFacts;
}

function tokensLeft(ctx: ExtensionCommandContext, inputs: StatusInputs): number | undefined {
	const usage = ctx.getContextUsage();
	if (!usage || usage.tokens === null) return undefined;
	const reserve = inputs.reserve.get(ctx);
	const margin = warningMargin(usage.contextWindow, reserve, inputs.marginTokens());
	if (margin === undefined) return undefined;
	return usage.contextWindow - usage.tokens - reserve - margin;
}

/** What a new window carries, as the user is told. */
function carriedText(fresh: boolean, note: boolean, window: string): string {
	if (fresh) return `nothing from ${window} is carried over${note ? " but your note" : ""}`;
	return `it has ${note ? "your note, " : ""}your latest request and what ${window} did`;
}

/** An idle `/reset` that waits for the next message. */
function queuedText(fresh: boolean, note: boolean): string {
	return `Reset queued: your next message starts in a fresh context window; ${carriedText(fresh, note, "this window")}.`;
}

/** An idle `/reset` whose window opened at once. */
function doneText(fresh: boolean, note: boolean): string {
	return `Reset: a fresh context window starts here; ${carriedText(fresh, note, "the previous window")}.`;
}

/** A `/reset` while one is pending: a note or `--fresh` is never dropped (reducer.ts `alreadyPending`). */
function pendingText(handoff: "this" | "next" | undefined, fresh: boolean | undefined): string {
	if (fresh)
		return `A reset is already pending for this window; it now starts fresh${handoff === "this" ? " with your note" : ""}.`;
	if (handoff === "this") return "A reset is already pending for this window; it carries your note.";
	if (handoff === "next") return "A reset is already under way; your note is kept for the reset after it.";
	return "A reset is already pending for this window.";
}

/** Registers `/reset`. */
export function registerResetCommand(
	pi: Pick<ExtensionAPI, "registerCommand" | "appendEntry" | "getSettings">,
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
			const fresh = FRESH.exec(text);
			if (fresh) return request(fresh[1] ?? "", ctx, true);
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
					masking: inputs.masking?.(),
				});
				return notify(ctx, report, "info");
			}
			return request(text, ctx);
		},
	});

	async function request(text: string, ctx: ExtensionCommandContext, fresh = false): Promise<void> {
		const effect = control.dispatch(
			{
				type: "request",
				source: "command",
				handoff: normaliseHandoff(text),
				streaming: !ctx.isIdle(),
				fresh,
			},
			ctx,
		);
		switch (effect.type) {
			case "rejected-off":
				notify(ctx, "pi-reset is off for this session; /reset on turns it back on.", "warning");
				break;
			case "already-pending":
				notify(ctx, pendingText(effect.handoff, effect.fresh), "info");
				break;
			case "arm-boundary":
				notify(ctx, "Reset requested: it happens at the next boundary of the current run.", "info");
				break;
			case "queued-next-run": {
				const note = effect.request.handoff !== undefined;
				// Opened at once when Pi can compact this window (idle-reset.ts) and no other extension
				// answers compactions with a paid summary (reducer.ts), else by the next message.
				const now =
					idleResetMayCompact(control.state) &&
					piWillCompact(pi, ctx) &&
					(await compactNow(ctx)) &&
					control.state.request === undefined;
				notify(ctx, now ? doneText(fresh, note) : queuedText(fresh, note), "info");
				break;
			}
			default:
				break;
		}
	}
}
