/**
 * Each extension alone, loaded from its packed tarball through Pi's loader (its own module root
 * and its own copy of lifecycle-kit), doing the one thing its own suite proves in depth.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import {
	createScriptedSession,
	type DynamicStep,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { duplicatedFunction } from "../support/duplicates.js";
import { activeGoalId, texts } from "../support/model.js";
import { installPacked, type PackedInstall } from "../support/packed.js";

let install: PackedInstall | undefined;
let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	install?.cleanup();
	install = undefined;
});

describe("each extension alone, from its tarball", () => {
	it("pi-reset alone: new_context resets with no summarisation request and the next request holds only the handoff", async () => {
		install = installPacked(["pi-reset"]);
		harness = await createScriptedSession({
			extensionPaths: install.paths,
			responses: [reply("OLD-ANSWER"), toolCall("new_context", { handoff: "HANDOFF-NOTE" }), reply("fresh")],
		});
		await harness.prompt("first");
		await harness.prompt("second");
		expect(harness.providerCalls).toBe(3);
		const fresh = texts(harness.requests[2]?.messages ?? []).join("\n");
		expect(fresh).toContain("HANDOFF-NOTE");
		// The old window's answer may appear only inside pi-reset's mechanical digest (it quotes the last answer).
		expect(
			fresh.replace(/What the previous window did \(a mechanical digest\):[\s\S]*?\n\n/g, ""),
		).not.toContain("OLD-ANSWER");
		expect(harness.errors).toEqual([]);
	});

	it("pi-goal alone: a goal continues once after a tool-free reply and stops at goal_complete", async () => {
		install = installPacked(["pi-goal"]);
		const complete: DynamicStep = (context) =>
			fauxAssistantMessage(
				[
					fauxToolCall("goal_complete", {
						goal_id: activeGoalId(context.messages) ?? "missing",
						summary: "All parts done and checked.",
					}),
				],
				{ stopReason: "toolUse" },
			);
		harness = await createScriptedSession({
			extensionPaths: install.paths,
			// No tool work in the goal: the first goal_complete is asked about once, the second stops it.
			responses: [reply("Did the first part."), complete, complete],
		});
		await harness.prompt("/goal Do both parts");
		await harness.session.waitForIdle();
		expect(harness.providerCalls).toBe(3);
		const continued = (i: number) =>
			texts(harness?.requests[i]?.messages ?? []).filter((t) => /Continue working on goal/.test(t)).length;
		expect(continued(1)).toBe(1);
		expect(continued(2)).toBe(1);
		expect(texts(harness.requests[2]?.messages ?? []).join("\n")).toMatch(/no tool has run for this goal/);
		expect(
			harness.customEntries<{ state?: { goal?: { status?: string } } }>("pi-goal/state").at(-1)?.data?.state
				?.goal?.status,
		).toBe("complete");
		expect(harness.errors).toEqual([]);
	});

	it("pi-jscpd alone: a duplicate the model writes is reported once, quietly, and reaches the next request", async () => {
		install = installPacked(["pi-jscpd"]);
		harness = await createScriptedSession({
			extensionPaths: install.paths,
			responses: [
				toolCall("write", { path: "src/a.ts", content: duplicatedFunction("alpha") }),
				toolCall("write", { path: "src/b.ts", content: duplicatedFunction("beta") }),
				reply("Wrote both files."),
				reply("Noted the duplicate."),
			],
		});
		await harness.prompt("write the two modules");
		expect(existsSync(join(harness.cwd, "src", "b.ts"))).toBe(true);
		const findings = () =>
			harness?.session.sessionManager
				.getBranch()
				.filter((entry) => entry.type === "custom_message" && entry.customType === "pi-jscpd/findings") ?? [];
		await vi.waitFor(() => expect(findings()).toHaveLength(1), { timeout: 30_000, interval: 50 });
		// Quiet: no extra provider request was made for the finding.
		expect(harness.providerCalls).toBe(3);
		await harness.prompt("anything else?");
		expect(harness.providerCalls).toBe(4);
		expect(texts(harness.requests[3]?.messages ?? []).join("\n")).toMatch(/src\/a\.ts|src\/b\.ts/);
		expect(harness.errors).toEqual([]);
	});
});
