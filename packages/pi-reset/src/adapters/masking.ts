/**
 * Observation masking in the `context` hook: old tool output is replaced by a stub in the request
 * (core/masking.ts decides what and when; the session file keeps everything).
 *
 * Work per request is O(new messages + masked results): the plan is kept between requests and
 * only the messages after the last committed one are read, as long as the request continues the
 * last one (same first message, the same assistant message where the last commit ended, and each
 * masked result where it was). Anything else (a reset opened a new window, /tree, another hook
 * rewrote the list) starts the plan again from this request, once. A stub is built once per
 * result and reused, so its bytes are the same in every request.
 */
import type { ContextEvent, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { walkBackFromLeaf } from "@pi-lifecycle/lifecycle-kit";
import {
	advance,
	contentSize,
	describeCall,
	EMPTY_PLAN,
	type MaskingSettings,
	type MaskPlan,
	maskable,
	observe,
	type PlanMessage,
	stubText,
} from "../core/masking.js";

/** A message as the context hook sees it. */
type AgentMessage = ContextEvent["messages"][number];

/** The request masker of one extension runtime. */
export interface RequestMasker {
	/** Replaces masked results in `messages` (in place); true when it replaced any. */
	apply(messages: AgentMessage[], ctx: ExtensionContext): boolean;
	/** Whether the hook is needed: the window is unknown or holds maskable output. */
	wanted(): boolean;
	/** Notes a message of the current run (`message_end`): a maskable result arms the hook. */
	noted(message: PlanMessage): void;
	/** Forgets the window (a new window, /tree): the next request decides. */
	forget(): void;
	/** Forgets everything (session start: another session's entries and stubs). */
	reset(): void;
}

/** Where the last commit ended, to check the next request continues this one. */
interface Anchor {
	readonly first: string;
	readonly committed: string;
}

function key(message: AgentMessage | undefined): string {
	if (!message) return "";
	const call = message.role === "toolResult" ? message.toolCallId : "";
	return `${message.role}:${message.timestamp}:${call}`;
}

/**
 * Maps tool results (call id and time: some providers reuse a call id in every turn) to the ids of
 * their entries, walking only entries not seen yet.
 */
function createEntryIndex() {
	const byResult = new Map<string, string>();
	const seen = new Set<string>();
	return {
		ref(message: AgentMessage & { role: "toolResult" }, ctx: ExtensionContext): string {
			const resultKey = `${message.toolCallId}:${message.timestamp}`;
			const known = byResult.get(resultKey);
			if (known) return known;
			for (const entry of walkBackFromLeaf(ctx.sessionManager)) {
				if (seen.has(entry.id)) break;
				seen.add(entry.id);
				if (entry.type === "message" && entry.message.role === "toolResult")
					byResult.set(`${entry.message.toolCallId}:${entry.message.timestamp}`, entry.id);
			}
			return byResult.get(resultKey) ?? message.toolCallId;
		},
		clear() {
			byResult.clear();
			seen.clear();
		},
	};
}

/**
 * Names the call of the result at `index`: the nearest assistant message before it that made a
 * call with its id (a reused id names the call of its own turn). Read once per stub.
 */
function callOf(messages: readonly AgentMessage[], index: number): string | undefined {
	const result = messages[index] as AgentMessage & { role: "toolResult" };
	for (let i = index - 1; i >= 0; i--) {
		const message = messages[i] as AgentMessage;
		if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
		for (const block of message.content)
			if (block.type === "toolCall" && block.id === result.toolCallId)
				return describeCall(block.name, block.arguments);
	}
	return undefined;
}

/** A copy of a stub (one text block) to hand to a request. */
function copyStub(stub: AgentMessage): AgentMessage {
	const result = stub as AgentMessage & { role: "toolResult" };
	return { ...result, content: result.content.map((block) => ({ ...block })) };
}

/** Stub per result (call id and time), built once: the same bytes in every request. */
export function createRequestMasker(settings: () => MaskingSettings): RequestMasker {
	let plan: MaskPlan = EMPTY_PLAN;
	let anchor: Anchor | undefined;
	/** The window holds maskable output; undefined until a request or a noted result says. */
	let holdsOutput: boolean | undefined;
	/** Stub per result (call id and time), built once: the same object in every request. */
	const stubs = new Map<string, AgentMessage>();
	const index = createEntryIndex();

	/** The stub of each masked result, in the plan's order (no lookup per request). */
	let applied: AgentMessage[] = [];

	const restart = () => {
		plan = EMPTY_PLAN;
		anchor = undefined;
		applied = [];
	};

	const continues = (messages: readonly AgentMessage[]): boolean => {
		if (!anchor || plan.committed === 0) return false;
		if (key(messages[0]) !== anchor.first || key(messages[plan.committed - 1]) !== anchor.committed)
			return false;
		for (const candidate of plan.masked) {
			const message = messages[candidate.index];
			if (message?.role !== "toolResult" || message.toolCallId !== candidate.toolCallId) return false;
		}
		return true;
	};

	const stubFor = (messages: readonly AgentMessage[], at: number, ctx: ExtensionContext): AgentMessage => {
		const message = messages[at] as AgentMessage & { role: "toolResult" };
		const stubKey = `${message.toolCallId}:${message.timestamp}`;
		const cached = stubs.get(stubKey);
		if (cached) return cached;
		const size = contentSize(message.content);
		const text = stubText({
			call: callOf(messages, at) ?? message.toolName,
			chars: size.chars,
			images: size.images,
			ref: index.ref(message, ctx),
		});
		const stub: AgentMessage = {
			role: "toolResult",
			toolCallId: message.toolCallId,
			toolName: message.toolName,
			content: [{ type: "text", text }],
			isError: false,
			timestamp: message.timestamp,
		};
		stubs.set(stubKey, stub);
		return stub;
	};

	return {
		apply(messages, ctx) {
			const current = settings();
			if (!current.enabled) return false;
			if (!continues(messages)) restart();
			const observed = observe(plan, messages as readonly PlanMessage[]);
			const { plan: next } = advance(observed, current);
			plan = next;
			// Results after the newest answer are not committed yet; they keep the hook armed too,
			// or a window whose last tool output is its only one would never mask it.
			holdsOutput =
				plan.pending.length > 0 ||
				plan.masked.length > 0 ||
				messages.slice(plan.committed).some((message) => maskable(message as PlanMessage));
			if (plan.committed > 0)
				anchor = { first: key(messages[0]), committed: key(messages[plan.committed - 1]) };
			for (let i = applied.length; i < plan.masked.length; i++) {
				const candidate = plan.masked[i] as (typeof plan.masked)[number];
				applied.push(stubFor(messages, candidate.index, ctx));
			}
			// A fresh copy each request: later context hooks may edit the request's messages in place
			// (Pi allows it), and an edit to the cached stub would repeat in every later request.
			for (let i = 0; i < plan.masked.length; i++)
				messages[(plan.masked[i] as (typeof plan.masked)[number]).index] = copyStub(
					applied[i] as AgentMessage,
				);
			return plan.masked.length > 0;
		},
		wanted() {
			return holdsOutput !== false && settings().enabled;
		},
		noted(message) {
			if (holdsOutput === false && maskable(message)) holdsOutput = true;
		},
		forget() {
			restart();
			holdsOutput = undefined;
		},
		reset() {
			restart();
			holdsOutput = undefined;
			stubs.clear();
			index.clear();
		},
	};
}
