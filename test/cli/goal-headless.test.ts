/**
 * pi-goal's headless contract with the real `pi` CLI (packed tarball, Pi's own loader): `pi -p
 * "/goal …"` prints the completion summary on stdout and exits 0 only when the goal completed;
 * every other end has its own exit code and its status on stderr; `--mode json` ends with one
 * `pi-goal/outcome` line; a near `goal_wait` deadline is waited for in-process, a far one exits 7.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installPacked, type PackedInstall } from "../support/packed.js";
import { type PiRun, type RunPiOptions, runPi } from "./run-pi.js";

const SCRIPT = fileURLToPath(new URL("./scripts/goal-stops.mjs", import.meta.url));

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

function goal(scenario: string, options: Partial<RunPiOptions> = {}): Promise<PiRun> {
	const dir = install.extensions.find((ext) => ext.name === "pi-goal")?.packageDir ?? "";
	return runPi({
		extensions: [dir],
		script: SCRIPT,
		prompt: "/goal Do both parts",
		mode: "text",
		...options,
		env: { PI_LIFECYCLE_GOAL_SCENARIO: scenario, ...options.env },
	});
}

/** The last stdout line, parsed (json mode). */
function lastLine(stdout: string): Record<string, unknown> {
	const lines = stdout.trim().split("\n");
	return JSON.parse(lines.at(-1) ?? "{}") as Record<string, unknown>;
}

describe('pi -p "/goal …": the headless contract', () => {
	it("completed: the summary alone on stdout, exit 0", async () => {
		run = await goal("complete");
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toBe("Both parts done and verified.\n");
		expect(run.stderr).not.toMatch(/error/i);
	});

	it("blocked: exit 3, nothing on stdout, the reason and the next step on stderr", async () => {
		run = await goal("blocked");
		expect(run.code).toBe(3);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("blocked");
		expect(run.stderr).toContain("Need the API key.");
		expect(run.stderr).toMatch(/Next: .*\/goal resume/);
	});

	it("paused by the response limit: exit 4, the reason in plain words on stderr", async () => {
		run = await goal("progress", {
			agentFiles: { "pi-lifecycle/pi-goal.json": JSON.stringify({ automaticTurns: 2 }) },
		});
		expect(run.code, run.stderr).toBe(4);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("paused: it used its 2 responses");
		expect(run.stderr).not.toMatch(/automatic-turns|budget_limited/);
	});

	it("a stuck model (the same failing command) is paused by the stuck detector: exit 4 within 8 requests", async () => {
		run = await goal("stuck");
		expect(run.code, run.stderr).toBe(4);
		expect(run.requests.length).toBeLessThanOrEqual(8);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("`cat missing-config.json` failed 4 times in a row");
	});

	it("budget limit: exit 5", async () => {
		run = await goal("progress", { prompt: "/goal --tokens 1k Do both parts" });
		expect(run.code, run.stderr).toBe(5);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("token budget is used up");
	});

	it("usage limit: exit 6 (not Pi's generic 1 for the failed request)", async () => {
		run = await goal("usage-limit");
		expect(run.code, run.stderr).toBe(6);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("usage limit");
	});

	it("waiting for a deadline beyond the in-process bound: exit 7 at once, one request", async () => {
		run = await goal("wait-far");
		expect(run.code, run.stderr).toBe(7);
		expect(run.requests).toHaveLength(1);
		expect(run.stdout).toBe("");
		expect(run.stderr).toContain("the nightly build");
		expect(run.elapsedMs).toBeLessThan(60_000);
	});

	it("waiting for a deadline within the bound: waits in-process, wakes, completes, exit 0", async () => {
		run = await goal("wait-near", { timeoutMs: 90_000 });
		expect(run.code, run.stderr).toBe(0);
		// goal_wait, then after the wake a check of the deploy and goal_complete.
		expect(run.requests).toHaveLength(3);
		expect(run.elapsedMs).toBeGreaterThanOrEqual(10_000);
		expect(run.stdout).toBe("Both parts done and verified.\n");
	});

	it("a /goal that starts nothing (malformed) exits 2", async () => {
		run = await goal("complete", { prompt: "/goal --tokens nope Do it" });
		expect(run.code).toBe(2);
		expect(run.requests).toHaveLength(0);
	});
});

describe('pi --mode json -p "/goal …": one final outcome line', () => {
	it("completed: the last stdout line is the outcome with the summary, exit 0", async () => {
		run = await goal("complete", { mode: "json" });
		expect(run.code, run.stderr).toBe(0);
		expect(lastLine(run.stdout)).toMatchObject({
			type: "pi-goal/outcome",
			outcome: "complete",
			exitCode: 0,
			summary: "Both parts done and verified.",
		});
		expect(run.events.filter((event) => event.type === "pi-goal/outcome")).toHaveLength(1);
	});

	it("blocked: the last line says blocked with exit code 3, and the process exits 3", async () => {
		run = await goal("blocked", { mode: "json" });
		expect(run.code).toBe(3);
		expect(lastLine(run.stdout)).toMatchObject({
			type: "pi-goal/outcome",
			outcome: "blocked",
			exitCode: 3,
			state: "blocked",
			summary: "Need the API key. (evidence: 401 from the API)",
		});
	});

	it("paused by the stuck detector: exit 4, the outcome line says what repeated", async () => {
		run = await goal("stuck", { mode: "json" });
		expect(run.code, run.stderr).toBe(4);
		expect(lastLine(run.stdout)).toMatchObject({
			type: "pi-goal/outcome",
			outcome: "paused",
			exitCode: 4,
			state: "paused: its work repeated itself",
			reason: expect.stringContaining("`cat missing-config.json` failed 4 times in a row"),
		});
	});
});
