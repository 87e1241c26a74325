/**
 * Issue 32 with all three packed extensions: pi-reset's masking of old tool output under a pi-goal
 * goal (its contract and continuations in the request) with pi-jscpd loaded, in two load orders.
 * Between masking steps each request repeats the previous one as its prefix; pi-goal's messages are
 * never masked; the goal still completes; context_recall returns a masked output.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import {
	createScriptedSession,
	type DynamicStep,
	type RecordedRequest,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { activeGoalId, texts } from "../support/model.js";
import { type ExtensionName, installPacked, type PackedInstall } from "../support/packed.js";

const ALL: ExtensionName[] = ["pi-reset", "pi-goal", "pi-jscpd"];
const STUB = "[pi-reset] Old output hidden";
let install: PackedInstall;
let harness: ScriptedSession | undefined;

beforeAll(() => {
	install = installPacked(ALL);
});
afterAll(() => install?.cleanup());
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.unstubAllEnvs();
});

function pathsIn(order: readonly ExtensionName[]): string[] {
	return order.map((name) => install.extensions.find((ext) => ext.name === name)?.packageDir ?? "");
}

/** Non-system messages as a provider gets them, one JSON line each (no timestamps, usage, ids of the run). */
function wire(request: RecordedRequest): string {
	const drop = new Set(["timestamp", "usage", "responseId", "api", "provider", "model", "durationMs"]);
	return request.messages
		.filter((m) => (m.role as string) !== "system")
		.map((m) => JSON.stringify(m, (key, value) => (drop.has(key) ? undefined : value)))
		.join("\n");
}

const stubCount = (messages: readonly Message[]) => texts(messages).filter((t) => t.startsWith(STUB)).length;

describe.each([ALL, [...ALL].reverse()])("masking with all three, load order %s, %s, %s", (...order) => {
	it("old output is masked in steps under a goal: prefixes hold between steps, goal messages stay, recall works", async () => {
		const agentDir = mkdtempSync(join(tmpdir(), "pi-lifecycle-masking-"));
		mkdirSync(join(agentDir, "pi-lifecycle"), { recursive: true });
		writeFileSync(
			join(agentDir, "pi-lifecycle", "pi-reset.json"),
			JSON.stringify({ maskAfterTurns: 2, maskStepTurns: 3 }),
		);
		vi.stubEnv("PI_CODING_AGENT_DIR", agentDir);
		const cwd = mkdtempSync(join(tmpdir(), "pi-lifecycle-masking-project-"));
		for (let i = 0; i < 8; i++)
			// Even parts are large (6,000 characters: masked at the first step after they were answered).
			writeFileSync(join(cwd, `part${i}.txt`), `part ${i}: ${"data ".repeat(i % 2 === 0 ? 1200 : 400)}\n`);
		let ref = "";
		const recall: DynamicStep = (context) => {
			const stub = texts(context.messages).find((t) => t.startsWith(STUB)) ?? "";
			ref = /context_recall ref (\S+) returns it/.exec(stub)?.[1] ?? "";
			return toolCall("context_recall", { ref });
		};
		const complete: DynamicStep = (context) =>
			fauxAssistantMessage(
				[
					fauxToolCall("goal_complete", {
						goal_id: activeGoalId(context.messages) ?? "missing",
						summary: "All parts read.",
					}),
				],
				{ stopReason: "toolUse" },
			);
		harness = await createScriptedSession({
			extensionPaths: pathsIn(order),
			cwd,
			responses: [
				...Array.from({ length: 8 }, (_, i) => toolCall("read", { path: `part${i}.txt` })),
				recall,
				complete,
			],
		});
		await harness.prompt("/goal read every part file");
		await harness.waitForIdle();
		const requests = harness.requests;
		expect(requests.length).toBeGreaterThanOrEqual(10);
		// Masking happened, and the goal's contract is still sent whole in the last request.
		const last = requests.at(-1) as RecordedRequest;
		expect(stubCount(last.messages)).toBeGreaterThan(0);
		// A large part is masked in the last request, and every stub stands for a read answered before.
		expect(texts(last.messages).some((t) => t.startsWith(STUB) && /\(60\d\d characters\)/.test(t))).toBe(
			true,
		);
		expect(activeGoalId(last.messages)).toBeTruthy();
		// Between steps (the same number of stubs) each request starts with the previous one.
		let compared = 0;
		for (let i = 1; i < requests.length; i++) {
			const previous = requests[i - 1] as RecordedRequest;
			const current = requests[i] as RecordedRequest;
			if (stubCount(previous.messages) !== stubCount(current.messages)) continue;
			expect(wire(current).startsWith(wire(previous))).toBe(true);
			compared++;
		}
		expect(compared).toBeGreaterThanOrEqual(5);
		// The recalled output is the file as read.
		expect(ref).not.toBe("");
		const results = harness.session.sessionManager
			.getBranch()
			.flatMap((e) => (e.type === "message" && e.message.role === "toolResult" ? [e.message] : []));
		const recalled = results.find((m) => m.toolName === "context_recall");
		const original = results.find((m) => m.toolName === "read");
		expect(recalled?.content).toEqual(original?.content);
		expect(harness.customEntries("pi-goal/state").length).toBeGreaterThan(0);
	});
});
