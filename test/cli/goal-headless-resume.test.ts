/**
 * pi-goal's headless contract across processes with the real `pi` CLI: a goal that waits beyond
 * the in-process bound exits 7 and stays waiting in the session; `pi -c -p "/goal resume"` continues
 * the same goal id and exits 0 with the summary; `/goal status` on the completed goal asks the
 * model nothing and exits 0 with the status on stdout.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPacked, type PackedInstall } from "../support/packed.js";
import { type PiRun, runPi } from "./run-pi.js";

const SCRIPT = fileURLToPath(new URL("./scripts/goal-audit-r3.mjs", import.meta.url));

let install: PackedInstall;
beforeAll(() => {
	install = installPacked(["pi-goal"]);
});
afterAll(() => install?.cleanup());

function pi(
	prompt: string,
	scenario: string,
	previous?: PiRun,
	mode: "text" | "json" = "text",
): Promise<PiRun> {
	return runPi({
		extensions: [install.extensions.find((ext) => ext.name === "pi-goal")?.packageDir ?? ""],
		script: SCRIPT,
		prompt,
		mode,
		...(previous ? { args: ["-c"], dirs: previous.dirs, cwd: previous.dirs.cwd } : {}),
		env: { PI_LIFECYCLE_GOAL_SCENARIO: scenario },
	});
}

describe('pi -c -p "/goal …": a goal continued in a later process', () => {
	it("waiting (exit 7), then /goal resume in the continued session completes the same goal (exit 0, summary on stdout); status asks nothing", async () => {
		const first = await pi("/goal Deploy it", "wait-far");
		try {
			expect(first.code, first.stderr).toBe(7);
			const id = /Goal (g-[0-9a-f]+) started/.exec(first.stderr)?.[1];
			expect(id).toBeDefined();

			const resumed = await pi("/goal resume", "resume-complete", first);
			expect(resumed.code, resumed.stderr).toBe(0);
			expect(resumed.stdout).toBe("Deployed and verified.\n");
			expect(resumed.stderr).toContain(`Goal ${id} resumed.`);
			expect(resumed.requests).toHaveLength(2);

			const status = await pi("/goal status", "none", first);
			expect(status.code, status.stderr).toBe(0);
			expect(status.requests).toHaveLength(0);
			expect(status.stdout).toContain(`Goal ${id}: complete`);

			const json = await pi("/goal status", "none", first, "json");
			expect(json.code, json.stderr).toBe(0);
			expect(json.events.filter((event) => event.type === "pi-goal/outcome")).toHaveLength(0);
		} finally {
			first.cleanup();
		}
	}, 240_000);
});
