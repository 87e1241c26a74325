/**
 * `goal-active`: what an active goal costs per turn in a long run. One tool-call run of 1,000
 * turns (a `new_context` every 25, so the context window stays small while the session grows),
 * each variant in its own child process (goal-active-child.ts, `node --expose-gc`), variants
 * alternating over repeats:
 *
 * - `goal`: all three extensions, started with `/goal …`, ended by `goal_complete`;
 * - `reset`: pi-reset alone, the same run as a plain prompt (the reference of the issue);
 * - `all`: all three, plain prompt (context: what the active goal itself adds).
 *
 * Per-turn time is the time between consecutive provider requests (the faux provider answers at
 * once, so it is Pi's and the extensions' work per turn), mean over the first and the last 100
 * turns; wall time and process CPU time (user + system) are both recorded. Figures: wall ratio
 * goal/reset in the last 100 turns (median over repeats), pi-goal entries added per turn, and the
 * retained heap after the run, goal minus reset.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { type Metric, metric } from "../lib/report.ts";
import { median, round } from "../lib/stats.ts";

const CHILD = join(import.meta.dirname, "goal-active-child.ts");
const MB = 1024 * 1024;
type Variant = "goal" | "reset" | "all";

interface ChildResult {
	variant: Variant;
	turns: number;
	requests: number;
	times: number[];
	cpu: number[];
	entries: number;
	byType: Record<string, number>;
	finalGoalStatus?: string;
	errors: string[];
	heapStart: number;
	heapEnd: number;
}

function child(variant: Variant, turns: number): ChildResult {
	const out = execFileSync(process.execPath, ["--expose-gc", CHILD, variant, String(turns)], {
		cwd: import.meta.dirname,
		encoding: "utf8",
		timeout: 600_000,
		maxBuffer: 16 * MB,
	});
	return JSON.parse(out.trim().split("\n").at(-1) as string) as ChildResult;
}

/** Mean ms per turn over turns [from, to) (turn i = request i to request i + 1). */
function perTurn(marks: readonly number[], from: number, to: number): number {
	return ((marks[to] as number) - (marks[from] as number)) / (to - from);
}

interface Segments {
	wallFirst: number;
	wallLast: number;
	cpuFirst: number;
	cpuLast: number;
}

function segments(run: ChildResult, window: number): Segments {
	const n = run.turns;
	return {
		wallFirst: perTurn(run.times, 0, window),
		wallLast: perTurn(run.times, n - window, n),
		cpuFirst: perTurn(run.cpu, 0, window),
		cpuLast: perTurn(run.cpu, n - window, n),
	};
}

function goalEntries(run: ChildResult): number {
	let count = 0;
	for (const [key, n] of Object.entries(run.byType)) if (key.includes(":pi-goal/")) count += n;
	return count;
}

/** See the module comment. */
export async function goalActive(smoke: boolean): Promise<Metric[]> {
	const turns = smoke ? 200 : 1_000;
	const window = smoke ? 50 : 100;
	const repeats = smoke ? 1 : 3;
	const runs: Record<Variant, ChildResult[]> = { goal: [], reset: [], all: [] };
	for (let i = 0; i < repeats; i++) {
		const order: Variant[] = i % 2 === 0 ? ["reset", "goal", "all"] : ["goal", "all", "reset"];
		for (const variant of order) runs[variant].push(child(variant, turns));
	}
	const seg = (variant: Variant) => runs[variant].map((run) => segments(run, window));
	const ratio = (key: keyof Segments, a: Variant, b: Variant) =>
		seg(a).map((s, i) => s[key] / (seg(b)[i] as Segments)[key]);
	const ms = (variant: Variant, key: keyof Segments) => round(median(seg(variant).map((s) => s[key])), 3);
	const last = ratio("wallLast", "goal", "reset");
	const goalRun = runs.goal.at(-1) as ChildResult;
	const resetRun = runs.reset.at(-1) as ChildResult;
	const perTurnEntries = goalEntries(goalRun) / turns;
	const heapDiffs = runs.goal.map((run, i) => (run.heapEnd - (runs.reset[i] as ChildResult).heapEnd) / MB);
	const growth = (variant: Variant) =>
		round(median(runs[variant].map((run) => (run.heapEnd - run.heapStart) / MB)), 2);
	const context = {
		turns,
		window,
		repeats,
		msPerTurn: Object.fromEntries(
			(["reset", "all", "goal"] as Variant[]).map((v) => [
				v,
				{
					wallFirst: ms(v, "wallFirst"),
					wallLast: ms(v, "wallLast"),
					cpuFirst: ms(v, "cpuFirst"),
					cpuLast: ms(v, "cpuLast"),
				},
			]),
		),
		wallRatioLastPerRepeat: last.map((r) => round(r, 3)),
		wallRatioFirst: round(median(ratio("wallFirst", "goal", "reset")), 3),
		cpuRatioLast: round(median(ratio("cpuLast", "goal", "reset")), 3),
		cpuRatioFirst: round(median(ratio("cpuFirst", "goal", "reset")), 3),
		activeGoalVsAllIdleWallLast: round(median(ratio("wallLast", "goal", "all")), 3),
		activeGoalVsAllIdleCpuLast: round(median(ratio("cpuLast", "goal", "all")), 3),
		requests: { goal: goalRun.requests, reset: resetRun.requests },
		finalGoalStatus: goalRun.finalGoalStatus,
		errors: [...goalRun.errors, ...resetRun.errors],
	};
	return [
		metric(
			"goal-active",
			`wall time per turn, last ${window} of ${turns} turns: /goal with all three vs pi-reset alone`,
			round(median(last), 3),
			"x",
			"<=",
			1.15,
			context,
		),
		metric(
			"goal-active-entries",
			`pi-goal session entries added per turn (${turns}-turn tool-call goal run)`,
			round(perTurnEntries, 4),
			"entries/turn",
			"<=",
			0.05,
			{
				piGoalEntries: Object.fromEntries(
					Object.entries(goalRun.byType).filter(([key]) => key.includes(":pi-goal/")),
				),
				sessionEntries: { goal: goalRun.entries, reset: resetRun.entries },
				entriesPerTurn: {
					goal: round(goalRun.entries / turns, 3),
					reset: round(resetRun.entries / turns, 3),
				},
			},
		),
		metric(
			"goal-active-heap",
			`retained heap after the ${turns}-turn run: /goal with all three minus pi-reset alone`,
			round(median(heapDiffs), 2),
			"MB",
			"<=",
			5,
			{
				diffsMB: heapDiffs.map((d) => round(d, 2)),
				growthDuringRunMB: { reset: growth("reset"), all: growth("all"), goal: growth("goal") },
			},
		),
	];
}
