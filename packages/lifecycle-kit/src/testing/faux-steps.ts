/**
 * Builders for scripted model responses. Each returns a pi-ai faux step; the harness wraps every
 * step so the request that consumed it is recorded.
 */
import {
	type AssistantMessage,
	type FauxResponseStep,
	fauxAssistantMessage,
	fauxText,
	fauxToolCall,
} from "@earendil-works/pi-ai";

let toolCallCounter = 0;

/** A plain assistant answer that ends the turn (`stopReason: "stop"`). */
export function reply(text: string): AssistantMessage {
	return fauxAssistantMessage(fauxText(text));
}

/** One tool call, with optional leading text. The id is unique unless given. */
export interface ToolCallSpec {
	/** Tool name as registered with Pi. */
	name: string;
	/** Arguments the model passes to the tool. */
	args?: Record<string, unknown>;
	/** Tool call id; defaults to a unique `call_<n>`. */
	id?: string;
}

/** An assistant message that calls one or more tools in one batch (`stopReason: "toolUse"`). */
export function toolCalls(calls: readonly ToolCallSpec[], text?: string): AssistantMessage {
	const blocks = calls.map((call) =>
		fauxToolCall(call.name, (call.args ?? {}) as Parameters<typeof fauxToolCall>[1], {
			id: call.id ?? `call_${++toolCallCounter}`,
		}),
	);
	return fauxAssistantMessage(text === undefined ? blocks : [fauxText(text), ...blocks], {
		stopReason: "toolUse",
	});
}

/** Shorthand for a single tool call. */
export function toolCall(name: string, args: Record<string, unknown> = {}, text?: string): AssistantMessage {
	return toolCalls([{ name, args }], text);
}

/** A provider error. `"503 … overloaded"` is retryable; `"insufficient_quota"` is not. */
export function providerError(errorMessage: string): AssistantMessage {
	return fauxAssistantMessage([], { stopReason: "error", errorMessage });
}

/** A retryable provider error as Pi's classifier sees it. */
export function retryableError(): AssistantMessage {
	return providerError("503 Service Unavailable: upstream overloaded");
}

/** A context-overflow error that Pi recovers from by compacting and retrying once. */
export function overflowError(tokens = 5000, maximum = 4000): AssistantMessage {
	return providerError(`prompt is too long: ${tokens} tokens > ${maximum} maximum`);
}

/** A response cut off by the output limit (`stopReason: "length"`). */
export function lengthStop(text = "partial answer"): AssistantMessage {
	return fauxAssistantMessage(fauxText(text), { stopReason: "length" });
}

/** A step computed from the request the model received (see pi-ai's faux provider). */
export type DynamicStep = Extract<FauxResponseStep, (...args: never[]) => unknown>;
