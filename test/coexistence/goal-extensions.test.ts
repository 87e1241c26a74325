/**
 * Coexistence matrix rows for goal extensions (issue 35), on the packed pi-goal through Pi's
 * loader, both load orders: another extension's `ctx.compact()` during a goal run (Pi's
 * trigger-compact example) leaves the goal active in the same goal id with the contract; another
 * goal extension with other tool names, its own /goal and `pi-goal/*` entries keeps pi-goal
 * dormant, and nothing of ours touches its kickoff. The real-CLI start-up rows are
 * test/cli/goal-peer.test.ts; stand-ins: test/fixtures/peers/goal-*.ts.
 */
import { fileURLToPath } from "node:url";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import {
	captureConsole,
	createScriptedSession,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPacked, type PackedInstall } from "../support/packed.js";

const peer = (name: string) => fileURLToPath(new URL(`../fixtures/peers/${name}.ts`, import.meta.url));

let install: PackedInstall;
beforeAll(() => {
	install = installPacked(["pi-goal"]);
});
afterAll(() => install?.cleanup());

type Context = { messages: unknown[] };
const goalIdOf = (context: Context) =>
	/Goal id: (g-[0-9a-f]+) \(active\)/.exec(JSON.stringify(context.messages))?.[1] ?? "missing";

function goal(h: ScriptedSession): { id?: string; status?: string; pauseReason?: string } | undefined {
	return (
		h
			.customEntries<{ state?: { goal?: { id?: string; status?: string; pauseReason?: string } } }>(
				"pi-goal/state",
			)
			.at(-1)?.data?.state?.goal ?? undefined
	);
}

async function settle(h: ScriptedSession): Promise<void> {
	for (let i = 0; i < 8; i++) {
		await h.session.waitForIdle();
		await new Promise((resolve) => setImmediate(resolve));
	}
}

describe.each([
	["other first", true],
	["pi-goal first", false],
] as const)("goal extensions (%s)", (_label, otherFirst) => {
	const paths = (other: string) => (otherFirst ? [other, ...install.paths] : [...install.paths, other]);

	it("ctx.compact() mid-run (trigger-compact): the goal stays active and continues in the same goal id with the contract", async () => {
		const ids: string[] = [];
		const harness = await createScriptedSession({
			extensionPaths: paths(peer("goal-compact-mid-run")),
			settings: { compaction: { keepRecentTokens: 1 } },
			responses: [
				(context: Context) => {
					ids.push(goalIdOf(context));
					return fauxAssistantMessage([fauxToolCall("bash", { command: "echo checked" })], {
						stopReason: "toolUse",
					});
				},
				(context: Context) => {
					ids.push(goalIdOf(context));
					return fauxAssistantMessage(
						[fauxToolCall("goal_complete", { goal_id: goalIdOf(context), summary: "Done; verified." })],
						{ stopReason: "toolUse" },
					);
				},
			],
		});
		const stderr = captureConsole({ streams: ["error"] });
		await harness.prompt("/goal ship it");
		await settle(harness);
		stderr.restore();
		expect(stderr.text()).toContain("compact-mid-run: compaction completed");
		expect(ids).toHaveLength(2);
		expect(ids[1]).toBe(ids[0]);
		expect(goal(harness)).toMatchObject({ id: ids[0], status: "complete" });
		expect(harness.errors).toEqual([]);
	});

	it("another goal extension with other tool names, its own /goal and pi-goal/* entries: pi-goal stays dormant, its /goal and kickoff run", async () => {
		const harness = await createScriptedSession({
			extensionPaths: paths(peer("goal-other-tools")),
			responses: [fauxAssistantMessage("their work")],
		});
		const stderr = captureConsole({ streams: ["error"] });
		await harness.prompt("/goal ship it");
		await settle(harness);
		stderr.restore();
		expect(stderr.text()).toContain("other-goal handled /goal ship it");
		expect(stderr.text()).not.toContain("aborted a continuation");
		expect(harness.providerCalls).toBe(1);
		// Its entries only; none of ours.
		const entries = harness.customEntries<Record<string, unknown>>("pi-goal/state");
		expect(entries.map((entry) => entry.data?.owner)).toEqual(entries.map(() => undefined));
		expect(harness.errors).toEqual([]);
	});
});
