/**
 * The contract window: prompt-cache prefix stability of the contract after resets and compactions,
 * and the `context` fallback subscribed only while a revision is missing from the window.
 */
import type { Message } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { createBoundaryParticipant, NewWindowCollector, RESET_CHANNEL } from "@pi-lifecycle/lifecycle-kit";
import {
	createScriptedSession,
	type DynamicStep,
	messageText,
	type RecordedRequest,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import { CONTRACT_MESSAGE } from "../src/core/types.js";
import { createPiGoal } from "../src/index.js";
import { compactorExtension, toolsExtension } from "./fixtures.js";
import {
	agentDirWith,
	completeGoal,
	completeGoalAfterWork,
	contracts,
	goalExtension,
	goalIdIn,
	lastState,
	settle,
} from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const DROP = new Set([
	"timestamp",
	"usage",
	"api",
	"provider",
	"model",
	"responseId",
	"stopReason",
	"details",
]);

/** A request's messages as a provider would send them (no timestamps, usage or details). */
function serialise(request: RecordedRequest | undefined): string {
	expect(request).toBeDefined();
	return (request?.messages ?? [])
		.map((m) => JSON.stringify(m, (key, value) => (DROP.has(key) ? undefined : value)))
		.join("\n");
}

/** Asserts that request `index` (0-based) is repeated as the prefix of the request after it. */
function expectPrefixKept(h: ScriptedSession, index: number): void {
	const previous = serialise(h.requests[index]);
	const current = serialise(h.requests[index + 1]);
	expect(current.slice(0, previous.length)).toBe(previous);
}

function contractCount(request: RecordedRequest | undefined): number {
	return (request?.messages ?? []).filter((m: Message) => messageText(m).includes("[pi-goal contract"))
		.length;
}

/**
 * A reset owner modelled on pi-reset: `new_context` (terminating, details.status "requested")
 * makes its turn_end boundary propose a retain-none compaction plus a boot message and one
 * continuation; the reset is announced on `pi-lifecycle:reset:v1` at the next turn_start.
 * `toolName` lets a test hide the tool name pi-goal recognises.
 */
function resetterExtension(
	toolName = "new_context",
	offers?: { accept: true; atReset: () => void },
): { name: string; factory: ExtensionFactory } {
	return {
		name: "resetter",
		factory: (pi: ExtensionAPI) => {
			let pending = false;
			let committed = false;
			// As pi-reset: other extensions' new-window drafts (pi-lifecycle:new-window:v1) follow the boot message.
			const newWindow = new NewWindowCollector();
			if (offers) newWindow.listen(pi.events, () => pending);
			const participant = createBoundaryParticipant(pi, {
				events: ["turn_end"],
				propose: (_event, ctx) => {
					if (!pending) return undefined;
					offers?.atReset();
					pending = false;
					committed = true;
					return {
						drafts: [
							{ type: "compaction", summary: "", firstKeptEntryId: null },
							{
								type: "custom_message",
								customType: "resetter/boot",
								content: "BOOT handoff",
								display: false,
							},
							...newWindow.take(ctx.sessionManager),
						],
						continue: true,
					};
				},
			});
			participant.arm();
			pi.on("turn_start", (_event, ctx) => {
				if (!committed) return;
				committed = false;
				let entry = ctx.sessionManager.getLeafEntry();
				while (entry && entry.type !== "compaction")
					entry = entry.parentId ? ctx.sessionManager.getEntry(entry.parentId) : undefined;
				pi.events.emit(RESET_CHANNEL, {
					session: ctx.sessionManager,
					windowId: "w2",
					entryId: entry?.id ?? "",
				});
			});
			pi.registerTool({
				name: toolName,
				label: "reset",
				description: "reset the context",
				parameters: Type.Object({ handoff: Type.Optional(Type.String()) }),
				async execute() {
					pending = true;
					return {
						content: [{ type: "text", text: "reset requested" }],
						details: { status: "requested" },
						terminate: true,
					};
				},
			});
		},
	};
}

/** pi-goal with a proxy `pi` that tracks how many `context` and `turn_end` handlers it has subscribed. */
function trackedGoal(): {
	name: string;
	factory: ExtensionFactory;
	contextHandlers: () => number;
	turnEndHandlers: () => number;
} {
	const subscribed = { context: 0, turn_end: 0 };
	const goal = createPiGoal({ agentDir: agentDirWith() });
	return {
		name: "pi-goal",
		contextHandlers: () => subscribed.context,
		turnEndHandlers: () => subscribed.turn_end,
		factory: (pi: ExtensionAPI) => {
			const on = ((event: string, handler: never) => {
				const off = (pi.on as (e: string, h: never) => () => void)(event, handler);
				if (event !== "context" && event !== "turn_end") return off;
				subscribed[event]++;
				let live = true;
				return () => {
					if (live) subscribed[event]--;
					live = false;
					off();
				};
			}) as ExtensionAPI["on"];
			goal(new Proxy(pi, { get: (target, key) => (key === "on" ? on : Reflect.get(target, key)) }));
		},
	};
}

/** A step that records whether pi-goal's context handler is subscribed when the request is built. */
function noting(seen: boolean[], goal: { contextHandlers: () => number }, step: DynamicStep): DynamicStep {
	return (...args: Parameters<DynamicStep>) => {
		seen.push(goal.contextHandlers() > 0);
		return step(...args);
	};
}

describe("contract window", () => {
	for (const order of ["reset owner first", "goal first"] as const) {
		it(`the contract keeps its position across the requests after a reset (prefix stability, ${order})`, async () => {
			const goal = trackedGoal();
			const resetter = resetterExtension();
			const seen: boolean[] = [];
			harness = await createScriptedSession({
				extensions: order === "reset owner first" ? [resetter, goal] : [goal, resetter],
				responses: [
					noting(seen, goal, () => reply("part one written")),
					noting(seen, goal, () => toolCall("new_context", { handoff: "part one done" })),
					noting(seen, goal, () => reply("part two written")),
					noting(seen, goal, () => reply("part three written")),
					noting(seen, goal, completeGoal()),
				],
			});
			await harness.prompt("/goal write the report in parts");
			await settle(harness);
			expect(lastState(harness)?.goal?.status).toBe("complete");
			// Request 3 is the first of the new window: it already carries the persisted contract once.
			const first = harness.requests[2];
			expect(first?.messages.some((m) => messageText(m).includes("BOOT handoff"))).toBe(true);
			expect(goalIdIn(first?.messages ?? [])).not.toBe("");
			expect(contractCount(first)).toBe(1);
			// Every request of the new window repeats the one before it as its prefix.
			expectPrefixKept(harness, 2);
			expectPrefixKept(harness, 3);
			// The contract was persisted at the reset boundary, so the context fallback never ran.
			expect(seen).toEqual([false, false, false, false, false]);
			expect(contracts(harness).filter((c) => (c.details as { active: boolean }).active)).toHaveLength(2);
		});
	}

	for (const accept of [true, false]) {
		it(`a reset owner that ${accept ? "takes" : "does not take"} the new-window offer: the contract follows its boot message, ${accept ? "without" : "with"} a turn_end handler of pi-goal at the reset`, async () => {
			const goal = trackedGoal();
			const turnEndAtReset: number[] = [];
			const resetter = resetterExtension(
				"new_context",
				accept ? { accept: true, atReset: () => turnEndAtReset.push(goal.turnEndHandlers()) } : undefined,
			);
			harness = await createScriptedSession({
				extensions: [goal, resetter],
				responses: [
					() => toolCall("new_context", { handoff: "part one done" }),
					() => reply("part two written"),
					completeGoal(),
				],
			});
			await harness.prompt("/goal write the report in parts");
			await settle(harness);
			expect(lastState(harness)?.goal?.status).toBe("complete");
			const branch = harness.session.sessionManager.getBranch();
			const at = branch.findIndex((e) => e.type === "compaction");
			const kinds = branch
				.slice(at + 1, at + 3)
				.map((e) => (e.type === "custom_message" ? e.customType : e.type));
			// Taken: proposed by the reset owner after its boot message. Not taken: pi-goal's own turn_end
			// handler ran first (this load order), so the kit's merge put it first in the new window.
			expect(kinds).toEqual(
				accept ? ["resetter/boot", CONTRACT_MESSAGE] : [CONTRACT_MESSAGE, "resetter/boot"],
			);
			expect(contractCount(harness.requests[1])).toBe(1);
			if (accept) expect(turnEndAtReset).toEqual([0]);
		});
	}

	it("an unannounced window change arms the context fallback only until the contract is persisted", async () => {
		// The goal runs first and the tool name is unknown to it: the reset is not seen at the boundary.
		const goal = trackedGoal();
		const seen: boolean[] = [];
		harness = await createScriptedSession({
			extensions: [goal, resetterExtension("other_reset")],
			responses: [
				noting(seen, goal, () => toolCall("other_reset")),
				noting(seen, goal, () => reply("after the reset")),
				noting(seen, goal, () => reply("next step")),
				noting(seen, goal, completeGoal()),
			],
		});
		await harness.prompt("/goal survive an unknown reset");
		await settle(harness);
		expect(lastState(harness)?.goal?.status).toBe("complete");
		// Request 2 (first of the new window) gets the contract from the fallback; from request 3 on
		// it is persisted and the handler is gone.
		expect(seen).toEqual([false, true, false, false]);
		expect(contractCount(harness.requests[1])).toBe(1);
		expect(contractCount(harness.requests[2])).toBe(1);
		expectPrefixKept(harness, 2);
		expect(goal.contextHandlers()).toBe(0);
	});

	it("no context handler is subscribed while the window holds the contract", async () => {
		const goal = trackedGoal();
		const seen: boolean[] = [];
		harness = await createScriptedSession({
			extensions: [goal],
			responses: [
				noting(seen, goal, () => reply("one")),
				noting(seen, goal, () => reply("two")),
				noting(seen, goal, completeGoalAfterWork()),
			],
		});
		await harness.prompt("/goal three steps");
		await settle(harness);
		expect(lastState(harness)?.goal?.status).toBe("complete");
		expect(seen).toEqual([false, false, false]);
		expect(goal.contextHandlers()).toBe(0);
	});

	it("the contract keeps its position across the requests after a compaction between turns", async () => {
		const goal = trackedGoal();
		const seen: boolean[] = [];
		harness = await createScriptedSession({
			extensions: [compactorExtension(), toolsExtension(), goal],
			settings: { compaction: { enabled: true, keepRecentTokens: 1, reserveTokens: 16_384 } },
			responses: [
				noting(seen, goal, () => toolCall("noop")),
				noting(seen, goal, () => toolCall("noop")),
				noting(seen, goal, () => reply("after the compaction")),
				noting(seen, goal, completeGoal()),
			],
		});
		// The first response looks huge: Pi compacts before the next request of the tool loop.
		let first = true;
		harness.setUsage(() => {
			if (!first) return { input: 10, totalTokens: 10 };
			first = false;
			return { input: 120_000, totalTokens: 120_000 };
		});
		await harness.prompt("/goal loop through tools");
		await settle(harness);
		expect(harness.count("session_compact")).toBe(1);
		expect(lastState(harness)?.goal?.status).toBe("complete");
		const afterCompaction = harness.requests[1];
		expect(afterCompaction?.messages.some((m) => messageText(m).includes("SUMMARY"))).toBe(true);
		expect(contractCount(afterCompaction)).toBe(1);
		expectPrefixKept(harness, 1);
		expectPrefixKept(harness, 2);
		expect(goal.contextHandlers()).toBe(0);
	});

	it("the contract keeps its position across the requests after a compaction at the end of a run", async () => {
		harness = await createScriptedSession({
			extensions: [compactorExtension(), goalExtension()],
			settings: { compaction: { enabled: true, keepRecentTokens: 1, reserveTokens: 16_384 } },
			responses: [
				reply("progress one"),
				reply("progress two"),
				reply("progress three"),
				completeGoalAfterWork(),
			],
		});
		let first = true;
		harness.setUsage(() => {
			if (!first) return { input: 10, totalTokens: 10 };
			first = false;
			return { input: 120_000, totalTokens: 120_000 };
		});
		await harness.prompt("/goal keep going");
		await settle(harness);
		expect(harness.count("session_compact")).toBe(1);
		expect(lastState(harness)?.goal?.status).toBe("complete");
		expect(contractCount(harness.requests[1])).toBe(1);
		expectPrefixKept(harness, 1);
		expectPrefixKept(harness, 2);
		// The revision went in with the continuation at the boundary (no steering message that would
		// start a request of its own after the run).
		const texts = (harness.requests[1]?.messages ?? []).map((m) => messageText(m));
		expect(texts.findIndex((t) => t.includes("Continue working on goal"))).toBe(texts.length - 1);
		// Pi asks once more after a batch of goal_complete beside other tool work.
		expect(harness.providerCalls).toBe(5);
		expect(contracts(harness).filter((c) => (c.details as { active: boolean }).active)).toHaveLength(2);
	});
});
