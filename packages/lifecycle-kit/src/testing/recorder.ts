/**
 * The recorder extension: subscribes to every extension event Pi emits and keeps a compact,
 * assertion-friendly record. It never changes an outcome, except that it can rewrite the usage
 * of assistant messages at message_end when a test asks it to.
 */
import type { AssistantMessage, Usage } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent";

/** One recorded extension event. */
export interface RecordedEvent {
	/** Pi's event type, e.g. `agent_settled`. */
	readonly type: string;
	/** 0-based position among all recorded events. */
	readonly seq: number;
	/** Small, event-specific facts (reason, outcome, role, toolName, …). */
	readonly info: Readonly<Record<string, unknown>>;
	/** The event object Pi passed (for deeper assertions). */
	readonly event: unknown;
}

/** Shared mutable sink between the harness and its recorder extension. */
export interface RecorderSink {
	events: RecordedEvent[];
	usage: Partial<Usage> | ((message: AssistantMessage) => Partial<Usage> | undefined) | undefined;
}

/** Every extension event the recorder subscribes to. */
export const RECORDED_EVENTS = [
	"session_start",
	"session_shutdown",
	"session_before_compact",
	"session_compact",
	"session_compact_failed",
	"session_before_tree",
	"session_tree",
	"input",
	"before_agent_start",
	"agent_start",
	"agent_end",
	"turn_start",
	"turn_end",
	"agent_before_settle",
	"agent_settled",
	"message_start",
	"message_end",
	"tool_call",
	"tool_result",
	"tool_execution_start",
	"tool_execution_end",
	"context",
] as const;

type AnyEvent = Record<string, unknown> & { type?: string };

function describe(type: string, event: AnyEvent): Record<string, unknown> {
	switch (type) {
		case "session_start":
		case "session_shutdown":
			return { reason: event.reason };
		case "session_before_compact":
			return { reason: event.reason, willRetry: event.willRetry };
		case "session_compact":
			return { reason: event.reason, willRetry: event.willRetry, fromExtension: event.fromExtension };
		case "session_compact_failed":
			return {
				reason: event.reason,
				aborted: event.aborted,
				willRetry: event.willRetry,
				errorMessage: event.errorMessage,
			};
		case "input":
			return { text: event.text, source: event.source };
		case "before_agent_start":
			return { messageType: event.messageType };
		case "turn_end":
		case "agent_before_settle": {
			const entries = (event.entries as { type: string; customType?: string }[] | undefined) ?? [];
			return {
				outcome: event.outcome,
				continue: event.continue,
				turnIndex: event.turnIndex,
				entries: entries.map((entry) =>
					entry.customType ? `${entry.type}:${entry.customType}` : entry.type,
				),
			};
		}
		case "agent_settled":
			return { aborted: event.aborted };
		case "message_start":
		case "message_end": {
			const message = event.message as
				| { role?: string; customType?: string; stopReason?: string }
				| undefined;
			return { role: message?.role, customType: message?.customType, stopReason: message?.stopReason };
		}
		case "tool_call":
		case "tool_result":
		case "tool_execution_start":
		case "tool_execution_end":
			return { toolName: event.toolName, toolCallId: event.toolCallId, isError: event.isError };
		default:
			return {};
	}
}

/** Builds the recorder's factory over a sink. */
export function recorderExtension(sink: RecorderSink): ExtensionFactory {
	return (pi: ExtensionAPI) => {
		for (const type of RECORDED_EVENTS) {
			// biome-ignore lint/suspicious/noExplicitAny: one generic handler for every event type.
			(pi.on as any)(type, (event: AnyEvent) => {
				sink.events.push({ type, seq: sink.events.length, info: describe(type, event), event });
				if (type === "message_end" && sink.usage) {
					const message = event.message as AssistantMessage | undefined;
					if (message?.role !== "assistant") return undefined;
					const patch = typeof sink.usage === "function" ? sink.usage(message) : sink.usage;
					if (!patch) return undefined;
					return { message: { ...message, usage: { ...message.usage, ...patch } } };
				}
				return undefined;
			});
		}
	};
}
