import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { createBoundaryParticipant, RESET_CHANNEL, type WorkflowMutex } from "@pi-lifecycle/lifecycle-kit";
import {
	createScriptedSession,
	messageText,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";
import { afterEach, describe, expect, it, vi } from "vitest";
import { holderExtension } from "./fixtures.js";
import {
	completeGoal,
	completeGoalAfterWork,
	defined,
	goalExtension,
	goalIdIn,
	lastState,
	settle,
} from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.restoreAllMocks();
});

describe("workflow:mutex:v1", () => {
	for (const order of ["holder first", "goal first"] as const) {
		it(`mutex conflict with a second participant rejects admission before any change (${order})`, async () => {
			const control: { mutex?: WorkflowMutex; holdAtStart?: boolean; token?: symbol } = { holdAtStart: true };
			const holder = holderExtension(control);
			const goal = goalExtension();
			const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
			harness = await createScriptedSession({
				extensions: order === "holder first" ? [holder, goal] : [goal, holder],
			});
			expect(control.mutex?.held).toBe(true);
			await harness.prompt("/goal take over");
			await settle(harness);
			expect(harness.providerCalls).toBe(0);
			expect(lastState(harness)).toBeUndefined();
			expect(errors.mock.calls.flat().join("\n")).toMatch(/Another workflow is active/);

			// Once the other workflow releases, the goal runs and holds the group itself.
			if (control.token) control.mutex?.release(control.token);
			harness.script((context) => {
				expect(control.mutex?.tryAcquire().acquired).toBe(false);
				return toolCall("goal_complete", {
					goal_id: goalIdIn(context.messages),
					summary: "Done and verified.",
				});
			}, completeGoal("Done and verified."));
			await harness.prompt("/goal take over");
			await settle(harness);
			expect(lastState(harness)?.goal?.status).toBe("complete");
			// The goal released the group when it completed.
			expect(control.mutex?.tryAcquire().acquired).toBe(true);
		});
	}
});

describe("goal contract", () => {
	it("the contract is in the next request after a compaction", async () => {
		const compactor = {
			name: "compactor",
			factory: (pi: ExtensionAPI) => {
				pi.on("session_before_compact", (event) => ({
					compaction: {
						summary: "SUMMARY",
						firstKeptEntryId: event.preparation.firstKeptEntryId,
						tokensBefore: 1,
					},
				}));
			},
		};
		harness = await createScriptedSession({
			extensions: [compactor, goalExtension()],
			settings: { compaction: { enabled: true, keepRecentTokens: 1, reserveTokens: 16_384 } },
			responses: [reply("progress one"), reply("progress two"), completeGoalAfterWork()],
		});
		// The first reply looks huge, so Pi compacts at the threshold after it.
		let first = true;
		harness.setUsage(() => {
			if (!first) return undefined;
			first = false;
			return { input: 120_000, totalTokens: 120_000 };
		});
		await harness.prompt("/goal keep going");
		await settle(harness);
		expect(harness.count("session_compact")).toBe(1);
		const afterCompaction = defined(harness.requests[1]);
		expect(afterCompaction.messages.some((m) => messageText(m).includes("SUMMARY"))).toBe(true);
		expect(goalIdIn(afterCompaction.messages)).not.toBe("");
		expect(lastState(harness)?.goal?.status).toBe("complete");
	});

	it("the contract is in the next request after a retain-none reset boundary", async () => {
		const resetter = {
			name: "resetter",
			factory: (pi: ExtensionAPI) => {
				let pending = false;
				let announced = false;
				const participant = createBoundaryParticipant(pi, {
					events: ["turn_end"],
					propose: () => {
						if (!pending) return undefined;
						pending = false;
						announced = true;
						return { drafts: [{ type: "compaction", summary: "HANDOFF", firstKeptEntryId: null }] };
					},
				});
				participant.arm();
				pi.on("turn_start", (_event, ctx) => {
					if (!announced) return;
					announced = false;
					pi.events.emit(RESET_CHANNEL, {
						session: ctx.sessionManager,
						windowId: "w2",
						entryId: ctx.sessionManager.getLeafId() ?? "",
					});
				});
				pi.registerTool({
					name: "reset_now",
					label: "reset",
					description: "reset the context",
					parameters: Type.Object({}),
					async execute() {
						pending = true;
						return { content: [{ type: "text", text: "resetting" }], details: {} };
					},
				});
			},
		};
		harness = await createScriptedSession({
			extensions: [resetter, goalExtension()],
			responses: [toolCall("reset_now"), completeGoal("Done after the reset; verified.")],
		});
		await harness.prompt("/goal survive a reset");
		await settle(harness);
		const afterReset = defined(harness.requests[1]);
		const texts = afterReset.messages.map((m) => messageText(m));
		expect(texts.some((t) => t.includes("HANDOFF"))).toBe(true);
		expect(texts.some((t) => t.includes("Start working on goal"))).toBe(false);
		expect(goalIdIn(afterReset.messages)).not.toBe("");
		expect(lastState(harness)?.goal?.status).toBe("complete");
	});

	it("a stopped goal publishes one inactive revision after the terminal tool result", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			responses: [completeGoal(), completeGoal()],
		});
		await harness.prompt("/goal small thing");
		await settle(harness);
		const branch = harness.session.sessionManager.getBranch();
		const kinds = branch.map((e) =>
			e.type === "custom_message"
				? `cm:${(e.details as { active?: boolean }).active ?? "prompt"}`
				: e.type === "message"
					? (e.message as { role: string }).role
					: e.type,
		);
		const toolResult = kinds.lastIndexOf("toolResult");
		const inactive = kinds.indexOf("cm:false");
		expect(inactive).toBeGreaterThan(toolResult);
		expect(kinds.filter((k) => k === "cm:false")).toHaveLength(1);
	});
});
