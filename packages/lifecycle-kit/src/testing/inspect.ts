/** Helpers for reading what the model saw. */
import type { Message } from "@earendil-works/pi-ai";
import type { RecordedRequest } from "./scripted-session.js";

/** The plain text of one message (text blocks joined; tool calls as `[tool name]`). */
export function messageText(message: Message): string {
	const content = (message as { content?: unknown }).content;
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.map((block: { type?: string; text?: string; name?: string }) => {
			if (block.type === "text") return block.text ?? "";
			if (block.type === "toolCall") return `[tool ${block.name}]`;
			return "";
		})
		.join("\n");
}

/** The texts of one request's non-system messages, as `role: text` lines. */
export function requestTexts(request: RecordedRequest): string[] {
	return request.messages
		.filter((message) => (message.role as string) !== "system")
		.map((message) => `${message.role}: ${messageText(message)}`);
}
