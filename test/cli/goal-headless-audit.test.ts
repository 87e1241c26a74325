/**
 * Audit of the headless contract (issue 30) with the real `pi` CLI: when goal_complete comes beside
 * another tool call, Pi's loop makes one more request after the batch; its text answer is Pi's own
 * output. stdout must still be usable by a script: the summary is its last line.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installPacked, type PackedInstall } from "../support/packed.js";
import { type PiRun, runPi } from "./run-pi.js";

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

describe('pi -p "/goal …": goal_complete beside another tool call', () => {
	it("exit 0 and the summary is the last stdout line", async () => {
		const dir = install.extensions.find((ext) => ext.name === "pi-goal")?.packageDir ?? "";
		run = await runPi({
			extensions: [dir],
			script: SCRIPT,
			prompt: "/goal Do both parts",
			mode: "text",
			env: { PI_LIFECYCLE_GOAL_SCENARIO: "complete-batch" },
		});
		expect(run.code, run.stderr).toBe(0);
		// Pi's own print of the last text answer comes first (documented in the README).
		expect(run.stdout).toBe("All set: both parts are done.\nBoth parts done and verified.\n");
		expect(run.stdout.trim().split("\n").at(-1)).toBe("Both parts done and verified.");
	});
});
