/**
 * The request of a run started after an idle `/reset`, before its window is committed: the boot
 * text, then the run's own messages (and what other extensions' hooks added).
 */
import type { ContextEvent, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { entriesSince, walkBackFromLeaf } from "@pi-lifecycle/lifecycle-kit";
import type { NextRun } from "../core/reducer.js";
import { nextRunBoot } from "./boundary.js";

/** A message as the context hook sees it. */
type AgentMessage = ContextEvent["messages"][number];

/**
 * The first request of a run started after an idle `/reset`: the boot text, then the request's
 * messages from the run's first message on. The run's first message is found by what it is (role
 * and timestamp), never by counting from the end: other extensions' `context` hooks may have
 * appended or inserted messages, and those after it are kept.
 */
export function projectNextRun(
	messages: AgentMessage[],
	nextRun: NextRun,
	ctx: ExtensionContext,
	recallAvailable = true,
): AgentMessage[] {
	const first = entriesSince(ctx.sessionManager, nextRun.baseLeafId).find(
		(entry) => entry.type === "message",
	);
	const start = first?.type === "message" ? runStart(messages, first.message) : messages.length;
	const boot: AgentMessage = {
		role: "compactionSummary",
		summary: nextRunBoot(nextRun, recallAvailable),
		tokensBefore: 0,
		timestamp: Date.now(),
	};
	// Before the run's first message: the old window, and whatever other hooks put there (kept).
	const old = oldWindowStamps(ctx, nextRun);
	const foreign = messages.slice(0, start).filter((message) => !old.has(message.timestamp));
	return [boot, ...foreign, ...messages.slice(start)];
}

const oldStamps = new WeakMap<NextRun, Set<number>>();

/**
 * Timestamps of the messages Pi builds from the branch before the run (the old window): a
 * message before the run's first one without such a stamp was added by another extension's hook.
 * Walked once per run (the projection lasts until its first boundary).
 */
function oldWindowStamps(ctx: ExtensionContext, nextRun: NextRun): Set<number> {
	const cached = oldStamps.get(nextRun);
	if (cached) return cached;
	const stamps = new Set<number>();
	if (nextRun.baseLeafId !== null) {
		for (const entry of walkBackFromLeaf(ctx.sessionManager, { from: nextRun.baseLeafId })) {
			stamps.add(entry.type === "message" ? entry.message.timestamp : new Date(entry.timestamp).getTime());
		}
	}
	oldStamps.set(nextRun, stamps);
	return stamps;
}

/** Index of the run's first message in the request (newest match), or where the run must start. */
function runStart(messages: readonly AgentMessage[], first: AgentMessage): number {
	for (let i = messages.length - 1; i >= 0; i--) {
		const message = messages[i] as AgentMessage;
		if (message.role === first.role && message.timestamp === first.timestamp) return i;
	}
	// Not found (another hook rewrote it): keep what is at least as new as the run's first message.
	const index = messages.findIndex((message) => message.timestamp >= first.timestamp);
	return index < 0 ? messages.length : index;
}
