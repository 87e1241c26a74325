/**
 * Where the checkpoint warning stands in later requests (pure; only plain message shapes).
 *
 * The warning is appended to the request that gives it, after that request's last message, and
 * the boundary at the end of the turn writes it into the session after the model's answer and its
 * tool results. Sent where the session has it, the next request would repeat the warned one only
 * up to the warning, and the provider's cached prefix would lose that turn. So each later request
 * shows it where it was sent: right after the message it followed (named in its details), before
 * the answer to it.
 */

/** The part of a request message this rule reads. */
export interface PlacedMessage {
	readonly role: string;
	readonly timestamp?: number;
	readonly toolCallId?: string;
	readonly customType?: string;
	readonly details?: unknown;
}

/** Names a request message: role, time and tool call id (results of one batch may share a time). */
export function messageKey(message: PlacedMessage | undefined): string | undefined {
	if (!message || typeof message.timestamp !== "number") return undefined;
	return `${message.role}:${message.timestamp}:${message.toolCallId ?? ""}`;
}

/** Details key naming the message the warning followed when it was sent. */
export const WARNED_AFTER_KEY = "after";

/**
 * Rule warningWhereSent: moves the newest message of `customType` whose details name the message
 * it followed (`details.after`) back to right after that message, when an answer (an assistant
 * message) follows that message; never between a tool call and its result. In place; true when it
 * moved. Scans back only from the end to the warning and from there to the message it followed
 * (the turn written before it).
 */
export function warningWhereSent(messages: PlacedMessage[], customType: string): boolean {
	for (let i = messages.length - 1; i >= 0; i--) {
		const warning = messages[i] as PlacedMessage;
		if (warning.role !== "custom" || warning.customType !== customType) continue;
		const after = (warning.details as Record<string, unknown> | undefined)?.[WARNED_AFTER_KEY];
		if (typeof after !== "string") return false;
		for (let k = i - 1; k >= 0; k--) {
			if (messageKey(messages[k]) !== after) continue;
			if (k === i - 1 || messages[k + 1]?.role !== "assistant") return false;
			messages.splice(i, 1);
			messages.splice(k + 1, 0, warning);
			return true;
		}
		return false;
	}
	return false;
}
