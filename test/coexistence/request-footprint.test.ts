/**
 * Issue 20, on whichever host the suite runs against (the dev pin, and Pi 1.3.0 with
 * PI_LIFECYCLE_HOST=1.3.0): the bytes all three packed extensions add to the first provider
 * request, serialised as the provider receives it (system prompt, every tool declaration, the
 * messages; timestamps and usage dropped as bench/metrics/footprint.ts does), stay within 1,400 (1,200 before issue 32 added context_recall),
 * add no system-prompt line, and are the same on the second request (stable declarations).
 */
import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hostVersion } from "../../vitest.shared.js";
import { type ExtensionName, installPacked, type PackedInstall } from "../support/packed.js";

const ALL: ExtensionName[] = ["pi-reset", "pi-goal", "pi-jscpd"];
const OURS = ["new_context", "context_recall", "goal_complete", "goal_blocked", "goal_wait", "jscpd_run"];
const DROP = new Set(["timestamp", "usage", "responseId"]);
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

type SystemMessage = { role: string; sections?: Record<string, string>; toolsAdded?: { name: string }[] };

/** Serialised bytes of the two requests and the system prompt text of the first. */
async function requests(paths: string[], cwd: string) {
	harness = await createScriptedSession({ extensionPaths: paths, cwd, recorder: false });
	const sizes: number[] = [];
	const declarations: string[] = [];
	let prompt = "";
	const capture = (context: { messages: unknown[] }) => {
		sizes.push(JSON.stringify(context, (key, value) => (DROP.has(key) ? undefined : value)).length);
		const system = context.messages.filter((m) => (m as SystemMessage).role === "system") as SystemMessage[];
		declarations.push(
			JSON.stringify(system.flatMap((m) => m.toolsAdded ?? []).filter((t) => OURS.includes(t.name))),
		);
		if (!prompt) prompt = system.map((m) => Object.values(m.sections ?? {}).join("\n")).join("\n");
		return reply("answer");
	};
	harness.faux.appendResponses([capture as never, capture as never]);
	await harness.prompt("What does this project do?");
	await harness.prompt("And what next?");
	await harness.dispose();
	harness = undefined;
	return { sizes, declarations, prompt };
}

describe(`request footprint on Pi ${hostVersion} (issue 20)`, () => {
	it("all three add at most 1,400 bytes to every request, no system-prompt line, with the same declarations on every request", async () => {
		const { mkdtempSync } = await import("node:fs");
		const { tmpdir } = await import("node:os");
		const { join } = await import("node:path");
		const cwd = mkdtempSync(join(tmpdir(), "pi-lifecycle-footprint-"));
		const none = await requests([], cwd);
		const all = await requests(install.paths, cwd);
		const added = all.sizes.map((size, i) => size - (none.sizes[i] ?? Number.NaN));
		console.log(`request footprint on Pi ${hostVersion}: ${added.join(", ")} bytes added`);
		expect(added[0]).toBeLessThanOrEqual(1_400);
		// The rest of a request varies by a byte or two (ids, durations); our declarations do not.
		expect(added[1]).toBeLessThanOrEqual(1_400);
		expect(all.declarations).toHaveLength(2);
		expect(all.declarations[1]).toBe(all.declarations[0]);
		expect(
			JSON.parse(all.declarations[0] ?? "[]")
				.map((t: { name: string }) => t.name)
				.sort(),
		).toEqual([...OURS].sort());
		expect(all.prompt).toBe(none.prompt);
	});
});
