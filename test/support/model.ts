/**
 * Helpers for scripted models that react to what they are sent: find the active goal id in the
 * goal contract, read message texts, and count extension messages by marker.
 */
import type { Message } from "@earendil-works/pi-ai";
import { messageText } from "@pi-lifecycle/lifecycle-kit/testing";

/** All texts of a request's non-system messages. */
export function texts(messages: readonly Message[]): string[] {
	return messages.filter((m) => (m.role as string) !== "system").map((m) => messageText(m));
}

/** The goal id of the latest active pi-goal contract revision the model was sent. */
export function activeGoalId(messages: readonly Message[]): string | undefined {
	let id: string | undefined;
	for (const text of texts(messages)) {
		const match = /Goal id: (\S+) \(active\)/.exec(text);
		if (match) id = match[1];
	}
	return id;
}

/** How many of the request's messages contain `needle`. */
export function countContaining(messages: readonly Message[], needle: string): number {
	return texts(messages).filter((text) => text.includes(needle)).length;
}

/** All permutations of a list (load orders). */
export function permutations<T>(items: readonly T[]): T[][] {
	if (items.length <= 1) return [items.slice()];
	return items.flatMap((item, index) =>
		permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]),
	);
}
