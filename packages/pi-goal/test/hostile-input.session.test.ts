/**
 * Hostile bus payloads through a real session: `pi-goal:start` and `pi-goal:cancel` with throwing
 * getters, proxies and revoked proxies start nothing and never throw into the bus. The readers
 * themselves: hostile-input.unit.test.ts.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { goalExtension, lastState } from "./helpers.js";
import { revoked, throwing } from "./hostile-values.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
});

describe("bus payload readers tolerate hostile payloads", () => {
	it("through the real session: hostile start and cancel payloads start nothing and never throw into the bus", async () => {
		const errors = vi.spyOn(console, "error").mockImplementation(() => {});
		const log: { ctx?: ExtensionContext; pi?: ExtensionAPI } = {};
		harness = await createScriptedSession({
			extensions: [
				{
					name: "runner",
					factory: (pi: ExtensionAPI) => {
						log.pi = pi;
						pi.on("session_start", (_event, ctx) => {
							log.ctx = ctx;
						});
					},
				},
				goalExtension({ settings: { managedRuns: true } }),
			],
			responses: [reply("unused")],
		});
		for (const payload of [throwing, revoked, { runId: "r", session: throwing, objective: throwing }]) {
			log.pi?.events.emit("pi-goal:start", payload);
			log.pi?.events.emit("pi-goal:cancel", payload);
		}
		log.pi?.events.emit("pi-goal:start", {
			get runId() {
				throw new Error("x");
			},
			objective: "x",
			session: log.ctx?.sessionManager,
		});
		await new Promise((resolve) => setTimeout(resolve, 0));
		expect(errors.mock.calls.filter((call) => String(call[0]).includes("Event handler error"))).toEqual([]);
		expect(lastState(harness)?.goal ?? null).toBeNull();
		expect(harness.providerCalls).toBe(0);
	});
});
