/**
 * The real `pi` CLI in json print mode, offline, with a scripted faux model: each extension alone
 * (from its packed tarball, through Pi's own loader) and all three together.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installPacked, type PackedInstall } from "../support/packed.js";
import { type PiRun, runPi } from "./run-pi.js";

const script = (name: string) => fileURLToPath(new URL(`./scripts/${name}`, import.meta.url));
const toolResults = (run: PiRun) =>
	run.events.filter((e) => e.type === "tool_execution_end") as {
		toolName?: string;
		result?: unknown;
		isError?: boolean;
	}[];

let install: PackedInstall;
let run: PiRun | undefined;
beforeAll(() => {
	install = installPacked(["pi-reset", "pi-goal", "pi-jscpd"]);
});
afterAll(() => install?.cleanup());
afterEach(() => {
	run?.cleanup();
	run = undefined;
});
const dir = (name: string) => install.extensions.find((ext) => ext.name === name)?.packageDir ?? "";

describe("real pi CLI, json mode", () => {
	it("pi-reset: new_context resets with no summarisation request and the fresh window carries the handoff", async () => {
		run = await runPi({
			extensions: [dir("pi-reset")],
			script: script("reset.mjs"),
			prompt: "start the task",
		});
		expect(run.code, run.stderr).toBe(0);
		expect(run.requests).toHaveLength(2);
		const fresh = JSON.stringify(run.requests[1]?.messages);
		expect(fresh).toContain("CLI-HANDOFF: continue with step two");
		expect(run.events.at(-1)).toMatchObject({ type: "agent_settled", aborted: false });
	});

	it("pi-goal: /goal in print mode runs the goal to goal_complete before the process exits", async () => {
		run = await runPi({
			extensions: [dir("pi-goal")],
			script: script("goal.mjs"),
			prompt: "/goal Do both parts",
		});
		expect(run.code, run.stderr).toBe(0);
		// A tool-free step (one continuation), a check with a command, goal_complete.
		expect(run.requests).toHaveLength(3);
		const complete = toolResults(run).find((e) => e.toolName === "goal_complete");
		expect(complete?.isError).toBe(false);
	});

	it("pi-jscpd: the model's jscpd_run scan reports the duplicate it wrote", async () => {
		run = await runPi({
			extensions: [dir("pi-jscpd")],
			script: script("jscpd.mjs"),
			prompt: "write two modules",
		});
		expect(run.code, run.stderr).toBe(0);
		const scan = toolResults(run).find((e) => e.toolName === "jscpd_run");
		expect(scan?.isError).toBe(false);
		expect(JSON.stringify(scan?.result)).toMatch(/src\/a\.ts/);
		expect(JSON.stringify(scan?.result)).toMatch(/src\/b\.ts/);
	});

	it("all three together: each extension's tool and command work in one CLI run", async () => {
		run = await runPi({
			extensions: [dir("pi-reset"), dir("pi-goal"), dir("pi-jscpd")],
			script: script("reset.mjs"),
			prompt: "start the task",
		});
		expect(run.code, run.stderr).toBe(0);
		expect(run.requests).toHaveLength(2);
		expect(run.stderr).not.toMatch(/error/i);
	});
});
