/**
 * `context-economics` (issue 32): what a long tool-heavy session sends to the model, for Pi alone
 * (native compaction, summaries answered by the faux model), pi-reset without masking and pi-reset
 * with masking (its default settings).
 *
 * Workload: 10 prompts × 20 tool turns (then an answer), alternating the built-in `read` of a
 * generated 2–8 KB file and `bash` `cat` of a 1–4 KB file; 128k-token window. A second workload has
 * larger outputs (reads of 6–20 KB, bash outputs of 3–10 KB). The model "ignores the checkpoint
 * warning": it never calls new_context, so resets come from Pi's threshold.
 *
 * Each request is serialised as the provider receives it (the system message with the prompt and
 * tool declarations, then every message; timestamps, usage and ids of the run dropped), one JSON
 * line per message. Figures per variant: input characters (sum over requests), cache-weighted
 * characters (the longest common prefix with the previous request at ×0.1, the rest at ×1.25, as
 * a provider's prompt cache bills them), the share of requests that repeat the previous request
 * whole as their prefix, and the summarisation calls (requests with Pi's summariser prompt).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AssistantMessage, Message } from "@earendil-works/pi-ai";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import piReset from "@pi-lifecycle/pi-reset";
import { HandlerClock, session, timed } from "../lib/extensions.ts";
import { tempDir } from "../lib/project.ts";
import { type Metric, metric } from "../lib/report.ts";
import { median, round } from "../lib/stats.ts";

const MODEL = { id: "faux-model", contextWindow: 128_000, maxTokens: 16_000 };
const PROMPTS = 10;
const TOOL_TURNS = 20;
const DROP = new Set(["timestamp", "usage", "responseId", "api", "provider", "model", "durationMs"]);
const SUMMARISER = "context summarization assistant";

interface Workload {
	readonly name: string;
	readonly read: readonly [number, number];
	readonly bash: readonly [number, number];
}

const STANDARD: Workload = { name: "standard", read: [2000, 8000], bash: [1000, 4000] };
const LARGE: Workload = { name: "large", read: [6000, 20000], bash: [3000, 10000] };

/** Deterministic pseudo-random sizes (the same files in every variant). */
function sizes(count: number, [min, max]: readonly [number, number], seed: number): number[] {
	let x = seed;
	return Array.from({ length: count }, () => {
		x = (x * 1103515245 + 12345) % 2147483648;
		return min + (x % (max - min + 1));
	});
}

function body(name: string, size: number): string {
	const lines: string[] = [];
	let length = 0;
	for (let i = 0; length < size; i++) {
		const line = `// ${name} line ${i}: export const value${i} = compute(${i}, "${name}") + offset;`;
		lines.push(line);
		length += line.length + 1;
	}
	return `${lines.join("\n")}\n`.slice(0, size);
}

/** A project with the files the workload reads. */
function project(workload: Workload): string {
	const dir = tempDir(`economics-${workload.name}`);
	mkdirSync(join(dir, "src"));
	mkdirSync(join(dir, "logs"));
	const total = PROMPTS * TOOL_TURNS;
	const reads = sizes(total / 2, workload.read, 7);
	const outputs = sizes(total / 2, workload.bash, 11);
	for (const [i, size] of reads.entries())
		writeFileSync(join(dir, "src", `module${i}.ts`), body(`module${i}`, size));
	for (const [i, size] of outputs.entries())
		writeFileSync(join(dir, "logs", `build${i}.log`), body(`build${i}`, size));
	return dir;
}

/** The scripted steps, in order: per prompt, 20 tool calls then an answer. */
function script(): AssistantMessage[] {
	const steps: AssistantMessage[] = [];
	for (let p = 0; p < PROMPTS; p++) {
		for (let t = 0; t < TOOL_TURNS; t++) {
			const n = (p * TOOL_TURNS + t) >> 1;
			steps.push(
				t % 2 === 0
					? toolCall("read", { path: `src/module${n}.ts` }, `Reading module ${n}.`)
					: toolCall("bash", { command: `cat logs/build${n}.log` }, `Checking build ${n}.`),
			);
		}
		steps.push(reply(`Prompt ${p} done: the modules read so far look consistent.`));
	}
	return steps;
}

function serialise(messages: readonly Message[]): string {
	return messages
		.map((m) => JSON.stringify(m, (key, value) => (DROP.has(key) ? undefined : value)))
		.join("\n");
}

function commonPrefix(a: string, b: string): number {
	const n = Math.min(a.length, b.length);
	let i = 0;
	while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
	return i;
}

/** What one variant sent. */
export interface Economics {
	requests: number;
	inputChars: number;
	cacheWeightedChars: number;
	prefixReuse: number;
	summaries: number;
	resets: number;
}

type Variant = { name: string; withReset: boolean; settings?: Record<string, unknown>; clock?: HandlerClock };

function writeResetSettings(settings: Record<string, unknown> | undefined): void {
	const dir = join(process.env.PI_CODING_AGENT_DIR as string, "pi-lifecycle");
	mkdirSync(dir, { recursive: true });
	const file = join(dir, "pi-reset.json");
	if (settings) writeFileSync(file, JSON.stringify(settings));
	else rmSync(file, { force: true });
}

/** Runs the workload once for a variant. */
export async function runVariant(cwd: string, variant: Variant): Promise<Economics> {
	writeResetSettings(variant.settings);
	const reset = { name: "pi-reset", factory: piReset };
	if (variant.clock) variant.clock.enabled = true;
	const h = await session(variant.withReset ? [variant.clock ? timed(reset, variant.clock) : reset] : [], {
		cwd,
		model: MODEL,
	});
	const steps = script();
	let next = 0;
	let previous = "";
	const totals: Economics = {
		requests: 0,
		inputChars: 0,
		cacheWeightedChars: 0,
		prefixReuse: 0,
		summaries: 0,
		resets: 0,
	};
	let compared = 0;
	const driver = (context: { messages: Message[] }) => {
		const text = serialise(context.messages);
		const shared = previous ? commonPrefix(previous, text) : 0;
		totals.requests++;
		totals.inputChars += text.length;
		totals.cacheWeightedChars += shared * 0.1 + (text.length - shared) * 1.25;
		if (previous) {
			compared++;
			if (shared === previous.length) totals.prefixReuse++;
		}
		previous = text;
		const system = JSON.stringify(context.messages[0] ?? "");
		if (system.includes(SUMMARISER)) {
			totals.summaries++;
			return reply("## Goal\nRead every module and check the builds.\n## Progress\nModules read so far.");
		}
		return steps[next++] ?? reply("Nothing left.");
	};
	try {
		for (let p = 0; p < PROMPTS; p++) {
			h.faux.appendResponses(Array.from({ length: TOOL_TURNS + 4 }, () => driver as never));
			await h.prompt(`Task ${p}: read the next modules and check their builds.`);
		}
		totals.resets = h.session.sessionManager.getBranch().filter((e) => e.type === "compaction").length;
	} finally {
		await h.dispose();
		writeResetSettings(undefined);
	}
	totals.prefixReuse = compared > 0 ? totals.prefixReuse / compared : 0;
	totals.cacheWeightedChars = Math.round(totals.cacheWeightedChars);
	return totals;
}

/**
 * The context hook's time per request (masking included) in the first and the last 50 requests of
 * the masked run: O(new messages + masked results) work shows as a small growth, a rescan of the
 * window per request as a large one.
 */
function hookTimes(clock: HandlerClock) {
	const samples = clock.samples.get("pi-reset:context") ?? [];
	const us = (list: number[]) => round(median(list) * 1000, 1);
	return {
		calls: samples.length,
		firstFiftyMedianUs: us(samples.slice(0, 50)),
		lastFiftyMedianUs: us(samples.slice(-50)),
	};
}

function summary(e: Economics) {
	return {
		requests: e.requests,
		inputMChars: round(e.inputChars / 1e6, 2),
		cacheWeightedMChars: round(e.cacheWeightedChars / 1e6, 2),
		prefixReuse: round(e.prefixReuse, 3),
		summaries: e.summaries,
		compactions: e.resets,
	};
}

/** Masking settings of a sweep row: keep N, step K, large outputs kept L turns. */
type SweepRow = readonly [number, number, number];

async function workloadFigures(workload: Workload, sweep: readonly SweepRow[]) {
	const cwd = project(workload);
	const alone = await runVariant(cwd, { name: "pi", withReset: false });
	const unmasked = await runVariant(cwd, { name: "reset", withReset: true, settings: { masking: false } });
	const clock = new HandlerClock();
	const masked = await runVariant(cwd, { name: "reset+masking", withReset: true, clock });
	const swept: Record<string, unknown> = {};
	for (const [keep, step, large] of sweep) {
		const e = await runVariant(cwd, {
			name: `N${keep}K${step}L${large}`,
			withReset: true,
			settings: { maskAfterTurns: keep, maskStepTurns: step, maskLargeAfterTurns: large },
		});
		swept[`N=${keep} K=${step} L=${large}`] = {
			...summary(e),
			cacheVsPi: round(e.cacheWeightedChars / alone.cacheWeightedChars, 3),
		};
	}
	rmSync(cwd, { recursive: true, force: true });
	return { alone, unmasked, masked, swept, hook: hookTimes(clock) };
}

/** See the module comment. */
export async function contextEconomics(smoke: boolean): Promise<Metric[]> {
	// Masking settings tried besides the defaults (how the defaults were chosen), on request only:
	// CONTEXT_ECONOMICS_SWEEP=1 (adds about a minute on a quiet machine).
	// The first row is the previous default (no size rule): the large workload missed with it.
	const sweep: SweepRow[] =
		smoke || !process.env.CONTEXT_ECONOMICS_SWEEP
			? []
			: [
					[5, 15, 5],
					[5, 15, 2],
					[3, 15, 3],
					[2, 12, 2],
					[1, 15, 1],
				];
	const metrics: Metric[] = [];
	for (const workload of smoke ? [STANDARD] : [STANDARD, LARGE]) {
		const { alone, unmasked, masked, swept, hook } = await workloadFigures(workload, sweep);
		const suffix = workload === STANDARD ? "" : `-${workload.name}`;
		const context = {
			workload: `${PROMPTS} prompts × ${TOOL_TURNS} tool turns; read ${workload.read.join("–")} chars, bash ${workload.bash.join("–")} chars; ${MODEL.contextWindow}-token window`,
			pi: summary(alone),
			reset: summary(unmasked),
			resetMasking: summary(masked),
			inputVsPi: {
				reset: round(unmasked.inputChars / alone.inputChars, 3),
				resetMasking: round(masked.inputChars / alone.inputChars, 3),
			},
			cacheVsPi: {
				reset: round(unmasked.cacheWeightedChars / alone.cacheWeightedChars, 3),
				resetMasking: round(masked.cacheWeightedChars / alone.cacheWeightedChars, 3),
			},
			contextHook: hook,
			...(Object.keys(swept).length > 0 ? { sweep: swept } : {}),
		};
		metrics.push(
			metric(
				`context-economics${suffix}`,
				`cache-weighted input, pi-reset with masking vs Pi alone (${workload.name} outputs)`,
				round(masked.cacheWeightedChars / alone.cacheWeightedChars, 3),
				"×",
				"<=",
				0.6,
				context,
			),
			metric(
				`context-economics-prefix${suffix}`,
				`requests that repeat the previous request as their prefix, with masking (${workload.name} outputs)`,
				round(masked.prefixReuse * 100, 1),
				"%",
				">=",
				90,
			),
			metric(
				`context-economics-summaries${suffix}`,
				`summarisation calls with pi-reset, masking off and on (${workload.name} outputs; Pi alone: ${alone.summaries})`,
				unmasked.summaries + masked.summaries,
				"",
				"==",
				0,
			),
		);
	}
	return metrics;
}

/** The project of a named workload (for sweeps run by hand). */
export function projectFor(name: "standard" | "large"): string {
	return project(name === "large" ? LARGE : STANDARD);
}
