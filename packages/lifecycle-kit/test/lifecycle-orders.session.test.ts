/**
 * The event orders lifecycle-kit relies on, proven on Pi's real agent loop (faux provider).
 * If a Pi release changes one of them, the matching test names the broken assumption.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { createBoundaryParticipant } from "../src/index.js";
import {
	createScriptedSession,
	deferred,
	reply,
	requestTexts,
	retryableError,
	type ScriptedSession,
	toolCall,
} from "../src/testing/index.js";

let harness: ScriptedSession | undefined;

const lifecycle = (h: ScriptedSession) =>
	h.eventTypes((e) =>
		["before_agent_start", "agent_start", "agent_end", "agent_before_settle", "agent_settled"].includes(
			e.type,
		),
	);

const nudge = (text: string) => ({
	type: "custom_message" as const,
	customType: "test/nudge",
	content: text,
	display: false,
});

describe("orders the kit relies on", () => {
	it("a retried provider error gives agent_end twice and agent_settled once", async () => {
		harness = await createScriptedSession({ responses: [retryableError(), reply("recovered")] });
		await harness.prompt("hello");
		expect(lifecycle(harness)).toEqual([
			"before_agent_start",
			"agent_start",
			"agent_end",
			"agent_start",
			"agent_end",
			"agent_before_settle",
			"agent_settled",
		]);
		expect(harness.providerCalls).toBe(2);
	});

	it("an abort skips agent_before_settle and settles with aborted: true", async () => {
		const started = deferred<void>();
		const release = deferred<void>();
		const ext = (pi: ExtensionAPI) => {
			pi.on("tool_call", () => started.resolve());
			pi.registerTool({
				name: "slow",
				label: "slow",
				description: "waits until released",
				parameters: { type: "object", properties: {} } as never,
				async execute() {
					await release.promise;
					return { content: [{ type: "text", text: "done" }], details: {} };
				},
			});
		};
		harness = await createScriptedSession({
			extensions: [ext],
			responses: [toolCall("slow"), reply("never")],
		});
		const prompting = harness.prompt("go");
		await started.promise;
		const aborting = harness.abort();
		release.resolve();
		await aborting;
		await prompting;
		expect(harness.count("agent_before_settle")).toBe(0);
		const settled = harness.events.filter((e) => e.type === "agent_settled");
		expect(settled.map((e) => e.info.aborted)).toEqual([true]);
	});

	it("a boundary continue: true at agent_before_settle makes exactly one more provider request", async () => {
		let proposals = 0;
		const ext = (pi: ExtensionAPI) => {
			const participant = createBoundaryParticipant(pi, {
				events: ["agent_before_settle"],
				propose: () => {
					proposals++;
					participant.disarm();
					return { drafts: [nudge("one more, please")], continue: true };
				},
			});
			participant.arm();
		};
		harness = await createScriptedSession({
			extensions: [ext],
			responses: [reply("first"), reply("second"), reply("unused")],
		});
		await harness.prompt("start");
		expect(proposals).toBe(1);
		expect(harness.providerCalls).toBe(2);
		expect(requestTexts(harness.requests[1] ?? { index: 0, messages: [] }).at(-1)).toBe(
			"user: one more, please",
		);
		expect(lifecycle(harness)).toEqual([
			"before_agent_start",
			"agent_start",
			"agent_end",
			"agent_before_settle",
			"agent_start",
			"agent_end",
			"agent_before_settle",
			"agent_settled",
		]);
	});

	it("a boundary continue: true at turn_end makes exactly one more provider request in the same attempt", async () => {
		const ext = (pi: ExtensionAPI) => {
			const participant = createBoundaryParticipant(pi, {
				events: ["turn_end"],
				propose: () => {
					participant.disarm();
					return { drafts: [nudge("again")], continue: true };
				},
			});
			participant.arm();
		};
		harness = await createScriptedSession({
			extensions: [ext],
			responses: [reply("first"), reply("second"), reply("unused")],
		});
		await harness.prompt("start");
		expect(harness.providerCalls).toBe(2);
		expect(harness.count("agent_start")).toBe(1);
		expect(harness.count("turn_end")).toBe(2);
	});

	it("before_agent_start fires once per started run, not for retries or continuations", async () => {
		harness = await createScriptedSession({ responses: [retryableError(), reply("ok"), reply("two")] });
		await harness.prompt("one");
		await harness.prompt("two");
		expect(harness.count("before_agent_start")).toBe(2);
		expect(harness.count("agent_settled")).toBe(2);
		expect(harness.count("agent_start")).toBe(3);
	});
});
