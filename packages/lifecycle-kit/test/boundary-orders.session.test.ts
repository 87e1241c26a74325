/**
 * Boundary participation on Pi's real agent loop: subscriptions that exist only while armed, and a
 * reset that lands ahead of another extension's continuation whatever the load order.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { type BoundaryParticipant, createBoundaryParticipant } from "../src/index.js";
import {
	createScriptedSession,
	reply,
	requestTexts,
	type ScriptedSession,
	toolCall,
} from "../src/testing/index.js";

let harness: ScriptedSession | undefined;

const echo = (pi: ExtensionAPI) =>
	pi.registerTool({
		name: "echo",
		label: "echo",
		description: "echoes",
		parameters: { type: "object", properties: {} } as never,
		async execute() {
			return { content: [{ type: "text", text: "echoed" }], details: {} };
		},
	});

describe("arm and disarm on Pi's real session", () => {
	it("arm/disarm really unsubscribes: no turn_end handler calls while disarmed", async () => {
		let calls = 0;
		let participant: BoundaryParticipant | undefined;
		const ext = (pi: ExtensionAPI) => {
			echo(pi);
			participant = createBoundaryParticipant(pi, {
				events: ["turn_end", "agent_before_settle"],
				propose: () => {
					calls++;
					return undefined;
				},
			});
		};
		harness = await createScriptedSession({
			extensions: [ext],
			responses: [toolCall("echo"), reply("a"), toolCall("echo"), reply("b"), toolCall("echo"), reply("c")],
		});
		// Never armed: two turns and a settle, no calls.
		await harness.prompt("one");
		expect(calls).toBe(0);
		// Armed: two turn_end calls plus one agent_before_settle.
		participant?.arm();
		participant?.arm();
		await harness.prompt("two");
		expect(calls).toBe(3);
		// Disarmed again: nothing more.
		participant?.disarm();
		await harness.prompt("three");
		expect(calls).toBe(3);
		expect(harness.count("turn_end")).toBe(6);
	});

	it("a participant that disarms inside its own handler is called once for that dispatch only", async () => {
		let calls = 0;
		const ext = (pi: ExtensionAPI) => {
			echo(pi);
			const participant = createBoundaryParticipant(pi, {
				events: ["turn_end"],
				propose: () => {
					calls++;
					participant.disarm();
					return undefined;
				},
			});
			participant.arm();
		};
		harness = await createScriptedSession({ extensions: [ext], responses: [toolCall("echo"), reply("a")] });
		await harness.prompt("go");
		expect(harness.count("turn_end")).toBe(2);
		expect(calls).toBe(1);
	});
});

describe("a reset lands before a continuation whatever the handler order", () => {
	/** Proposes a goal-style continuation at agent_before_settle, once. */
	const goal = (pi: ExtensionAPI) => {
		const participant = createBoundaryParticipant(pi, {
			events: ["agent_before_settle"],
			propose: () => {
				participant.disarm();
				return {
					drafts: [
						{
							type: "custom_message",
							customType: "goal/continue",
							content: "GOAL: continue",
							display: false,
						},
					],
					continue: true,
				};
			},
		});
		participant.arm();
	};
	/** Proposes a retain-none compaction (a reset) plus its own continuation, once. */
	const reset = (pi: ExtensionAPI) => {
		const participant = createBoundaryParticipant(pi, {
			events: ["agent_before_settle"],
			propose: () => {
				participant.disarm();
				return {
					drafts: [
						{ type: "compaction", summary: "HANDOFF: fresh start", firstKeptEntryId: null },
						{
							type: "custom_message",
							customType: "reset/continue",
							content: "RESET: continue",
							display: false,
						},
					],
					continue: true,
				};
			},
		});
		participant.arm();
	};

	for (const [label, extensions] of [
		["continuation first, reset later", [goal, reset]],
		["reset first, continuation later", [reset, goal]],
	] as const) {
		it(`a retain-none compaction proposed by a later handler lands before a continuation proposed by an earlier one (${label})`, async () => {
			harness = await createScriptedSession({
				extensions: [...extensions],
				responses: [reply("OLD ANSWER"), reply("new window"), reply("unused")],
			});
			await harness.prompt("OLD PROMPT");
			expect(harness.providerCalls).toBe(2);
			const settle = harness.events.filter((e) => e.type === "agent_before_settle");
			// The recorder loads last, so it sees the merged proposal of both extensions.
			expect(settle[0]?.info.entries).toEqual(
				label.startsWith("continuation")
					? ["compaction", "custom_message:goal/continue", "custom_message:reset/continue"]
					: ["compaction", "custom_message:reset/continue", "custom_message:goal/continue"],
			);
			const next = requestTexts(harness.requests[1] ?? { index: 0, messages: [] }).join("\n");
			expect(next).toContain("HANDOFF: fresh start");
			expect(next).toContain("GOAL: continue");
			expect(next).toContain("RESET: continue");
			expect(next).not.toContain("OLD PROMPT");
			expect(next).not.toContain("OLD ANSWER");
		});
	}
});
