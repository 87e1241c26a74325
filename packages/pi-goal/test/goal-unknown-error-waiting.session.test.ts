/**
 * Unknown-error waiting: equivalence classes, blank and hostile text, unchanged native eligibility,
 * contract preservation, cancellation, helper and safety rechecks, supersession and reload.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	overflowError,
	providerError,
	reply,
	retryableError,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_DETAIL } from "../src/core/types.js";
import { allowlistExtension } from "./fixtures.js";
import {
	completeGoalAfterWork,
	contracts,
	fakeTime,
	goalExtension,
	goalIdIn,
	lastGoal,
	settle,
} from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

async function goalThatFails(errorMessage: string, extra: object = {}) {
	harness = await createScriptedSession({
		extensions: [goalExtension()],
		responses: [providerError(errorMessage)],
		...extra,
	});
	await harness.prompt("/goal ship it");
	await settle(harness);
	return harness;
}

describe("unknown provider errors wait quietly", () => {
	it.each([
		["premature close", "Connection prematurely closed BEFORE response"],
		["authentication", "401 Unauthorized: invalid x-api-key"],
		["permission", "403 permission_error: not allowed to use this model"],
		["invalid request", "400 invalid_request_error: tools.0.name invalid"],
		["empty message", "400 messages: text content blocks must be non-empty"],
		["unrecognised account limit", "Your organisation is suspended"],
	])("%s waits as provider_error after one native attempt", async (_name, text) => {
		const h = await goalThatFails(text);
		expect(h.count("agent_end")).toBe(1);
		expect(h.providerCalls).toBe(1);
		expect(lastGoal(h)).toMatchObject({ status: "active", wait: { kind: "provider_error", resumeAt: null } });
	});

	it("blank error text still waits; the displayed detail says so", async () => {
		const h = await goalThatFails("");
		expect(lastGoal(h).wait).toMatchObject({
			kind: "provider_error",
			reason: "provider error: no error text",
		});
	});

	it("displayed detail is bounded and sanitised", async () => {
		const h = await goalThatFails(`\u001b[31mboom\u0007\u202e${"x".repeat(5000)}\n\tend`);
		const reason = lastGoal(h).wait?.reason ?? "";
		// biome-ignore lint/suspicious/noControlCharactersInRegex: asserting they are gone.
		expect(reason).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
		expect(reason.length).toBeLessThanOrEqual("provider error: ".length + MAX_DETAIL);
		expect(reason).toContain("boom");
	});

	it("unchanged native eligibility: Pi runs its full retry budget with pi-goal loaded", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			settings: { retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 } },
			responses: [retryableError(), retryableError(), retryableError()],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.count("agent_end")).toBe(3);
		expect(harness.providerCalls).toBe(3);
		expect(lastGoal(harness).wait?.kind).toBe("provider_retry");
	});

	it("disabled retries still end in quiet waiting without another request", async () => {
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			settings: { retry: { enabled: false, maxRetries: 0, baseDelayMs: 1 } },
			responses: [retryableError(), reply("never")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(harness.providerCalls).toBe(1);
		expect(lastGoal(harness).wait?.kind).toBe("provider_retry");
	});

	it("overflow wording without Pi's compaction events is not promoted to compaction recovery", async () => {
		// Nothing to compact in a tiny session: Pi emits no compaction event, so pi-goal infers nothing.
		const h = await goalThatFails(overflowError().errorMessage ?? "");
		expect(h.count("session_before_compact")).toBe(0);
		expect(lastGoal(h)).toMatchObject({ status: "active", wait: { kind: "provider_retry" } });
	});

	it("contract preservation: waiting and waking publish no new contract revision", async () => {
		const h = await goalThatFails("400 bad request");
		const before = contracts(h).length;
		h.script(completeGoalAfterWork());
		await h.prompt("try again");
		await settle(h);
		expect(goalIdIn(h.requests[1]?.messages ?? [])).toBe(lastGoal(h).id);
		// Only the inactive revision after completion is added.
		expect(contracts(h).length).toBe(before + 1);
	});

	it("cancellation: /goal pause stops a waiting goal, /goal clear removes it", async () => {
		const h = await goalThatFails("400 bad request");
		await h.prompt("/goal pause");
		expect(lastGoal(h)).toMatchObject({ status: "paused", pauseReason: "user" });
		await h.prompt("/goal clear");
		expect(h.session.sessionManager.getBranch().length).toBeGreaterThan(0);
		expect(lastGoal(h).status).toBeUndefined();
		expect(h.providerCalls).toBe(1);
	});

	it("helper availability is rechecked before publishing: lost goal tools pause instead of waiting", async () => {
		const control: { hide?: string[] } = {};
		harness = await createScriptedSession({
			extensions: [goalExtension(), allowlistExtension(control)],
			responses: [providerError("400 bad request")],
		});
		control.hide = ["goal_complete"];
		await harness.prompt("/goal ship it");
		await settle(harness);
		expect(lastGoal(harness)).toMatchObject({ status: "paused", pauseReason: "helpers-unavailable" });
	});

	it("supersession: a follow-up from another extension wakes provider-error waiting too", async () => {
		let api: ExtensionAPI | undefined;
		const h = await goalThatFails("400 bad request", {
			extensions: [
				goalExtension(),
				{
					name: "other",
					factory: (pi: ExtensionAPI) => {
						api = pi;
					},
				},
			],
		});
		const id = lastGoal(h).id;
		h.script(completeGoalAfterWork());
		api?.sendUserMessage("please retry");
		await settle(h);
		expect(lastGoal(h)).toMatchObject({ id, status: "complete" });
	});

	it("reload restores provider-error waiting without arming a timer or sending anything", async () => {
		const time = fakeTime();
		harness = await createScriptedSession({
			extensions: [goalExtension({ now: () => time.now, timers: time.timers })],
			responses: [providerError("400 bad request")],
		});
		await harness.prompt("/goal ship it");
		await settle(harness);
		await harness.reload();
		await settle(harness);
		expect(time.live()).toHaveLength(0);
		expect(harness.providerCalls).toBe(1);
		expect(lastGoal(harness).wait?.kind).toBe("provider_error");
	});
});
