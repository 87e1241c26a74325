/**
 * `goal-runaway` (issue 30): the stuck/progress corpus of pi-goal (packages/pi-goal/test/stuck-corpus)
 * through Pi's real AgentSession with the faux provider and the BUILT pi-goal at default settings.
 * Per scenario: requests until the goal stopped and tokens spent. Targets: every stuck scenario is
 * paused within 8 requests; no progress scenario is stopped before it finishes (its goal completes).
 * Runs in seconds (no processes: a scripted workspace answers the tool calls).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPiGoal } from "@pi-lifecycle/pi-goal";
import { runScenario } from "../../packages/pi-goal/test/stuck-corpus/run-scenario.ts";
import { PROGRESS, STUCK } from "../../packages/pi-goal/test/stuck-corpus/scenarios.ts";
import { type Metric, metric } from "../lib/report.ts";

const MAX_STUCK_REQUESTS = 8;

/** See the module comment. */
export async function goalRunaway(_smoke: boolean): Promise<Metric[]> {
	// Default settings: an empty agent dir of its own (no pi-goal.json).
	const agentDir = mkdtempSync(join(tmpdir(), "pi-goal-runaway-"));
	const goal = (clock: Parameters<typeof createPiGoal>[0]) => createPiGoal({ ...clock, agentDir });
	const stuck: Record<string, { requests: number; tokens: number; reason?: string }> = {};
	for (const scenario of STUCK) {
		const run = await runScenario(scenario, goal);
		stuck[scenario.name] = { requests: run.requests, tokens: run.tokens, reason: run.pauseReason };
	}
	const progress: Record<string, { requests: number; tokens: number; status?: string }> = {};
	for (const scenario of PROGRESS) {
		const run = await runScenario(scenario, goal);
		progress[scenario.name] = { requests: run.requests, tokens: run.tokens, status: run.status };
	}
	const worst = Math.max(...Object.values(stuck).map((run) => run.requests));
	const stoppedEarly = Object.values(progress).filter((run) => run.status !== "complete").length;
	const stuckTokens = Object.values(stuck).reduce((sum, run) => sum + run.tokens, 0);
	return [
		metric(
			"goal-runaway.stuckRequestsMax",
			"stuck scenarios: most requests until the goal paused",
			worst,
			"requests",
			"<=",
			MAX_STUCK_REQUESTS,
			{ perScenario: stuck, stuckTokensTotal: stuckTokens },
		),
		metric(
			"goal-runaway.progressStopped",
			"progress scenarios stopped before they finished",
			stoppedEarly,
			"scenarios",
			"==",
			0,
			{ perScenario: progress },
		),
	];
}
