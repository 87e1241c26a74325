/**
 * Goal extensions side by side with the real `pi` CLI (the start-up case of issue 35's matrix):
 * beside another goal extension pi-goal decides before anything of its own registers. In either
 * load order Pi reports no load error and renames no /goal, the run goes on, pi-goal says once
 * which extension handles goals and how to switch, and `/goal` reaches the other extension.
 * Stand-ins: test/fixtures/peers/goal-*.ts.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installPacked, type PackedInstall } from "../support/packed.js";
import { type PiRun, runPi } from "./run-pi.js";

const peer = (name: string) => fileURLToPath(new URL(`../fixtures/peers/${name}.ts`, import.meta.url));
const SAME_TOOLS = peer("goal-same-tools");
const SAME_TOOLS_LATE = peer("goal-same-tools-late");
const OTHER_TOOLS = peer("goal-other-tools");
const COMPACT_MID_RUN = peer("goal-compact-mid-run");
const HELLO = fileURLToPath(new URL("./scripts/hello.mjs", import.meta.url));
const TOOL_THEN_COMPLETE = fileURLToPath(new URL("./scripts/goal-tool-then-complete.mjs", import.meta.url));

let install: PackedInstall;
let run: PiRun | undefined;
beforeAll(() => {
	install = installPacked(["pi-goal"]);
});
afterAll(() => install?.cleanup());
afterEach(() => {
	run?.cleanup();
	run = undefined;
});
const goalDir = () => install.extensions.find((ext) => ext.name === "pi-goal")?.packageDir ?? "";

function expectOneNotice(run: PiRun, other: string): void {
	expect(run.stderr).not.toMatch(/Failed to load extension|conflicts with|allowlist/);
	const notices = run.stderr.split("\n").filter((line) => line.includes("off in this Pi"));
	expect(notices).toHaveLength(1);
	expect(notices[0]).toContain(other);
	expect(notices[0]).toMatch(/handles goals and \/goal here\. To use pi-goal instead, remove that extension/);
}

describe("real pi CLI: pi-goal beside another goal extension", () => {
	for (const order of ["other first", "pi-goal first"] as const) {
		const load = (other: string) => (order === "other first" ? [other, goalDir()] : [goalDir(), other]);

		it(`same tool names (${order}): no load error, one notice naming the extension that handles goals, /goal reaches it`, async () => {
			run = await runPi({
				extensions: load(SAME_TOOLS),
				script: HELLO,
				prompt: "/goal ship it",
				mode: "text",
			});
			expect(run.code, run.stderr).toBe(0);
			expectOneNotice(run, SAME_TOOLS);
			expect(run.stderr).toContain("peer-goal handled /goal ship it");
		});

		it(`other tool names, its own /goal and pi-goal/* entries (${order}): /goal is not renamed and reaches it, its kickoff runs`, async () => {
			run = await runPi({ extensions: load(OTHER_TOOLS), script: HELLO, prompt: "/goal ship it" });
			expect(run.code, run.stderr).toBe(0);
			expectOneNotice(run, OTHER_TOOLS);
			expect(run.stderr).toContain("other-goal handled /goal ship it");
			expect(run.stderr).not.toContain("aborted a continuation");
		});

		it(`ctx.compact() in the middle of the goal's run (${order}): the goal continues after the compaction in the same goal id and completes (exit 0)`, async () => {
			run = await runPi({
				extensions: load(COMPACT_MID_RUN),
				script: TOOL_THEN_COMPLETE,
				prompt: "/goal ship it",
				mode: "text",
				agentFiles: { "settings.json": JSON.stringify({ compaction: { keepRecentTokens: 1 } }) },
			});
			expect(run.stderr).toContain("compact-mid-run: compaction completed");
			expect(run.code, run.stderr).toBe(0);
			expect(run.stdout).toContain("Checked; all verified.");
			const ids = run.requests.map(
				(request) => /Goal id: (g-[0-9a-f]+) \(active\)/.exec(JSON.stringify(request.messages))?.[1],
			);
			expect(ids).toHaveLength(2);
			expect(ids[1]).toBe(ids[0]);
		});
	}

	it("the other extension registers its goal tools and /goal later (at its session start, loaded after ours): /goal:1 names it, never a tool allowlist", async () => {
		run = await runPi({ extensions: [goalDir(), SAME_TOOLS_LATE], script: HELLO, prompt: "/goal:1 ship it" });
		// Ours (/goal:1) started no goal: the headless exit code for that (packages/pi-goal README).
		expect(run.code, run.stderr).toBe(2);
		expectOneNotice(run, SAME_TOOLS_LATE);
		expect(run.requests).toHaveLength(0);
	});

	it("a plain prompt runs normally beside the other extension (json mode)", async () => {
		run = await runPi({ extensions: [SAME_TOOLS, goalDir()], script: HELLO, prompt: "hi" });
		expect(run.code, run.stderr).toBe(0);
		expectOneNotice(run, SAME_TOOLS);
		expect(run.events.at(-1)).toMatchObject({ type: "agent_settled", aborted: false });
	});
});
