/**
 * Per-turn handler time with 10,000 prior session entries vs 100: the three extensions' handlers
 * are timed through a proxy `pi` (every `pi.on` handler, including boundary handlers armed later),
 * per prompt of 10 tool-call turns; the figure is median(10k) / median(100). Context: the same
 * sessions without extensions run alongside, so with-minus-without wall time per turn at each size
 * (which also includes what Pi itself does because a handler exists) is reported too.
 *
 * Every handler runs slower in the big session even when it is O(1), so a control extension with
 * O(1) handlers on the same events runs in the same session; the figure divides by its slowdown
 * (the raw ratio is reported next to it). A whole-branch rescan would show as a 10-100× ratio.
 */

import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import {
	allExtensions,
	HandlerClock,
	type JscpdController,
	type NamedFactory,
	session,
	timed,
} from "../lib/extensions.ts";
import { historyFile } from "../lib/history.ts";
import { smallProject } from "../lib/project.ts";
import { type Metric, metric } from "../lib/report.ts";
import { median, nowMs, round } from "../lib/stats.ts";
import { promptSteps } from "../lib/turns.ts";

const PER_PROMPT = 10;
const MODEL = { id: "faux-model", contextWindow: 50_000_000, maxTokens: 16_000 };

interface Side {
	h: ScriptedSession;
	clock?: HandlerClock;
	wallMsPerTurn: number[];
}

/**
 * The control: O(1) handlers on the same hot events (a leaf lookup, the model, a fixed loop). Its
 * slowdown between the two sizes is the ambient factor (a larger heap, colder caches after Pi
 * clones the whole context each request), which O(1) extension code cannot avoid either.
 */
const control: NamedFactory = {
	name: "control",
	factory: (pi) => {
		const work = (_event: unknown, ctx: ExtensionContext) => {
			let x = ctx.sessionManager.getLeafEntry() ? 1 : 0;
			x += ctx.model?.contextWindow ?? 0;
			for (let i = 0; i < 200; i++) x = (x * 31 + i) % 1_000_003;
			return x < 0 ? undefined : undefined;
		};
		for (const event of [
			"context",
			"message_end",
			"tool_call",
			"tool_result",
			"before_agent_start",
			"agent_settled",
		] as const)
			pi.on(event as "context", work);
	},
};

async function open(cwd: string, entries: number, withExtensions: boolean): Promise<Side> {
	const clock = withExtensions ? new HandlerClock() : undefined;
	let controller: JscpdController | undefined;
	const extensions = clock
		? [...allExtensions((c) => (controller = c)), control].map((e) => timed(e, clock))
		: [];
	const h = await session(extensions, { cwd, model: MODEL, session: { open: historyFile(cwd, entries) } });
	await controller?.settled();
	return { h, clock, wallMsPerTurn: [] };
}

async function prompt(side: Side, p: number, record: boolean): Promise<void> {
	side.h.faux.appendResponses(promptSteps(PER_PROMPT, p));
	if (side.clock) {
		side.clock.enabled = record;
	}
	const start = nowMs();
	await side.h.prompt(`Task ${p}: read note.txt and report.`);
	const wall = nowMs() - start;
	if (side.clock) side.clock.enabled = false;
	if (!record) return;
	side.wallMsPerTurn.push(wall / PER_PROMPT);
}

/** See the module comment. */
export async function scaling(smoke: boolean): Promise<Metric[]> {
	const cwd = smallProject();
	const sizes = [100, smoke ? 1_000 : 10_000];
	const prompts = smoke ? 3 : 12;
	const sides: Side[] = [];
	for (const size of sizes) {
		sides.push(await open(cwd, size, true));
		sides.push(await open(cwd, size, false));
	}
	try {
		for (const side of sides) await prompt(side, 0, false);
		for (let p = 1; p <= prompts; p++) {
			const order = p % 2 === 0 ? sides : [...sides].reverse();
			for (const side of order) await prompt(side, p, true);
		}
	} finally {
		for (const side of sides) await side.h.dispose();
	}
	const [smallWith, smallNone, bigWith, bigNone] = sides as [Side, Side, Side, Side];
	// Per handler: median µs per call × calls per turn (a GC pause inside one call does not count).
	const perTurn = (side: Side) => {
		const turns = prompts * PER_PROMPT;
		const out: Record<string, number> = {};
		for (const [key, list] of side.clock?.samples ?? []) out[key] = (median(list) * list.length) / turns;
		return out;
	};
	const smallKeys = perTurn(smallWith);
	const bigKeys = perTurn(bigWith);
	const sumOf = (keys: Record<string, number>, ours: boolean) =>
		Object.entries(keys).reduce((a, [k, v]) => (k.startsWith("control:") === !ours ? a + v : a), 0);
	const small = sumOf(smallKeys, true);
	const big = sumOf(bigKeys, true);
	const ambient = sumOf(bigKeys, false) / sumOf(smallKeys, false);
	const perKeyRatio: Record<string, string> = {};
	for (const key of Object.keys(bigKeys))
		if ((bigKeys[key] as number) * 1000 >= 0.5)
			perKeyRatio[key] =
				`${round((bigKeys[key] as number) * 1000, 1)}µs/turn (${round((bigKeys[key] as number) / (smallKeys[key] ?? Number.NaN), 2)}×)`;
	const diff = (w: Side, n: Side) =>
		median(w.wallMsPerTurn.map((v, i) => v - (n.wallMsPerTurn[i] as number)));
	return [
		metric(
			"scaling",
			`per-turn handler time, ${sizes[1]} vs ${sizes[0]} prior entries (ratio, ambient-normalised)`,
			round(big / small / ambient, 3),
			"×",
			"<=",
			1.2,
			{
				rawRatio: round(big / small, 3),
				ambientFactorFromO1Control: round(ambient, 3),
				prompts,
				turnsPerPrompt: PER_PROMPT,
				handlerUsPerTurnSmall: round(small * 1000, 1),
				handlerUsPerTurnBig: round(big * 1000, 1),
				perHandlerBig: perKeyRatio,
				meanHandlerUsPerTurnSmall: round(
					((smallWith.clock?.total() ?? 0) * 1000) / (prompts * PER_PROMPT),
					1,
				),
				meanHandlerUsPerTurnBig: round(((bigWith.clock?.total() ?? 0) * 1000) / (prompts * PER_PROMPT), 1),
				wallMsPerTurnNoneSmall: round(median(smallNone.wallMsPerTurn), 3),
				wallMsPerTurnNoneBig: round(median(bigNone.wallMsPerTurn), 3),
				withMinusWithoutMsPerTurnSmall: round(diff(smallWith, smallNone), 3),
				withMinusWithoutMsPerTurnBig: round(diff(bigWith, bigNone), 3),
			},
		),
	];
}
