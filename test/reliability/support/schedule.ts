/**
 * Schedule commands for scripted sessions: each is a short, scripted interaction with Pi's real
 * loop (prompts, goal commands, model tool calls, provider errors, compaction, aborts, reloads).
 */
import type { Message } from "@earendil-works/pi-ai";
import {
	deferred,
	overflowError,
	reply,
	retryableError,
	type ScriptedSession,
	toolCall,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";

export const COMMANDS = [
	"user",
	"goal",
	"goal",
	"complete",
	"new_context",
	"reset-cmd",
	"pause",
	"resume",
	"clear",
	"retry",
	"overflow",
	"threshold",
	"tools",
	"abort",
	"reload",
	"steer",
] as const;
export type Command = (typeof COMMANDS)[number];

/** The visible goal id: the last active contract in the request. */
function goalId(messages: readonly Message[]): string {
	const text = JSON.stringify(messages);
	return [...text.matchAll(/Goal id: (g-[0-9a-f]+) \(active\)/g)].at(-1)?.[1] ?? "g-none";
}

export async function settle(h: ScriptedSession): Promise<void> {
	for (let i = 0; i < 6; i++) {
		await h.session.waitForIdle();
		await new Promise((resolve) => setImmediate(resolve));
	}
}

export async function run(h: ScriptedSession, command: Command, step: number): Promise<void> {
	switch (command) {
		case "user":
			h.script(reply(`answer ${step}`));
			await h.prompt(`question ${step}`);
			break;
		case "goal":
			h.script(reply("working on it"), reply("still working"));
			await h.prompt(`/goal objective number ${step}`);
			break;
		case "complete":
			// Real tool work beside goal_complete (pi-goal asks about a goal_complete before any tool
			// work in the goal); Pi asks once more after a batch with other tools: "done".
			h.script(
				(context) =>
					toolCalls([
						{ name: "write", args: { path: `done${step}.txt`, content: "verified" } },
						{
							name: "goal_complete",
							args: {
								goal_id: goalId(context.messages as Message[]),
								summary: "All requirements met; verified.",
							},
						},
					]) as never,
				reply("done"),
			);
			await h.prompt("finish the goal");
			break;
		case "new_context":
			h.script(toolCall("new_context", { handoff: `handoff ${step}` }), reply("fresh window"));
			await h.prompt("start a new window");
			break;
		case "reset-cmd":
			await h.prompt(`/reset carry on from step ${step}`);
			break;
		case "pause":
			await h.prompt("/goal pause");
			break;
		case "resume":
			h.script(reply("resumed"));
			await h.prompt("/goal resume");
			break;
		case "clear":
			await h.prompt("/goal clear");
			break;
		case "retry":
			h.script(retryableError(), reply("recovered"));
			await h.prompt("flaky request");
			break;
		case "overflow":
			h.script(overflowError(), reply("after overflow"));
			await h.prompt("a very big request");
			break;
		case "threshold":
			h.setUsage({ input: 120_000, totalTokens: 120_000 });
			h.script(reply("heavy answer"));
			await h.prompt("heavy request");
			h.setUsage(undefined);
			break;
		case "tools":
			h.script(
				toolCalls([
					{ name: "read", args: { path: "a.txt" } },
					{ name: "write", args: { path: `f${step}.txt`, content: "x" } },
				]),
				reply("tools done"),
			);
			await h.prompt("use some tools");
			break;
		case "abort": {
			const gate = deferred();
			h.script(async () => {
				await gate.promise;
				return reply("late answer");
			});
			const running = h.prompt("slow request").catch(() => undefined);
			for (let i = 0; i < 200 && !h.session.isStreaming; i++) await new Promise((r) => setTimeout(r, 1));
			// The faux stream only ends when its gate opens: open it while the abort is under way.
			const aborting = h.abort();
			gate.resolve();
			await aborting;
			await running;
			break;
		}
		case "steer": {
			const gate = deferred();
			h.script(async () => {
				await gate.promise;
				return reply("first");
			}, reply("steered"));
			const running = h.prompt("first request").catch(() => undefined);
			for (let i = 0; i < 200 && !h.session.isStreaming; i++) await new Promise((r) => setTimeout(r, 1));
			await h.session.steer("also do this").catch(() => undefined);
			gate.resolve();
			await running;
			break;
		}
		case "reload":
			await h.reload();
			break;
	}
	await settle(h);
}
