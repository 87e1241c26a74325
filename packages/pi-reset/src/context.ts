/**
 * The `context` hook (before every provider request), three jobs, each O(new messages):
 * - confirm a boundary Pi committed since the last request (and announce it);
 * - the first request of a run started after `/reset` while idle sees only the new window: the boot
 *   text (as the compaction summary Pi will project later) and the run's own messages;
 * - the final checkpoint warning, once per window, when the tokens left reach
 *   `reserveTokens + margin`.
 */
import type { AssistantMessage } from "@earendil-works/pi-ai";
import {
	type ContextEvent,
	calculateContextTokens,
	type ExtensionAPI,
	type ExtensionContext,
	estimateTokens,
} from "@earendil-works/pi-coding-agent";
import { confirmProposal, nextRunBoot } from "./boundary.js";
import type { ResetControl } from "./control.js";
import type { NextRun } from "./reducer.js";
import { entriesAfter, projectedMessageCount } from "./session.js";
import { warningText } from "./texts.js";
import { WARNING_MESSAGE } from "./window.js";

/** A message as the context hook sees it. */
type AgentMessage = ContextEvent["messages"][number];

/** Per-runtime knobs. */
export interface ContextOptions {
	/** Pi's effective `compaction.reserveTokens` for the current model. */
	readonly reserveTokens: (ctx: ExtensionContext) => number;
	/** Margin above the reserve at which the warning fires. */
	readonly marginTokens: () => number;
}

function usable(message: AgentMessage, windowStart: number): message is AssistantMessage {
	if (message.role !== "assistant") return false;
	const assistant = message as AssistantMessage;
	if (assistant.stopReason === "aborted" || assistant.stopReason === "error") return false;
	// Usage reported before the window began measured the old window.
	return assistant.timestamp > windowStart && calculateContextTokens(assistant.usage) > 0;
}

/**
 * Tokens in a request: the newest usable assistant usage plus an estimate of what follows it
 * (Pi's own method). Scans back only to that assistant message.
 */
export function contextTokens(messages: readonly AgentMessage[]): number {
	const first = messages[0];
	const windowStart = first?.role === "compactionSummary" ? first.timestamp : Number.NEGATIVE_INFINITY;
	let trailing = 0;
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as AgentMessage;
		if (usable(message, windowStart)) return calculateContextTokens(message.usage) + trailing;
		trailing += estimateTokens(message);
	}
	return trailing;
}

function projectNextRun(messages: AgentMessage[], nextRun: NextRun, ctx: ExtensionContext): AgentMessage[] {
	const count = entriesAfter(ctx.sessionManager, nextRun.baseLeafId).reduce(
		(sum, entry) => sum + projectedMessageCount(entry),
		0,
	);
	const own = count > 0 ? messages.slice(Math.max(0, messages.length - count)) : [];
	const boot: AgentMessage = {
		role: "compactionSummary",
		summary: nextRunBoot(nextRun),
		tokensBefore: 0,
		timestamp: Date.now(),
	};
	return [boot, ...own];
}

/** Registers the context hook. */
export function registerContextHook(
	pi: Pick<ExtensionAPI, "on" | "sendMessage">,
	control: ResetControl,
	options: ContextOptions,
): void {
	pi.on("context", (event, ctx) => {
		if (!control.state.enabled) return undefined;
		if (control.state.proposal && control.state.proposal.kind !== "compaction") confirmProposal(control, ctx);
		const state = control.state;
		if (state.nextRun && !state.proposal)
			return { messages: projectNextRun(event.messages, state.nextRun, ctx) };
		if (state.window.warned || state.request || state.proposal) return undefined;
		const contextWindow = ctx.model?.contextWindow ?? 0;
		if (contextWindow <= 0) return undefined;
		const reserve = options.reserveTokens(ctx);
		const remaining = contextWindow - contextTokens(event.messages);
		const effect = control.dispatch(
			{ type: "usage", remaining, threshold: reserve + options.marginTokens() },
			ctx,
		);
		if (effect.type !== "warn") return undefined;
		const warning = {
			customType: WARNING_MESSAGE,
			content: warningText(effect.window.id, remaining - reserve),
			display: false,
			details: { windowId: effect.window.id },
		};
		// Persisted at the end of this turn (never between a tool call and its result), so later
		// requests of the window and a reload see it; this request gets it right away.
		pi.sendMessage(warning, { triggerTurn: false });
		const now: AgentMessage = { role: "custom", ...warning, timestamp: Date.now() };
		return { messages: [...event.messages, now] };
	});
}
