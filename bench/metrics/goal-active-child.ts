/**
 * Child process of the `goal-active` figure (run with --expose-gc): one long tool-call run of
 * `turns` turns, every 25th a `new_context` call, started as `/goal …` with all three extensions
 * (`goal`), as a plain prompt with all three (`all`), with pi-reset alone (`reset`) or with pi-reset
 * plus four inert tools declared like ours (`reset+tools`: the per-request floor). Reports the
 * wall and process CPU time at every provider request, the session entries by type, and heapUsed
 * after full GCs before and after the run (session still open).
 *
 * Arguments: `<variant> <turns> [block]`. Standalone (no IPC channel) it prints one JSON line. Forked
 * by goal-active.ts with a `block` (a divisor of `turns`), it runs in lockstep with the other
 * variants: at every `block`-th request (request 0 and request `turns` included) it sends
 * `{ type: "ready", request }` and pauses inside the scripted provider step until the parent sends
 * `"go"`; the result is sent as `{ type: "result", result }`. A pause is excluded from the turn times:
 * turn j lasts from the start of request j (after any pause) to the arrival of request j + 1, so the
 * variants take turns on the machine block by block and see the same load.
 *
 * Profiling (not used by the figure): `GOAL_ACTIVE_CPUPROF=<dir>` writes V8 CPU profiles (inspector,
 * 100 µs sampling) of the turn ranges in `GOAL_ACTIVE_CPUPROF_TURNS` (`from-to`, comma-separated,
 * default every measured turn; setup, the goal's completion and the final answer never included),
 * one `<dir>/<variant>-t<from>.<pid>.cpuprofile` per range; read with `profile/analyze.ts --turns N`.
 * Diagnosis (not used by the figure): `GOAL_ACTIVE_SPEC=<spec>` loads a variant spec of
 * `profile/variants.ts` instead of the variant's extensions (the variant name then only decides
 * `/goal` or a plain prompt); `GOAL_ACTIVE_TRACE=1` adds `trace`, the session's events and GC entries
 * with their times, to the result.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-lifecycle-bench-agent-"));
mkdirSync(join(process.env.PI_CODING_AGENT_DIR, "pi-lifecycle"), { recursive: true });
// 1,000 responses in one goal run: the response limit is off. The run reads the same file every turn,
// which the stuck detector would rightly pause: its rules are off too (it still observes every
// response, so its per-turn work is measured).
writeFileSync(
	join(process.env.PI_CODING_AGENT_DIR, "pi-lifecycle", "pi-goal.json"),
	JSON.stringify({ automaticTurns: null, repeatedActions: null, repeatedErrors: null, cycleActions: null }),
);
const { allExtensions, inertTools, session } = await import("../lib/extensions.ts");
const { smallProject } = await import("../lib/project.ts");
const { nowMs } = await import("../lib/stats.ts");
const { messageText, reply, toolCall } = await import("@pi-lifecycle/lifecycle-kit/testing");
const { default: piReset } = await import("@pi-lifecycle/pi-reset");

const VARIANTS = ["goal", "all", "reset", "reset+tools"] as const;
const variant = VARIANTS.find((v) => v === process.argv[2]) ?? "reset";
const turns = Number(process.argv[3] ?? 1000);
const block = Number(process.argv[4] ?? 0);
const lockstep = block > 0 && typeof process.send === "function";
if (lockstep && turns % block !== 0) throw new Error(`block ${block} does not divide ${turns} turns`);
const RESET_EVERY = 25;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const collect = () => {
	for (let i = 0; i < 4; i++) gc();
	return process.memoryUsage().heapUsed;
};

type Controller = Parameters<NonNullable<Parameters<typeof allExtensions>[0]>>[0];
let controller: Controller | undefined;
const spec = process.env.GOAL_ACTIVE_SPEC;
const { parseVariant, variantFactories } = await import("../profile/variants.ts");
const extensions = spec
	? variantFactories(parseVariant(spec), undefined, (c) => (controller = c))
	: variant === "reset"
		? [{ name: "pi-reset", factory: piReset }]
		: variant === "reset+tools"
			? [{ name: "pi-reset", factory: piReset }, inertTools()]
			: allExtensions((c) => (controller = c));
const h = await session(extensions, { cwd: smallProject() });
await controller?.settled();

const profileDir = process.env.GOAL_ACTIVE_CPUPROF;
/** Profiled turn ranges `from-to` (to exclusive), comma-separated; default: every measured turn. */
const profileRanges = (process.env.GOAL_ACTIVE_CPUPROF_TURNS ?? `0-${turns}`)
	.split(",")
	.map((range) => range.split("-").map(Number) as [number, number]);
const inspector = profileDir ? new Session() : undefined;
if (inspector) {
	inspector.connect();
	inspector.post("Profiler.enable");
	inspector.post("Profiler.setSamplingInterval", { interval: 100 });
}

/** Stops the profiler at the request that ends a profiled range and writes the profile. */
function writeProfile(session: Session, dir: string, from: number): void {
	session.post("Profiler.stop", (error, result) => {
		if (error) throw error;
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, `${variant}-t${from}.${process.pid}.cpuprofile`), JSON.stringify(result.profile));
	});
}

/** Wall ms at which turn j starts: request j, after any lockstep pause. */
const starts: number[] = [];
/** Wall ms at which request j arrives: the end of turn j - 1. */
const ends: number[] = [];
/** Process CPU time (user + system, ms) at the same two points: steadier than wall time under load. */
const cpuStarts: number[] = [];
const cpuEnds: number[] = [];
const cpuMs = () => {
	const used = process.cpuUsage();
	return (used.user + used.system) / 1000;
};
/** Waits for the parent's go (lockstep only). */
const pause = (request: number) =>
	new Promise<void>((resolve) => {
		process.once("message", () => resolve());
		process.send?.({ type: "ready", request });
	});
/** Marks request j (the scripted provider step runs it first). */
const atRequest = async () => {
	const request = ends.length;
	const ending = profileRanges.find(([, to]) => to === request);
	if (inspector && profileDir && ending) writeProfile(inspector, profileDir, ending[0]);
	ends.push(nowMs());
	cpuEnds.push(cpuMs());
	if (lockstep && request <= turns && request % block === 0) await pause(request);
	if (inspector && profileRanges.some(([from]) => from === request)) inspector.post("Profiler.start");
	starts.push(nowMs());
	cpuStarts.push(cpuMs());
};
type Context = { messages: { role: string; content: unknown }[] };
const steps: ((context: Context) => unknown)[] = [];
for (let i = 1; i <= turns; i++) {
	steps.push(async () => {
		await atRequest();
		return i % RESET_EVERY === 0
			? toolCall("new_context", { handoff: `Turns 1-${i} done; keep reading note.txt.` })
			: toolCall("read", { path: "note.txt" }, `Reading (turn ${i}).`);
	});
}
if (variant === "goal") {
	steps.push(async (context) => {
		await atRequest();
		let id = "";
		for (const message of context.messages) {
			const match = /Goal id: (g-[0-9a-f]+)/.exec(messageText(message as never));
			if (match?.[1]) id = match[1];
		}
		return toolCall("goal_complete", { goal_id: id, summary: "Read note.txt every turn as asked." });
	});
}
steps.push(async () => {
	await atRequest();
	return reply("Done.");
});
h.faux.appendResponses(steps as never);

const trace: [number, string][] = [];
if (process.env.GOAL_ACTIVE_TRACE) {
	(h.session as unknown as { subscribe(l: (e: { type: string }) => void): void }).subscribe((e) => {
		trace.push([nowMs(), e.type]);
	});
	const { PerformanceObserver, performance } = await import("node:perf_hooks");
	const offset = nowMs() - performance.now();
	new PerformanceObserver((list) => {
		for (const entry of list.getEntries())
			trace.push([
				entry.startTime + offset,
				`gc:${(entry as { detail?: { kind?: number } }).detail?.kind}:${entry.duration.toFixed(2)}`,
			]);
	}).observe({ entryTypes: ["gc"] });
}
const start = collect();
const prompt = `Read note.txt ${turns} times, one read per turn, and start a new context every ${RESET_EVERY} turns.`;
await h.prompt(variant === "goal" ? `/goal ${prompt}` : prompt);
for (let i = 0; i < 20 && h.faux.state.callCount < steps.length; i++) {
	await h.session.waitForIdle();
	await new Promise((resolve) => setTimeout(resolve, 20));
}
await h.session.waitForIdle();
await controller?.settled();
await new Promise((resolve) => setTimeout(resolve, 50));
const end = collect();

const byType: Record<string, number> = {};
const entries = h.session.sessionManager.getEntries();
for (const entry of entries) {
	const key =
		entry.type === "custom" || entry.type === "custom_message"
			? `${entry.type}:${entry.customType}`
			: entry.type;
	byType[key] = (byType[key] ?? 0) + 1;
}
const goalState = entries.filter((e) => e.type === "custom" && e.customType === "pi-goal/state").at(-1) as
	| { data?: { state?: { goal?: { status?: string } } } }
	| undefined;
const result = {
	variant,
	turns,
	requests: h.faux.state.callCount,
	scripted: steps.length,
	starts,
	ends,
	cpuStarts,
	cpuEnds,
	entries: entries.length,
	byType,
	finalGoalStatus: goalState?.data?.state?.goal?.status,
	errors: h.errors.map((e) => `${e.event}: ${e.error}`).slice(0, 3),
	heapStart: start,
	heapEnd: end,
	trace: process.env.GOAL_ACTIVE_TRACE ? trace : undefined,
};
if (lockstep) process.send?.({ type: "result", result });
else process.stdout.write(`${JSON.stringify(result)}\n`);
await h.dispose();
if (lockstep) process.disconnect();
