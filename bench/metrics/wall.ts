/**
 * Wall time of a 200-turn scripted session with tool calls (built-in read), all three extensions vs
 * none. Both sessions are open at once and their prompts (10 turns each) alternate, the order
 * flipping every prompt, so machine drift hits both sides alike. Each pair of prompts gives a ratio;
 * the figure is the median over all pairs of all repeats (robust to load spikes from other
 * processes on a shared machine). Per-repeat ratios of sums and process CPU-time ratios are context.
 * An untimed warm-up repeat runs first. Session setup (including pi-jscpd's background baseline
 * scan, awaited) is not timed.
 *
 * The floor (context, full runs): the same comparison with only the five tools the extensions must
 * register (their handlers never registered), and with five minimal tools of a stub extension. Pi
 * processes every declared tool before every request, so no extension that registers these tools
 * can be cheaper than that floor on an instant faux turn; see bench/README.md.
 */
import type { ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { allExtensions, type JscpdController, type NamedFactory, session } from "../lib/extensions.ts";
import { smallProject } from "../lib/project.ts";
import { type Metric, metric } from "../lib/report.ts";
import { median, nowMs, round } from "../lib/stats.ts";
import { promptSteps } from "../lib/turns.ts";
import { parseVariant, variantFactories } from "../profile/variants.ts";

const TURNS = 200;
const PER_PROMPT = 10;

interface Sample {
	wall: number;
	cpu: number;
}

async function timedPrompt(h: ScriptedSession, p: number): Promise<Sample> {
	h.faux.appendResponses(promptSteps(PER_PROMPT, p));
	const cpu = process.cpuUsage();
	const start = nowMs();
	await h.prompt(`Task ${p}: read note.txt and report.`);
	const used = process.cpuUsage(cpu);
	return { wall: nowMs() - start, cpu: (used.user + used.system) / 1000 };
}

/** One repeat: 200 turns per side, prompts alternating. Returns per-prompt samples. */
async function repeat(
	cwd: string,
	pick: (all: NamedFactory[]) => NamedFactory[],
): Promise<{ none: Sample[]; with: Sample[] }> {
	let controller: JscpdController | undefined;
	const base = await session([], { cwd });
	const other = await session(pick(allExtensions((c) => (controller = c))), { cwd });
	try {
		await controller?.settled();
		const none: Sample[] = [];
		const withExt: Sample[] = [];
		for (let p = 0; p < TURNS / PER_PROMPT; p++) {
			if (p % 2 === 0) {
				none.push(await timedPrompt(base, p));
				withExt.push(await timedPrompt(other, p));
			} else {
				withExt.push(await timedPrompt(other, p));
				none.push(await timedPrompt(base, p));
			}
		}
		for (const h of [base, other])
			if (h.faux.state.callCount !== TURNS)
				throw new Error(`expected ${TURNS} provider calls, got ${h.faux.state.callCount}`);
		return { none, with: withExt };
	} finally {
		await base.dispose();
		await other.dispose();
	}
}

const sum = (xs: Sample[], key: keyof Sample) => xs.reduce((a, s) => a + s[key], 0);

/** Paired comparison of a variant against no extensions. */
export async function compareWall(repeats: number, pick: (all: NamedFactory[]) => NamedFactory[]) {
	const cwd = smallProject();
	await repeat(cwd, pick);
	const pairRatios: number[] = [];
	const cpuRatios: number[] = [];
	const repeatRatios: number[] = [];
	const noneMs: number[] = [];
	const withMs: number[] = [];
	for (let i = 0; i < repeats; i++) {
		const r = await repeat(cwd, pick);
		r.none.forEach((s, p) => {
			pairRatios.push((r.with[p] as Sample).wall / s.wall);
			cpuRatios.push((r.with[p] as Sample).cpu / s.cpu);
		});
		repeatRatios.push(sum(r.with, "wall") / sum(r.none, "wall"));
		noneMs.push(sum(r.none, "wall"));
		withMs.push(sum(r.with, "wall"));
	}
	return {
		ratio: median(pairRatios),
		context: {
			repeats,
			pairs: pairRatios.length,
			perRepeatRatioOfSums: repeatRatios.map((x) => round(x, 3)),
			medianCpuTimeRatio: round(median(cpuRatios), 4),
			medianNoneMsPer200Turns: round(median(noneMs), 1),
			medianWithMsPer200Turns: round(median(withMs), 1),
		},
	};
}

/** See the module comment. */
export async function wallTime(smoke: boolean): Promise<Metric[]> {
	const all = await compareWall(smoke ? 1 : 8, (x) => x);
	const context: Record<string, unknown> = { ...all.context };
	if (!smoke) {
		// Each extension alone, for locating a miss (fewer repeats; context only).
		for (const name of ["pi-reset", "pi-goal", "pi-jscpd"]) {
			const one = await compareWall(3, (x) => x.filter((e) => e.name === name));
			context[`${name}AloneRatio`] = round(one.ratio, 4);
		}
		// The floor: what Pi's per-request tool handling alone costs (see the module comment).
		const toolsOnly = await compareWall(6, () => variantFactories(parseVariant("all/drop:*:*")));
		context.floorRequiredToolsOnlyRatio = round(toolsOnly.ratio, 4);
		context.floorRequiredToolsOnlyCpuRatio = toolsOnly.context.medianCpuTimeRatio;
		const minimal = await compareWall(6, () => variantFactories(parseVariant("minimal-tools")));
		context.floorFiveMinimalToolsRatio = round(minimal.ratio, 4);
		context.floorFiveMinimalToolsCpuRatio = minimal.context.medianCpuTimeRatio;
	}
	const wall = metric(
		"wall-200",
		"200-turn session wall time, all three vs none (median paired ratio)",
		round(all.ratio, 4),
		"×",
		"<=",
		1.03,
		context,
	);
	const floor = context.floorRequiredToolsOnlyRatio;
	if (!wall.pass && typeof floor === "number")
		wall.note = `floor ${floor} × with only the five required tools and no handlers; five minimal tools ${context.floorFiveMinimalToolsRatio} ×; see bench/README.md`;
	return [wall];
}
