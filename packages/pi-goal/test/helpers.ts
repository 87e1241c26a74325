/** Test helpers for pi-goal scripted sessions. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import {
	type DynamicStep,
	messageText,
	type RecordedRequest,
	type ScriptedSession,
	toolCall,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { isOwnStateData } from "../src/core/ownership.js";
import { CONTINUATION_MESSAGE, CONTRACT_MESSAGE, STATE_ENTRY } from "../src/core/types.js";
import { createPiGoal, type PiGoalOptions } from "../src/index.js";

/** A fresh agent dir with an optional pi-goal settings file. */
export function agentDirWith(settings?: unknown): string {
	const dir = mkdtempSync(join(tmpdir(), "pi-goal-test-"));
	if (settings !== undefined) {
		mkdirSync(join(dir, "pi-lifecycle"), { recursive: true });
		writeFileSync(
			join(dir, "pi-lifecycle", "pi-goal.json"),
			typeof settings === "string" ? settings : JSON.stringify(settings),
		);
	}
	return dir;
}

/** The goal extension with an isolated settings dir. */
export function goalExtension(options: PiGoalOptions & { settings?: unknown } = {}): {
	name: string;
	factory: ExtensionFactory;
} {
	const agentDir = options.agentDir ?? agentDirWith(options.settings);
	return { name: "pi-goal", factory: createPiGoal({ ...options, agentDir }) };
}

/** The latest active goal id announced by a contract in the request messages. */
export function goalIdIn(messages: readonly Message[]): string {
	let id = "";
	for (const message of messages) {
		const match = /Goal id: (g-[0-9a-f]+) \(active\)/.exec(messageText(message));
		if (match?.[1]) id = match[1];
	}
	return id;
}

/** A step that calls goal_complete with the goal id the model sees. */
export function completeGoal(summary = "All requirements met; tests pass."): DynamicStep {
	return (context) =>
		toolCall("goal_complete", {
			goal_id: goalIdIn(context.messages as Message[]),
			summary,
		}) as ReturnType<DynamicStep>;
}

/**
 * A step that does a little real tool work (`bash true`) and calls goal_complete in the same batch:
 * the completion guard asks about a goal_complete before any tool work in the goal.
 */
export function completeGoalAfterWork(summary = "All requirements met; tests pass."): DynamicStep {
	return (context) =>
		toolCalls([
			{ name: "bash", args: { command: "true" } },
			{ name: "goal_complete", args: { goal_id: goalIdIn(context.messages as Message[]), summary } },
		]) as ReturnType<DynamicStep>;
}

/** A step that calls a goal tool with the visible goal id. */
export function goalTool(name: string, args: Record<string, unknown>): DynamicStep {
	return (context) =>
		toolCall(name, { goal_id: goalIdIn(context.messages as Message[]), ...args }) as ReturnType<DynamicStep>;
}

/** Custom messages of a type on the current branch. */
export function customMessages(
	harness: ScriptedSession,
	customType: string,
): { details: unknown; content: unknown }[] {
	return harness.session.sessionManager
		.getBranch()
		.filter((entry) => entry.type === "custom_message" && entry.customType === customType)
		.map((entry) => entry as unknown as { details: unknown; content: unknown });
}

/** Continuation prompts (not kickoff/resume) on the branch. */
export function continuations(harness: ScriptedSession) {
	return customMessages(harness, CONTINUATION_MESSAGE).filter(
		(message) =>
			(message.details as { kind?: string }).kind !== "kickoff" &&
			(message.details as { kind?: string }).kind !== "resume",
	);
}

/** Contract revisions on the branch. */
export function contracts(harness: ScriptedSession) {
	return customMessages(harness, CONTRACT_MESSAGE);
}

/** The last persisted goal state on the branch. */
export function lastState(
	harness: ScriptedSession,
): { goal: Record<string, unknown> | null; revision: number } | undefined {
	const entries = harness.session.sessionManager
		.getBranch()
		.filter(
			(entry) =>
				entry.type === "custom" &&
				entry.customType === STATE_ENTRY &&
				isOwnStateData((entry as { data?: unknown }).data),
		);
	const data = (entries.at(-1) as { data?: { state?: unknown } } | undefined)?.data?.state;
	return data as { goal: Record<string, unknown> | null; revision: number } | undefined;
}

/** How many continuation prompts one request carries. */
export function continuationTexts(request: RecordedRequest): number {
	return request.messages.filter((message) => messageText(message).includes("Continue working on goal"))
		.length;
}

/** Whether a request carries the active contract for some goal. */
export function hasActiveContract(request: RecordedRequest): boolean {
	return goalIdIn(request.messages) !== "";
}

/** Waits until Pi is idle and no goal wake is about to start (flushSoon runs on setImmediate). */
export async function settle(harness: ScriptedSession): Promise<void> {
	for (let i = 0; i < 5; i++) {
		await harness.session.waitForIdle();
		await new Promise((resolve) => setImmediate(resolve));
		await new Promise((resolve) => setImmediate(resolve));
	}
	await harness.session.waitForIdle();
}

/** A fake timer handle (see {@link fakeTime}). */
export interface FakeTimer {
	readonly fn: () => void;
	readonly ms: number;
	cleared: boolean;
}

/** Fake clock and timers so deadlines are deterministic (no real 15-minute waits). */
export function fakeTime(start = 1_700_000_000_000) {
	const pending: FakeTimer[] = [];
	const time = {
		now: start,
		pending,
		timers: {
			setTimeout(fn: () => void, ms: number) {
				const timer: FakeTimer = { fn, ms, cleared: false };
				pending.push(timer);
				return timer;
			},
			clearTimeout(handle: unknown) {
				if (handle) (handle as FakeTimer).cleared = true;
			},
		},
		/** Timers not cleared (fired ones included). */
		live: () => pending.filter((timer) => !timer.cleared),
	};
	return time;
}

/** The goal record of the last persisted state (typed loosely for assertions). */
export function lastGoal(harness: ScriptedSession): Record<string, unknown> & {
	id?: string;
	status?: string;
	wait?: { kind?: string; reason: string; resumeAt: number | null; usageLimit?: Record<string, string> };
	safety?: { automaticTurns: number; noProgress: number };
	outcome?: string;
	pauseReason?: string;
} {
	return (lastState(harness)?.goal ?? {}) as never;
}

/** Goal-owned prompts of one kind on the branch. */
export function goalPrompts(harness: ScriptedSession, kind: string) {
	return customMessages(harness, CONTINUATION_MESSAGE).filter(
		(message) => (message.details as { kind?: string }).kind === kind,
	);
}

/** The value after checking that it is there (instead of a non-null assertion). */
export function defined<T>(value: T | null | undefined, what = "value"): T {
	if (value === undefined || value === null) throw new Error(`expected ${what} to be defined`);
	return value;
}
