/**
 * A compaction is not an interruption (issue 35): when another extension's `ctx.compact()` (Pi's
 * trigger-compact example, an auto-compacting extension) aborts the goal's run to compact, the goal
 * stays active; after the compaction succeeds it continues in the same goal id with the contract.
 * Only the user's abort, or a compaction that is cancelled or fails, pauses it (interrupted).
 * Pi's order (dist/core/agent-session.js compact()): abort() → agent_settled(aborted) →
 * session_before_compact → session_compact | session_compact_failed.
 */
import {
	createScriptedSession,
	deferred,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";

type FauxResponseStep = NonNullable<Parameters<typeof createScriptedSession>[0]>["responses"] extends
	| readonly (infer S)[]
	| undefined
	? S
	: never;

import { compactorExtension, toolsExtension } from "./fixtures.js";
import { triggerCompactPeer } from "./goal-peers.js";
import { completeGoal, goalExtension, goalIdIn, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** Lets the compaction keep only the newest entry, so a small session has something to compact. */
const SETTINGS = { compaction: { keepRecentTokens: 1 } };

/** A goal whose first run is compacted by another extension at its first turn_end. */
async function compactedGoal(
	compactor: Parameters<typeof compactorExtension>[0],
	responses: FauxResponseStep[],
) {
	const control: { armed: boolean; result?: "complete" | "error" } = { armed: true };
	harness = await createScriptedSession({
		extensions: [
			goalExtension(),
			toolsExtension(),
			compactorExtension(compactor),
			triggerCompactPeer(control),
		],
		settings: SETTINGS,
		responses: [toolCall("noop"), ...responses],
	});
	await harness.prompt("/goal ship it");
	await settle(harness);
	await settle(harness);
	return { control, harness };
}

describe("a compaction is not an interruption", () => {
	it("another extension's ctx.compact() during a goal run: the goal stays active and continues in the same goal id with the contract", async () => {
		const { control, harness: h } = await compactedGoal({}, [completeGoal("Done; tests pass.")]);
		expect(control.result).toBe("complete");
		const kickoffId = goalIdIn(h.requests[0]?.messages ?? []);
		// After the compaction the goal went on with the same id, and the request carried the contract.
		expect(h.requests).toHaveLength(2);
		expect(goalIdIn(h.requests[1]?.messages ?? [])).toBe(kickoffId);
		expect(lastGoal(h)).toMatchObject({ id: kickoffId, status: "complete" });
	});

	it("a cancelled compaction after the abort pauses the goal (interrupted), as the user's Escape does", async () => {
		const { control, harness: h } = await compactedGoal({ cancel: true }, [reply("never")]);
		expect(control.result).toBe("error");
		expect(h.providerCalls).toBe(1);
		expect(lastGoal(h)).toMatchObject({ status: "paused", pauseReason: "interrupted" });
	});

	it("a compaction that fails after the abort pauses the goal (interrupted)", async () => {
		// Nothing to compact with the default keepRecentTokens: Pi fails before session_before_compact.
		const control: { armed: boolean; result?: "complete" | "error" } = { armed: true };
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension(), triggerCompactPeer(control)],
			responses: [toolCall("noop"), reply("never")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(control.result).toBe("error");
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "interrupted" });
	});

	it("the user's abort of a goal run still pauses it (interrupted), with no compaction after it", async () => {
		const gate = deferred();
		harness = await createScriptedSession({
			extensions: [goalExtension(), toolsExtension({ current: gate })],
			settings: SETTINGS,
			responses: [toolCall("slow"), reply("never")],
		});
		const run = harness.prompt("/goal ship it");
		await vi.waitFor(() => expect(harness?.count("tool_execution_start")).toBe(1));
		await harness.abort();
		await run;
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "interrupted" });
		expect(harness.providerCalls).toBe(1);
	});
});
