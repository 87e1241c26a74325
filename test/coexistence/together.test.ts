/**
 * All three extensions from their packed tarballs, each in its own module root, in every load order.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import {
	createScriptedSession,
	type DynamicStep,
	reply,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { activeGoalId, countContaining, permutations, texts } from "../support/model.js";
import { type ExtensionName, installPacked, type PackedInstall } from "../support/packed.js";

const ALL: ExtensionName[] = ["pi-reset", "pi-goal", "pi-jscpd"];
let install: PackedInstall;
let harness: ScriptedSession | undefined;

beforeAll(() => {
	install = installPacked(ALL);
});
afterAll(() => install?.cleanup());
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

function pathsIn(order: readonly ExtensionName[]): string[] {
	return order.map((name) => install.extensions.find((ext) => ext.name === name)?.packageDir ?? "");
}

/** A step that calls goal_complete with the goal id the model was given. */
const completeGoal =
	(summary: string): DynamicStep =>
	(context) => {
		const goalId = activeGoalId(context.messages);
		return fauxAssistantMessage([fauxToolCall("goal_complete", { goal_id: goalId ?? "missing", summary })], {
			stopReason: "toolUse",
		});
	};

describe.each(permutations(ALL))("load order %s, %s, %s", (...order) => {
	it("new_context in the middle of a goal continues the goal in the fresh window with its contract, once", async () => {
		harness = await createScriptedSession({
			extensionPaths: pathsIn(order),
			responses: [
				reply("Step one of the objective is done."),
				fauxAssistantMessage(
					[
						fauxText("Handing off."),
						fauxToolCall("new_context", { handoff: "Step one done; do step two next." }),
					],
					{ stopReason: "toolUse" },
				),
				completeGoal("Step two done: verified by reading the file."),
			],
		});
		await harness.prompt("/goal Write the two-step report");
		await harness.session.waitForIdle();

		expect(harness.errors).toEqual([]);
		expect(harness.providerCalls).toBe(3);
		const [first, second, third] = harness.requests;
		expect(activeGoalId(first?.messages ?? [])).toBeDefined();
		expect(countContaining(second?.messages ?? [], "Step one of the objective is done.")).toBe(1);

		// The fresh window: handoff and contract present, old conversation gone, one continuation.
		const fresh = third?.messages ?? [];
		const freshTexts = texts(fresh).join("\n---\n");
		expect(freshTexts).toContain("Step one done; do step two next.");
		expect(activeGoalId(fresh)).toBe(activeGoalId(first?.messages ?? []));
		expect(freshTexts).not.toContain("Step one of the objective is done.");
		expect(countContaining(fresh, "Goal id:")).toBe(1);
		// The contract rode pi-reset's proposal (pi-lifecycle:new-window:v1), so it follows the boot
		// message in every load order: pi-goal needed no turn_end handler of its own at the reset.
		const branch = harness.session.sessionManager.getBranch();
		const reset = branch.findIndex((entry) => entry.type === "compaction");
		expect(
			branch
				.slice(reset + 1, reset + 3)
				.map((entry) => (entry.type === "custom_message" ? entry.customType : entry.type)),
		).toEqual(["pi-reset/boot", "pi-goal/contract"]);

		// The goal completed: no further request, and the footer state is complete.
		expect(harness.count("agent_settled")).toBeGreaterThanOrEqual(1);
	});

	it("a threshold reset during goal work takes no model turn and the goal goes on with its contract", async () => {
		harness = await createScriptedSession({
			extensionPaths: pathsIn(order),
			settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
			responses: [
				reply("OLD-ANSWER before the goal"),
				fauxAssistantMessage([fauxToolCall("read", { path: "notes.txt" })], { stopReason: "toolUse" }),
				reply("Read the notes; the first half is done."),
				completeGoal("Both halves done; checked the notes file."),
			],
		});
		writeFileSync(join(harness.cwd, "notes.txt"), "NOTES-CONTENT\n");
		await harness.prompt("an earlier question");
		// The goal's tool-calling response pushes the window over Pi's threshold between turns.
		harness.setUsage((message) =>
			message.stopReason === "toolUse" &&
			message.content.some((b) => b.type === "toolCall" && b.name === "read")
				? { input: 120_000, totalTokens: 120_000 }
				: undefined,
		);
		await harness.prompt("/goal Summarise the notes in two halves");
		await harness.session.waitForIdle();

		expect(harness.errors).toEqual([]);
		// At Pi's threshold pi-reset resets at the tool turn's boundary: Pi starts no compaction.
		expect(harness.events.filter((e) => e.type === "session_before_compact")).toEqual([]);
		const resets = harness.session.sessionManager.getBranch().filter((e) => e.type === "compaction");
		expect(resets).toHaveLength(1);
		// One request per scripted step: the reset cost no summarisation request.
		expect(harness.providerCalls).toBe(4);
		const afterReset = harness.requests[2]?.messages ?? [];
		const afterTexts = texts(afterReset).join("\n");
		// The old window's answer may appear only inside pi-reset's mechanical digest (it quotes the last answer).
		expect(
			afterTexts.replace(/What the previous window did \(a mechanical digest\):[\s\S]*?\n\n/g, ""),
		).not.toContain("OLD-ANSWER");
		expect(afterTexts).toContain("NOTES-CONTENT");
		expect(activeGoalId(afterReset)).toBe(activeGoalId(harness.requests[1]?.messages ?? []));
		// The continuation after the reset still carries exactly one current contract.
		const last = harness.requests[3]?.messages ?? [];
		expect(activeGoalId(last)).toBe(activeGoalId(afterReset));
		expect(countContaining(last, "(active)")).toBe(1);
	});
});
