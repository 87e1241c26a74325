/**
 * Runs one corpus scenario through Pi's real AgentSession with the faux provider: `/goal …`, then
 * each step as one model response; a scripted workspace extension answers the tool calls with the
 * step's output (no processes: deterministic and fast). A goal_wait deadline is fired at once on a
 * fake clock (polling). Shared by the scripted-session test and the `goal-runaway` bench group.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	type DynamicStep,
	messageText,
	reply,
	toolCall,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";
import type { CorpusCall, CorpusStep, Scenario } from "./scenarios.js";

/** What a scenario run did. */
export interface ScenarioRun {
	/** Provider requests until the goal stopped (or the script ran out). */
	readonly requests: number;
	/** Tokens the responses reported. */
	readonly tokens: number;
	/** The goal's last persisted status, pause reason and pause detail. */
	readonly status: string | undefined;
	readonly pauseReason: string | undefined;
	readonly pauseDetail: string | undefined;
}

/** The goal extension under test, built with the scenario's clock and timers. */
export type GoalFactory = (clock: {
	now: () => number;
	timers: { setTimeout(fn: () => void, ms: number): unknown; clearTimeout(handle: unknown): void };
}) => ExtensionFactory;

function goalId(messages: readonly Message[]): string {
	let id = "";
	for (const message of messages) {
		const match = /Goal id: (g-[0-9a-f]+) \(active\)/.exec(messageText(message));
		if (match?.[1]) id = match[1];
	}
	return id;
}

/** The scripted workspace: each tool answers with the output queued for it, in order. */
function workspace(queue: CorpusCall[]): { name: string; factory: ExtensionFactory } {
	const answer = async () => {
		const next = queue.shift();
		if (!next) return { content: [{ type: "text" as const, text: "" }], details: {} };
		if (next.isError) throw new Error(next.output);
		return { content: [{ type: "text" as const, text: next.output }], details: {} };
	};
	return {
		name: "scripted-workspace",
		factory: (pi: ExtensionAPI) => {
			for (const name of ["shell", "write_file", "edit_file", "read_file"])
				pi.registerTool({
					name,
					label: name,
					description: `${name} (scripted)`,
					parameters: Type.Object({}, { additionalProperties: true }),
					execute: answer,
				});
		},
	};
}

function stepResponse(step: CorpusStep, queue: CorpusCall[]): DynamicStep {
	return (context) => {
		if ("text" in step) return reply(step.text) as never;
		const id = goalId(context.messages as Message[]);
		if ("wait" in step)
			return toolCall("goal_wait", { goal_id: id, reason: step.reason, resume_after_ms: step.wait }) as never;
		queue.push(...step.calls);
		return toolCalls(step.calls.map((call) => ({ name: call.tool, args: { ...call.args } }))) as never;
	};
}

function lastGoal(entries: readonly { type: string; customType?: string; data?: unknown }[]) {
	const states = entries.filter((entry) => entry.type === "custom" && entry.customType === "pi-goal/state");
	const data = states.at(-1)?.data as { state?: { goal?: Record<string, unknown> | null } } | undefined;
	return data?.state?.goal ?? undefined;
}

/** Runs `scenario` (a progress scenario ends with goal_complete). */
export async function runScenario(scenario: Scenario, goal: GoalFactory): Promise<ScenarioRun> {
	const queue: CorpusCall[] = [];
	const timers: { fn: () => void; ms: number; cleared: boolean }[] = [];
	const clock = {
		now: 1_700_000_000_000,
		timers: {
			setTimeout(fn: () => void, ms: number) {
				const timer = { fn, ms, cleared: false };
				timers.push(timer);
				return timer;
			},
			clearTimeout(handle: unknown) {
				if (handle) (handle as { cleared: boolean }).cleared = true;
			},
		},
	};
	const steps = scenario.steps.map((step) => stepResponse(step, queue));
	const complete: DynamicStep = (context) =>
		toolCall("goal_complete", {
			goal_id: goalId(context.messages as Message[]),
			summary: "Done; the tests pass.",
			open_items: [],
		}) as never;
	const harness = await createScriptedSession({
		extensions: [
			workspace(queue),
			{ name: "pi-goal", factory: goal({ now: () => clock.now, timers: clock.timers }) },
		],
		responses: scenario.kind === "progress" ? [...steps, complete] : steps,
		recorder: false,
		autoDispose: false,
	});
	let tokens = 0;
	harness.session.subscribe((event) => {
		if (event.type === "message_end" && event.message.role === "assistant")
			tokens += (event.message as { usage?: { totalTokens?: number } }).usage?.totalTokens ?? 0;
	});
	try {
		await harness.prompt(`/goal ${scenario.name}`);
		for (let round = 0; round < 200; round++) {
			await harness.waitForIdle();
			await new Promise((resolve) => setImmediate(resolve));
			const goalState = lastGoal(harness.session.sessionManager.getBranch() as never);
			const wait = goalState?.wait as { resumeAt?: number | null } | undefined;
			const due = timers.filter((timer) => !timer.cleared);
			if (goalState?.status !== "active" || !wait || typeof wait.resumeAt !== "number" || due.length === 0) {
				if (harness.session.isStreaming) continue;
				break;
			}
			// Polling: the deadline passes, the goal wakes.
			clock.now = wait.resumeAt + 1;
			for (const timer of due) {
				timer.cleared = true;
				timer.fn();
			}
		}
		await harness.waitForIdle();
		const final = lastGoal(harness.session.sessionManager.getBranch() as never);
		return {
			requests: harness.providerCalls,
			tokens,
			status: final?.status as string | undefined,
			pauseReason: final?.pauseReason as string | undefined,
			pauseDetail: final?.pauseDetail as string | undefined,
		};
	} finally {
		await harness.dispose();
	}
}
