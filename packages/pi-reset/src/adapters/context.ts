/**
 * The `context` hook (before every provider request), subscribed only while needed (Pi copies and
 * compares the message list per `context` handler on every request), so the hook is armed
 * - while a run started after `/reset` while idle has not committed its window yet: its requests
 *   see only the new window (the boot text, as the compaction summary Pi will project later, and
 *   the run's own messages);
 * - while the window is unmeasured (new session or window) or its token estimate (meter.ts, kept at
 *   `message_end`/`turn_start`) nears the checkpoint warning (once per window, at `reserveTokens + margin`).
 */
import type { AssistantMessage } from "@earendil-works/pi-ai";
import {
	type ContextEvent,
	type CustomMessageEntry,
	calculateContextTokens,
	type ExtensionAPI,
	type ExtensionContext,
	estimateTokens,
} from "@earendil-works/pi-coding-agent";
import {
	type ArmedSubscription,
	createArmedSubscription,
	walkBackFromLeaf,
} from "@pi-lifecycle/lifecycle-kit";
import {
	armingPoint,
	createWindowMeter,
	nearArming,
	type WindowMeter,
	warningMargin,
} from "../core/meter.js";
import type { ResetState } from "../core/reducer.js";
import { messageKey, warningWhereSent } from "../core/warning-place.js";
import { readResetDetails, WARNING_MESSAGE } from "../core/window.js";
import { confirmProposal, warningMessage } from "./boundary.js";
import { followDraftCompaction } from "./compaction.js";
import type { ResetControl } from "./control.js";
import type { RequestMasker } from "./masking.js";
import { projectNextRun } from "./next-run-projection.js";

/** A message as the context hook sees it. */
type AgentMessage = ContextEvent["messages"][number];

/** Per-runtime knobs. */
export interface ContextOptions {
	/** Pi's effective `compaction.reserveTokens` for the current model. */
	readonly reserveTokens: (ctx: ExtensionContext) => number;
	/** Margin above the reserve at which the warning fires. */
	readonly marginTokens: () => number;
	/** Whether the model has `new_context` now (another extension may have narrowed the tools). */
	readonly toolActive: () => boolean;
	/** Whether the model has `context_recall` now (the boot text offers it only then). */
	readonly recallActive?: () => boolean;
	/** Masks old tool output in each request (masking.ts). */
	readonly masker: RequestMasker;
	/** Told the window's estimate after every message (threshold-reset.ts `createThresholdWatch`). */
	readonly measured?: (contextTokens: number | undefined, ctx: ExtensionContext) => void;
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
	for (const entry of walkBackFromLeaf(sessionManager)) {
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

function warn(
	event: ContextEvent,
	ctx: ExtensionContext,
	control: ResetControl,
	reserve: number,
	threshold: number | undefined,
): { messages: AgentMessage[] } | undefined {
	const state = control.state;
	if (state.window.warned || state.request || state.proposal || threshold === undefined) return undefined;
	const contextWindow = ctx.model?.contextWindow ?? 0;
	if (contextWindow <= 0) return undefined;
	const usage = windowUsage(ctx.sessionManager);
	// Never before the window's first answer: the model has done nothing there to hand over, and a
	// window that starts past the warning point (a huge prompt) would be reset into the same request.
	if (!usage) return undefined;
	const remaining = contextWindow - contextTokens(event.messages, usage);
	const after = messageKey(event.messages.at(-1));
	const effect = control.dispatch({ type: "usage", remaining, threshold, reserve, after }, ctx);
	if (effect.type !== "warn") return undefined;
	// This request gets the warning now; the boundary at the end of this turn persists it as part
	// of the closing window (before any reset), so later requests and a reload see it once.
	const now: AgentMessage = { role: "custom", ...warningMessage(effect.warning), timestamp: Date.now() };
	return { messages: [...event.messages, now] };
}

/** Most entries a `turn_start` sync walks back over (boundary drafts of one turn). */
const DRAFT_SYNC_LIMIT = 64;

/**
 * Counts what Pi appended at a boundary without a `message_end` (other owners' custom-message
 * drafts): the entries after the newest message, back to where the last sync stopped. A foreign
 * compaction there leaves the window unmeasured, and is returned when it is not pi-reset's. O(new
 * entries); O(1) in the common case where the leaf is the message the last `message_end` appended
 * (nothing was added at the boundary).
 */
function syncDrafts(meter: WindowMeter, ctx: ExtensionContext): string | undefined {
	const sessionManager = ctx.sessionManager;
	const leaf = sessionManager.getLeafId();
	const previous = meter.syncedLeaf;
	if (leaf === previous) return undefined;
	let foreign: string | undefined;
	if (leaf !== null && sessionManager.getEntry(leaf)?.type !== "message") {
		for (const entry of walkBackFromLeaf(sessionManager, { limit: DRAFT_SYNC_LIMIT })) {
			if (entry.id === previous || entry.type === "message") break;
			if (entry.type === "compaction") {
				meter.reset(meter.key);
				if (!readResetDetails(entry.details)) foreign = entry.id;
				break;
			}
			if (entry.type === "custom_message") meter.added(estimateTokens(customMessage(entry)));
		}
	}
	meter.syncedLeaf = leaf;
	return foreign;
}

function customMessage(entry: CustomMessageEntry): AgentMessage {
	return {
		role: "custom",
		customType: entry.customType,
		content: entry.content,
		display: entry.display,
		details: entry.details,
		timestamp: 0,
	} as AgentMessage;
}

/** The context hook and the meter that arms it. */
export interface ContextHook {
	/** The armed subscription of the `context` handler (for tests and diagnostics). */
	readonly subscription: ArmedSubscription;
}

/** Registers the meter's handlers and the context hook, armed only while needed. */
export function registerContextHook(
	pi: Pick<ExtensionAPI, "on">,
	control: ResetControl,
	options: ContextOptions,
): ContextHook {
	const meter = createWindowMeter(calculateContextTokens);
	// Refreshed once per run (and at session start): the reserve + margin and where arming starts.
	let threshold: number | undefined;
	let armAt: number | undefined;
	const refresh = (ctx: ExtensionContext) => {
		const contextWindow = ctx.model?.contextWindow ?? 0;
		const reserve = options.reserveTokens(ctx);
		const margin = warningMargin(contextWindow, reserve, options.marginTokens());
		threshold = margin === undefined ? undefined : reserve + margin;
		armAt = threshold === undefined ? undefined : armingPoint(contextWindow, threshold);
	};
	const subscription = createArmedSubscription(() =>
		pi.on("context", (event, ctx) => {
			if (!control.state.enabled) return undefined;
			const shaped = shape(event, ctx);
			// Masking last, on what is sent: the projected window or the request with its warning.
			const messages = shaped?.messages ?? event.messages;
			const placed = control.state.window.warned && warningWhereSent(messages, WARNING_MESSAGE);
			return options.masker.apply(messages, ctx) || shaped || placed ? { messages } : undefined;
		}),
	);
	/** The window the request shows: the next run's projection, or the request with its warning. */
	const shape = (event: ContextEvent, ctx: ExtensionContext): { messages: AgentMessage[] } | undefined => {
		if (control.state.proposal && control.state.proposal.kind !== "compaction") confirmProposal(control, ctx);
		const state = control.state;
		if (state.nextRun && !state.proposal)
			return {
				messages: projectNextRun(event.messages, state.nextRun, ctx, options.recallActive?.() !== false),
			};
		// The warning sends the model to new_context: never when it cannot call it (Pi's own
		// threshold reset still comes, with the digest). The window stays unwarned for later.
		// Armed for masking far from the warning point: the exact check runs only where the
		// warning alone would have armed the hook (the estimate near the point, or unmeasured).
		if (!nearArming(meter.tokens(), armAt) || !options.toolActive()) return undefined;
		return warn(event, ctx, control, options.reserveTokens(ctx), threshold);
	};

	// What the last evaluation saw: hot handlers re-evaluate only when one of them moved.
	let seenState: ResetState | undefined;
	let seenNear = false;
	let seenMasking = false;
	/** Keeps the meter on the current window and arms or disarms the hook. */
	const evaluate = () => {
		if (followWindow(meter, control)) options.masker.forget();
		const state = control.state;
		const near = nearArming(meter.tokens(), armAt);
		seenState = state;
		seenNear = near;
		seenMasking = options.masker.wanted();
		const warnable = !state.window.warned && !state.request && !state.proposal && !state.nextRun;
		// A warned window keeps the hook: later requests show the warning where it was sent.
		const placing = state.window.warned;
		if (state.enabled && (state.nextRun !== undefined || (warnable && near) || seenMasking || placing))
			subscription.arm();
		else subscription.disarm();
	};
	/** Re-evaluates only if the state moved, the estimate crossed the arming point or masking changed. */
	const maybeEvaluate = () => {
		if (
			control.state !== seenState ||
			nearArming(meter.tokens(), armAt) !== seenNear ||
			options.masker.wanted() !== seenMasking
		)
			evaluate();
	};
	const refreshAndEvaluate = (ctx: ExtensionContext) => {
		refresh(ctx);
		evaluate();
	};

	pi.on("message_end", (event, ctx) => {
		if (followWindow(meter, control)) options.masker.forget();
		const message = event.message;
		options.masker.noted(message);
		if (message.role === "assistant") {
			if (message.stopReason !== "aborted" && message.stopReason !== "error")
				meter.answered(message, () => estimateTokens(message));
			else meter.added(estimateTokens(message));
		} else if (message.role !== "system") {
			meter.added(estimateTokens(message));
		}
		options.measured?.(meter.tokens(), ctx);
		maybeEvaluate();
	});
	// pi-reset's only turn_start handler: confirm (and announce) a committed boundary first, before
	// any extension's `context` hook builds the next request, then count the boundary's drafts.
	pi.on("turn_start", (_event, ctx) => {
		const proposal = control.state.proposal;
		if (proposal && proposal.kind !== "compaction") confirmProposal(control, ctx);
		if (followWindow(meter, control)) options.masker.forget();
		followDraftCompaction(control, syncDrafts(meter, ctx), ctx);
		maybeEvaluate();
	});
	pi.on("session_start", (_event, ctx) => {
		options.masker.reset();
		refreshAndEvaluate(ctx);
	});
	pi.on("session_tree", (_event, ctx) => {
		options.masker.forget();
		refreshAndEvaluate(ctx);
	});
	pi.on("session_compact", (_event, ctx) => {
		options.masker.forget();
		refreshAndEvaluate(ctx);
	});
	pi.on("before_agent_start", (_event, ctx) => {
		// Drafts of the last run's final boundary are in the branch before this run's first turn.
		followDraftCompaction(control, syncDrafts(meter, ctx), ctx);
		refreshAndEvaluate(ctx);
	});
	return { subscription };
}

/** Starts an unmeasured estimate when the window or the lifecycle generation moved (then true). */
function followWindow(meter: WindowMeter, control: ResetControl): boolean {
	const epoch = control.windowEpoch;
	if (meter.key === epoch) return false;
	meter.reset(epoch);
	return true;
}
