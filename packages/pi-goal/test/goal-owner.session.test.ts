/**
 * One owner of goals per session (issue 35): beside another goal extension pi-goal decides before
 * anything of its own registers, stays dormant with one notice naming the other extension, never
 * lets Pi rename /goal, and never blames a tool allowlist when the cause is the other extension.
 * Our entries and messages are ours: another extension's `pi-goal/*` ones are left alone.
 */
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readContinuationDetails, readContractDetails } from "../src/core/contract.js";
import { type RestoreLookup, restoreBranch } from "../src/core/persistence.js";
import { otherToolsPeer, peerLog, sameToolsPeer } from "./goal-peers.js";
import { goalExtension, lastGoal, settle } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.restoreAllMocks();
});

/** Records the command names Pi shows (after every session_start handler ran). */
function commandNames(into: string[][]) {
	return {
		name: "command-probe",
		factory: (pi: ExtensionAPI) => {
			pi.on("agent_settled", () => {
				into.push(pi.getCommands().map((command) => command.name));
			});
		},
	};
}

function notices(errors: { mock: { calls: unknown[][] } }): string[] {
	return errors.mock.calls
		.flat()
		.map(String)
		.filter((text: string) => text.includes("off in this"));
}

describe("one owner of goals per session", () => {
	for (const order of ["other first", "pi-goal first"] as const)
		it(`another goal extension with other tool names and its own /goal (${order}): pi-goal stays dormant with one notice naming it, /goal is not renamed and reaches it`, async () => {
			const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
			const log = peerLog();
			const names: string[][] = [];
			const other = otherToolsPeer(log);
			const ours = goalExtension();
			harness = await createScriptedSession({
				extensions:
					order === "other first" ? [other, ours, commandNames(names)] : [ours, other, commandNames(names)],
				responses: [reply("working on it")],
			});
			await harness.prompt("/goal ship it");
			await settle(harness);
			expect(log.commands).toEqual(["ship it"]);
			expect(names.at(-1)?.filter((name) => name.startsWith("goal"))).toEqual(["goal"]);
			expect(notices(errors)).toHaveLength(1);
			expect(notices(errors)[0]).toContain("<inline:other-tools-goal>");
			expect(notices(errors)[0]).toContain("registers its own /goal command");
			// Its kickoff ran (nothing of ours aborted it) and nothing of ours was written.
			expect(log.aborted).toBe(0);
			expect(harness.providerCalls).toBe(1);
			expect(lastGoal(harness)).toEqual({});
			expect(harness.errors).toEqual([]);
		});

	it("the other extension takes over after ours registered: /goal says which extension handles goals, not a tool allowlist", async () => {
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		const log = peerLog();
		harness = await createScriptedSession({
			extensions: [goalExtension(), sameToolsPeer(log, { late: true })],
			responses: [reply("never")],
		});
		// Pi named both commands /goal:1 (ours, loaded first) and /goal:2 (its, registered later).
		await harness.prompt("/goal:1 ship it");
		await settle(harness);
		const said = errors.mock.calls.flat().map(String);
		expect(said.join("\n")).not.toMatch(/allowlist/);
		expect(notices(errors)).toHaveLength(1);
		expect(notices(errors)[0]).toContain("<inline:same-tools-goal>");
		expect(harness.providerCalls).toBe(0);
		// The same notice on the next try, and no goal of ours.
		await harness.prompt("/goal:1 ship it");
		expect(notices(errors).length).toBeGreaterThanOrEqual(2);
		expect(new Set(notices(errors)).size).toBe(1);
		expect(lastGoal(harness)).toEqual({});
	});
});

describe("our entries and messages are ours", () => {
	it("another extension's pi-goal/continuation prompt is not taken for a stale one of ours (its run is not aborted)", async () => {
		const log = peerLog();
		const other = otherToolsPeer(log, { command: false });
		harness = await createScriptedSession({
			extensions: [goalExtension(), other],
			responses: [reply("their work")],
		});
		// Its kickoff: a pi-goal/state entry and a pi-goal/continuation message of its own shape.
		other.start("theirs");
		await settle(harness);
		expect(log.aborted).toBe(0);
		expect(harness.providerCalls).toBe(1);
		expect(harness.events.filter((event) => event.type === "agent_settled").at(-1)).toMatchObject({
			event: { aborted: false },
		});
	});
});

describe("restore: our entries are ours", () => {
	it("restore skips another extension's pi-goal/state (not counted as malformed) and still reads our older unmarked entries", async () => {
		harness = await createScriptedSession({ extensions: [goalExtension()], responses: [reply("working")] });
		await harness.prompt("/goal ship it");
		await settle(harness);
		const sessionManager = harness.session.sessionManager;
		const ours = lastGoal(harness);
		const branch = sessionManager.getBranch();
		const newest = branch.filter((entry) => entry.type === "custom").at(-1) as {
			data?: Record<string, unknown>;
		};
		expect(newest.data?.owner).toBe("pi-lifecycle/pi-goal");
		// Another goal extension's state of its own shape, newest on the branch.
		sessionManager.appendCustomEntry("pi-goal/state", {
			id: "nj-1",
			objective: "theirs",
			status: "active",
			costUsed: 0,
		});
		let restored = restoreBranch(sessionManager as unknown as RestoreLookup);
		expect(restored.ignored).toBe(0);
		expect(restored.state.goal?.id).toBe(ours.id);
		// An entry an earlier version of ours wrote (no owner mark) is still ours.
		const { owner: _owner, ...older } = newest.data ?? {};
		sessionManager.appendCustomEntry("pi-goal/state", older);
		restored = restoreBranch(sessionManager as unknown as RestoreLookup);
		expect(restored.state.goal?.id).toBe(ours.id);
		expect(readContinuationDetails({ goalId: "nj-1", type: "dispatch_requested" })).toBeUndefined();
		expect(readContractDetails({ revision: 1, goalId: "g-1", active: true })).toMatchObject({ revision: 1 });
		expect(
			readContractDetails({ owner: "someone-else", revision: 1, goalId: "g-1", active: true }),
		).toBeUndefined();
	});

	it("a session whose goal state another goal extension wrote: pi-goal stays dormant in that session with one notice", async () => {
		const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
		// A session the other extension worked in (its state entry after a first exchange).
		const first = await createScriptedSession({ session: "file", responses: [reply("hello")] });
		await first.prompt("hi");
		first.session.sessionManager.appendCustomEntry("pi-goal/state", {
			id: "nj-1",
			objective: "theirs",
			status: "active",
		});
		// Kept outside the first session's temp dir (dispose removes it).
		const file = join(mkdtempSync(join(tmpdir(), "pi-goal-owner-")), "session.jsonl");
		copyFileSync(first.session.sessionManager.getSessionFile() ?? "", file);
		await first.dispose();
		harness = await createScriptedSession({
			extensions: [goalExtension()],
			session: { open: file },
			responses: [reply("x")],
		});
		expect(notices(errors)).toEqual([expect.stringContaining("written by another goal extension")]);
		await harness.prompt("/goal ship it");
		expect(harness.providerCalls).toBe(0);
		expect(notices(errors)).toHaveLength(2);
	});
});
