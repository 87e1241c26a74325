/**
 * Waiting for runs an extension starts by itself (an idle wake-up from a timer, a deferred send from
 * `agent_settled`), and reading what extensions wrote to the session. `prompt()` already waits for
 * the runs it causes; these cover the rest without sleeps or polling.
 */
import type { AgentSession, CustomEntry, CustomMessageEntry } from "@earendil-works/pi-coding-agent";

/** Options for the waits. */
export interface WaitOptions {
	/** Fail after this many milliseconds (default 10 000); 0 waits without a limit (e.g. under fake timers). */
	readonly timeoutMs?: number;
}

/** How a waited-for run ended. */
export interface SettledRun {
	/** `agent_settled.aborted` of that run. */
	readonly aborted: boolean;
}

/** A custom message entry with its text content joined. */
export type CustomMessageRecord = CustomMessageEntry & { readonly text: string };

const DEFAULT_TIMEOUT_MS = 10_000;

function withTimeout<T>(what: string, options: WaitOptions, work: Promise<T>): Promise<T> {
	const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
	if (timeoutMs <= 0) return work;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(
			() => reject(new Error(`${what}: nothing happened within ${timeoutMs} ms`)),
			timeoutMs,
		);
	});
	return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Resolves when the next run settles (`agent_settled`): the run under way, or else the next one to
 * start. Call it before the action that makes the extension start the run (or right after, while
 * the run cannot have settled yet). Rejects after `timeoutMs` when no run settles.
 */
export function waitForRun(session: AgentSession, options: WaitOptions = {}): Promise<SettledRun> {
	let unsubscribe: (() => void) | undefined;
	const settled = new Promise<SettledRun>((resolve) => {
		unsubscribe = session.subscribe((event) => {
			if (event.type === "agent_settled") resolve({ aborted: event.aborted });
		});
	});
	return withTimeout("waitForRun", options, settled).finally(() => unsubscribe?.());
}

/**
 * Resolves once the session is idle with nothing queued, including runs that `agent_settled`
 * handlers requested (Pi starts those after the handlers return). Resolves at once when that
 * already holds. A run that a timer starts later is not covered: use {@link waitForRun} for it.
 */
export function waitForIdle(session: AgentSession, options: WaitOptions = {}): Promise<void> {
	let stopped = false;
	const idle = (async () => {
		for (;;) {
			await session.waitForIdle();
			// One macrotask turn: a send deferred by agent_settled starts its run in between.
			await new Promise((resolve) => setImmediate(resolve));
			if (stopped || (session.isIdle && session.pendingMessageCount === 0)) return;
		}
	})();
	return withTimeout("waitForIdle", options, idle).finally(() => {
		stopped = true;
	});
}

function contentText(content: CustomMessageEntry["content"]): string {
	if (typeof content === "string") return content;
	return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The custom messages (`pi.sendMessage`) on the current branch, oldest first, optionally of one type. */
export function customMessages(session: AgentSession, customType?: string): CustomMessageRecord[] {
	return session.sessionManager
		.getBranch()
		.filter(
			(entry): entry is CustomMessageEntry =>
				entry.type === "custom_message" && (customType === undefined || entry.customType === customType),
		)
		.map((entry) => ({ ...entry, text: contentText(entry.content) }));
}

/** The custom entries (`pi.appendEntry`) on the current branch, oldest first, optionally of one type. */
export function customEntries<T = unknown>(session: AgentSession, customType?: string): CustomEntry<T>[] {
	return session.sessionManager
		.getBranch()
		.filter(
			(entry): entry is CustomEntry<T> =>
				entry.type === "custom" && (customType === undefined || entry.customType === customType),
		);
}
