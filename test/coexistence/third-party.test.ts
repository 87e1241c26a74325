/**
 * A third-party extension that imports lifecycle-kit from its tarball (its own copy) joins
 * workflow:mutex:v1 with pi-goal and observes pi-reset's announcements.
 */
import { fileURLToPath } from "node:url";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import {
	captureConsole,
	createScriptedSession,
	reply,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { installFixture, installPacked, type PackedInstall } from "../support/packed.js";

interface ThirdPartyLog {
	acquisitions: string[];
	resets: { windowId: string; entryId: string }[];
}
const log = () => (globalThis as { __thirdParty?: ThirdPartyLog }).__thirdParty as ThirdPartyLog;

// Sessions are disposed when each test finishes (the harness registers itself with vitest).
let install: PackedInstall;
let fixture: string;
beforeAll(() => {
	install = installPacked(["pi-reset", "pi-goal"]);
	fixture = installFixture(
		install,
		fileURLToPath(new URL("../fixtures/third-party-workflow", import.meta.url)),
		"third-party-workflow",
	);
});
afterAll(() => install?.cleanup());
beforeEach(() => {
	(globalThis as { __thirdParty?: ThirdPartyLog }).__thirdParty = { acquisitions: [], resets: [] };
});
function goalStatus(h: ScriptedSession): unknown {
	return h.customEntries<{ state?: { goal?: { status?: string } } }>("pi-goal/state").at(-1)?.data?.state
		?.goal?.status;
}

describe.each([
	["fixture first", true],
	["fixture last", false],
] as const)("third-party workflow (%s)", (_label, fixtureFirst) => {
	const paths = () => (fixtureFirst ? [fixture, ...install.paths] : [...install.paths, fixture]);

	it("while the third party holds agent-workflow, /goal is refused with a clear message and nothing changes", async () => {
		const harness = await createScriptedSession({ extensionPaths: paths() });
		const stderr = captureConsole({ streams: ["error"] });
		await harness.prompt("/tp acquire");
		await harness.prompt("/goal Build the feature");
		stderr.restore();
		expect(log().acquisitions).toEqual(["acquired"]);
		expect(harness.providerCalls).toBe(0);
		expect(goalStatus(harness)).toBeUndefined();
		expect(stderr.text()).toMatch(/workflow/i);
		expect(harness.errors).toEqual([]);
	});

	it("once the goal completes, the third party can acquire agent-workflow", async () => {
		const harness = await createScriptedSession({
			extensionPaths: paths(),
			responses: [
				reply("Working."),
				// The checks the summary names (pi-goal asks about a goal_complete before any tool work).
				fauxAssistantMessage([fauxToolCall("bash", { command: "echo checks passed" })], {
					stopReason: "toolUse",
				}),
				(context) => {
					const text = JSON.stringify(context.messages);
					const goalId = /Goal id: (g-[a-z0-9]+)/.exec(text)?.[1] ?? "missing";
					return fauxAssistantMessage(
						[fauxToolCall("goal_complete", { goal_id: goalId, summary: "Verified by running the checks." })],
						{ stopReason: "toolUse" },
					);
				},
			],
		});
		await harness.prompt("/goal Build the feature");
		await harness.waitForIdle();
		expect(goalStatus(harness)).toBe("complete");
		await harness.prompt("/tp acquire");
		expect(log().acquisitions).toEqual(["acquired"]);
		await harness.prompt("/tp release");
	});

	it("a goal that is active blocks the third party's acquisition", async () => {
		const harness = await createScriptedSession({
			extensionPaths: paths(),
			responses: [
				(context) => {
					const text = JSON.stringify(context.messages);
					const goalId = /Goal id: (g-[a-z0-9]+)/.exec(text)?.[1] ?? "missing";
					return fauxAssistantMessage(
						[
							fauxToolCall("goal_wait", {
								goal_id: goalId,
								reason: "waiting for CI",
								resume_after_ms: 3_600_000,
							}),
						],
						{ stopReason: "toolUse" },
					);
				},
			],
		});
		await harness.prompt("/goal Ship after CI");
		await harness.waitForIdle();
		await harness.prompt("/tp acquire");
		expect(log().acquisitions).toEqual(["busy"]);
		await harness.prompt("/goal clear");
		await harness.prompt("/tp acquire");
		expect(log().acquisitions).toEqual(["busy", "acquired"]);
	});

	it("the third party observes pi-reset's announcement of a committed reset", async () => {
		const harness = await createScriptedSession({
			extensionPaths: paths(),
			responses: [
				fauxAssistantMessage([fauxToolCall("new_context", { handoff: "next" })], { stopReason: "toolUse" }),
				reply("fresh window"),
			],
		});
		await harness.prompt("go");
		expect(log().resets).toHaveLength(1);
		expect(log().resets[0]?.windowId).toMatch(/^w1-/);
	});
});
