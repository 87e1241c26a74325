/**
 * Profile driver for the `wall-200` figure: runs the wall scenario (200 turns = 20 prompts of 9
 * built-in `read` calls + an answer, faux provider) in-process for variants (see variants.ts).
 *
 *   node profile/drive.ts count <spec>                    per-turn handler calls, sync handler time,
 *                                                         session writes, footer updates, timers, clones
 *   node profile/drive.ts ab <specA> <specB> [--repeats N] [--latency ms]
 *                                                         paired wall/CPU comparison (like wall.ts)
 *   node profile/drive.ts cpuprof <specA> <specB> [--repeats N] [--out dir]
 *                                                         V8 CPU profiles of the timed turns only
 *                                                         (inspector, 100 µs sampling), alternating
 *
 *   node profile/drive.ts emitcost <spec…>                Pi's dispatch cost per event type (ns per
 *                                                         emit, same fake events for each spec;
 *                                                         use stubbed specs so no handler does work)
 *
 * Session setup (pi-jscpd's baseline scan included) is never measured; an untimed warm-up session
 * per variant runs first. Run through pnpm (Node 22), after building the packages.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-lifecycle-profile-agent-"));

const { delayedSteps } = await import("./latency.ts");
const { HandlerCounter, parseVariant, variantFactories } = await import("./variants.ts");
const { session } = await import("../lib/extensions.ts");
const { smallProject } = await import("../lib/project.ts");
const { watchHostCalls } = await import("./host-calls.ts");
const { median, nowMs, round } = await import("../lib/stats.ts");
const { promptSteps } = await import("../lib/turns.ts");
type ScriptedSession = import("@pi-lifecycle/lifecycle-kit/testing").ScriptedSession;
type Variant = import("./variants.ts").Variant;
type HandlerCounterT = import("./variants.ts").HandlerCounter;

const TURNS = 200;
const PER_PROMPT = 10;
const PROMPTS = TURNS / PER_PROMPT;

function flag(name: string, fallback: number): number {
	const i = process.argv.indexOf(name);
	return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function open(variant: Variant, cwd: string, counter?: HandlerCounterT): Promise<ScriptedSession> {
	let settled: (() => Promise<void>) | undefined;
	const h = await session(
		variantFactories(variant, counter, (c) => {
			settled = () => c.settled();
		}),
		{ cwd },
	);
	await settled?.();
	return h;
}

async function prompt(h: ScriptedSession, p: number, latencyMs = 0): Promise<{ wall: number; cpu: number }> {
	const steps = promptSteps(PER_PROMPT, p);
	h.faux.appendResponses(latencyMs > 0 ? delayedSteps(steps, latencyMs) : steps);
	const cpu = process.cpuUsage();
	const start = nowMs();
	await h.prompt(`Task ${p}: read note.txt and report.`);
	const used = process.cpuUsage(cpu);
	return { wall: nowMs() - start, cpu: (used.user + used.system) / 1000 };
}

async function runAll(h: ScriptedSession): Promise<void> {
	for (let p = 0; p < PROMPTS; p++) await prompt(h, p);
}

/** Counts per turn: handler calls, their sync time, and host side effects. */
async function count(spec: string): Promise<void> {
	const variant = parseVariant(spec);
	const cwd = smallProject();
	const counter = new HandlerCounter();
	const h = await open(variant, cwd, counter);
	const calls = watchHostCalls(h, /^append/);
	counter.enabled = true;
	calls.on = true;
	const t = nowMs();
	await runAll(h);
	const wall = nowMs() - t;
	calls.on = false;
	counter.enabled = false;
	await h.dispose();
	const perTurn = (n: number) => round(n / TURNS, 3);
	const handlers = [...counter.calls].map(([k, n]) => ({
		handler: k,
		callsPerTurn: perTurn(n),
		syncUsPerCall: round(((counter.syncMs.get(k) ?? 0) / n) * 1000, 2),
		syncUsPerTurn: round(((counter.syncMs.get(k) ?? 0) / TURNS) * 1000, 2),
	}));
	const totalSyncUs = handlers.reduce((a, x) => a + x.syncUsPerTurn, 0);
	console.log(
		JSON.stringify(
			{
				spec,
				wallMsPer200Turns: round(wall, 1),
				registrations: Object.fromEntries(counter.registrations),
				handlers,
				totalHandlerSyncUsPerTurn: round(totalSyncUs, 2),
				sessionEventsPerTurn: Object.fromEntries([...calls.events].map(([k, n]) => [k, perTurn(n)])),
				effectsPerTurn: Object.fromEntries([...calls.effects].map(([k, n]) => [k, perTurn(n)])),
			},
			null,
			1,
		),
	);
}

/** Paired comparison, alternating prompt by prompt with the order flipping (as wall.ts). */
async function ab(specA: string, specB: string): Promise<void> {
	const repeats = flag("--repeats", 4);
	const latency = flag("--latency", 0);
	const a = parseVariant(specA);
	const b = parseVariant(specB);
	const cwd = smallProject();
	const ratios: number[] = [];
	const cpuRatios: number[] = [];
	const diffUsPerTurn: number[] = [];
	const cpuDiffUsPerTurn: number[] = [];
	const sums: { a: number; b: number; aCpu: number; bCpu: number }[] = [];
	for (let r = -1; r < repeats; r++) {
		const ha = await open(a, cwd);
		const hb = await open(b, cwd);
		const s = { a: 0, b: 0, aCpu: 0, bCpu: 0 };
		for (let p = 0; p < PROMPTS; p++) {
			const order = p % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
			const got: Record<string, { wall: number; cpu: number }> = {};
			for (const side of order) got[side] = await prompt(side === "a" ? ha : hb, p, latency);
			const ga = got.a as { wall: number; cpu: number };
			const gb = got.b as { wall: number; cpu: number };
			if (r >= 0) {
				ratios.push(gb.wall / ga.wall);
				cpuRatios.push(gb.cpu / ga.cpu);
				diffUsPerTurn.push(((gb.wall - ga.wall) / PER_PROMPT) * 1000);
				cpuDiffUsPerTurn.push(((gb.cpu - ga.cpu) / PER_PROMPT) * 1000);
				s.a += ga.wall;
				s.b += gb.wall;
				s.aCpu += ga.cpu;
				s.bCpu += gb.cpu;
			}
		}
		await ha.dispose();
		await hb.dispose();
		if (r >= 0) sums.push(s);
	}
	const aMs = median(sums.map((s) => s.a));
	const bMs = median(sums.map((s) => s.b));
	const overheadUs = median(diffUsPerTurn);
	console.log(
		JSON.stringify({
			a: specA,
			b: specB,
			latencyMsPerRequest: latency,
			repeats,
			medianPairRatio: round(median(ratios), 4),
			medianCpuRatio: round(median(cpuRatios), 4),
			ratioOfSums: sums.map((s) => round(s.b / s.a, 3)),
			medianAMsPer200Turns: round(aMs, 1),
			medianBMsPer200Turns: round(bMs, 1),
			medianAMsPerTurn: round(aMs / TURNS, 3),
			medianWallOverheadUsPerTurn: round(overheadUs, 1),
			medianCpuOverheadUsPerTurn: round(median(cpuDiffUsPerTurn), 1),
			// The same absolute overhead next to a model that takes L ms per request.
			projectedRatioAt: Object.fromEntries(
				[50, 200, 500, 2000].map((l) => [`${l}ms`, round((bMs / TURNS + l) / (aMs / TURNS + l), 5)]),
			),
		}),
	);
}

/** CPU profiles of the timed turns, alternating variants session by session. */
async function cpuprof(specs: string[]): Promise<void> {
	const repeats = flag("--repeats", 3);
	const outIndex = process.argv.indexOf("--out");
	const out = outIndex >= 0 ? (process.argv[outIndex + 1] as string) : join(import.meta.dirname, "out");
	mkdirSync(out, { recursive: true });
	const cwd = smallProject();
	const inspector = new Session();
	inspector.connect();
	await inspector.post("Profiler.enable");
	await inspector.post("Profiler.setSamplingInterval", { interval: 100 });
	for (const spec of specs) {
		const h = await open(parseVariant(spec), cwd);
		await runAll(h);
		await h.dispose();
	}
	for (let r = 0; r < repeats; r++) {
		for (const spec of r % 2 === 0 ? specs : [...specs].reverse()) {
			const h = await open(parseVariant(spec), cwd);
			await inspector.post("Profiler.start");
			const t = nowMs();
			await runAll(h);
			const wall = nowMs() - t;
			const { profile } = await inspector.post("Profiler.stop");
			await h.dispose();
			const file = join(out, `${spec.replace(/[^a-z0-9+-]+/gi, "_")}.${r}.cpuprofile`);
			writeFileSync(file, JSON.stringify(profile));
			console.error(`${spec} repeat ${r}: ${round(wall, 1)} ms → ${file}`);
		}
	}
	inspector.disconnect();
}

/** ns per dispatch of Pi's per-turn events, for each spec (stub the handlers: only Pi's cost is left). */
async function emitcost(specs: string[]): Promise<void> {
	const cwd = smallProject();
	const out: Record<string, Record<string, number>> = {};
	const message = { role: "assistant", content: [{ type: "text", text: "x" }], timestamp: 1 };
	const toolCall = { type: "toolCall", id: "t1", name: "read", arguments: { path: "note.txt" } };
	const result = { content: [{ type: "text", text: "note" }], details: {} };
	for (let round = 0; round < 2; round++) {
		for (const spec of specs) {
			const h = await open(parseVariant(spec), cwd);
			const s = h.session as unknown as {
				extensionRunner: { emit(e: unknown): Promise<unknown>; emitMessageEnd(e: unknown): Promise<unknown> };
				_beforeToolCall(c: unknown): Promise<unknown>;
				_afterToolCall(c: unknown): Promise<unknown>;
			};
			const runner = s.extensionRunner;
			const cases: [string, () => Promise<unknown>][] = [
				["turn_start", () => runner.emit({ type: "turn_start", turnIndex: 0, timestamp: 1 })],
				["message_start", () => runner.emit({ type: "message_start", message })],
				["message_update", () => runner.emit({ type: "message_update", message, assistantMessageEvent: {} })],
				["message_end", () => runner.emitMessageEnd({ type: "message_end", message })],
				[
					"tool_execution_end",
					() =>
						runner.emit({
							type: "tool_execution_end",
							toolCallId: "t1",
							toolName: "read",
							result,
							isError: false,
						}),
				],
				["tool_call (session hook)", () => s._beforeToolCall({ toolCall, args: { path: "note.txt" } })],
				[
					"tool_result (session hook)",
					() => s._afterToolCall({ toolCall, args: { path: "note.txt" }, result, isError: false }),
				],
			];
			const row: Record<string, number> = {};
			for (const [name, run] of cases) {
				const n = 20_000;
				for (let i = 0; i < 2_000; i++) await run();
				const samples: number[] = [];
				for (let b = 0; b < 5; b++) {
					const t = process.hrtime.bigint();
					for (let i = 0; i < n; i++) await run();
					samples.push(Number(process.hrtime.bigint() - t) / n);
				}
				row[name] = Math.round(median(samples));
			}
			await h.dispose();
			if (round === 1) out[spec] = row;
		}
	}
	console.log(JSON.stringify(out, null, 1));
}

const [mode, ...rest] = process.argv.slice(2);
const specs = rest.filter((x, i) => !x.startsWith("--") && !(rest[i - 1] ?? "").startsWith("--"));
if (mode === "count") await count(specs[0] ?? "all");
else if (mode === "ab") await ab(specs[0] ?? "none", specs[1] ?? "all");
else if (mode === "cpuprof") await cpuprof(specs.length > 0 ? specs : ["none", "all"]);
else if (mode === "emitcost") await emitcost(specs.length > 0 ? specs : ["none", "all/stub:*:*"]);
else throw new Error("usage: drive.ts count|ab|cpuprof|emitcost <spec…> (see the module comment)");
