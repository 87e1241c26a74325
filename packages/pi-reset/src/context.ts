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
import { confirmProposal, nextRunBoot, warningMessage } from "./boundary.js";
import type { ResetControl } from "./control.js";
import type { NextRun } from "./reducer.js";
import { entriesAfter, projectedMessageCount, walkBack } from "./session.js";

/** A message as the context hook sees it. */
type AgentMessage = ContextEvent["messages"][number];

/** Per-runtime knobs. */
export interface ContextOptions {
	/** Pi's effective `compaction.reserveTokens` for the current model. */
	readonly reserveTokens: (ctx: ExtensionContext) => number;
	/** Margin above the reserve at which the warning fires. */
	readonly marginTokens: () => number;
}

function usable(message: AgentMessage): message is AssistantMessage {
	if (message.role !== "assistant") return false;
	const assistant = message as AssistantMessage;
	if (assistant.stopReason === "aborted" || assistant.stopReason === "error") return false;
	return calculateContextTokens(assistant.usage) > 0;
}

/**
 * The newest assistant usage that measured the current window: walking back from the leaf, an
 * assistant entry reached before any compaction (Pi's own rule: usage reported before a compaction
 * measured the old window). O(entries since that response).
 */
export function windowUsage(
	sessionManager: ExtensionContext["sessionManager"],
): AssistantMessage | undefined {
	for (const entry of walkBack(sessionManager)) {
		if (entry.type === "compaction") return undefined;
		if (entry.type === "message" && usable(entry.message)) return entry.message;
	}
	return undefined;
}

/**
 * Tokens in a request: the window's newest usage plus an estimate of the messages after it, or an
 * estimate of every message when the window has no usage yet. Scans back only to that response.
 */
export function contextTokens(
	messages: readonly AgentMessage[],
	usage: AssistantMessage | undefined,
): number {
	let trailing = 0;
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as AgentMessage;
		if (usage && message.role === "assistant" && message.timestamp === usage.timestamp) {
			return calculateContextTokens(usage.usage) + trailing;
		}
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
	pi: Pick<ExtensionAPI, "on">,
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
		const remaining = contextWindow - contextTokens(event.messages, windowUsage(ctx.sessionManager));
		const effect = control.dispatch(
			{ type: "usage", remaining, threshold: reserve + options.marginTokens(), reserve },
			ctx,
		);
		if (effect.type !== "warn") return undefined;
		// This request gets the warning now; the boundary at the end of this turn persists it as part
		// of the closing window (before any reset), so later requests and a reload see it once.
		const now: AgentMessage = { role: "custom", ...warningMessage(effect.warning), timestamp: Date.now() };
		return { messages: [...event.messages, now] };
	});
}
