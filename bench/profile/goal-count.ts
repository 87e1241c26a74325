/**
 * The `goal-active` run (1,000 tool-call turns, a `new_context` every 25) in-process for one variant
 * spec (variants.ts), with per-handler counts and sync time, session writes, footer updates, timers
 * and clones, and CPU/wall ms per turn, all over the measured window (the last `--window` turns).
 *
 *   node --expose-gc profile/goal-count.ts <spec> [--goal] [--turns 1000] [--window 500]
 *
 * `--goal` starts the run with `/goal …` (as the figure's `goal` variant). Run after building.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-lifecycle-profile-agent-"));
mkdirSync(join(process.env.PI_CODING_AGENT_DIR, "pi-lifecycle"), { recursive: true });
writeFileSync(
	join(process.env.PI_CODING_AGENT_DIR, "pi-lifecycle", "pi-goal.json"),
	JSON.stringify({ automaticTurns: null }),
);
const { HandlerCounter, parseVariant, variantFactories } = await import("./variants.ts");
const { session } = await import("../lib/extensions.ts");
const { smallProject } = await import("../lib/project.ts");
const { watchHostCalls } = await import("./host-calls.ts");
const { nowMs, round } = await import("../lib/stats.ts");
const { messageText, reply, toolCall } = await import("@pi-lifecycle/lifecycle-kit/testing");

const flag = (name: string, fallback: number) => {
	const i = process.argv.indexOf(name);
	return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const spec = process.argv[2] ?? "all";
const goal = process.argv.includes("--goal");
const turns = flag("--turns", 1000);
const window = flag("--window", 500);
const RESET_EVERY = 25;

const variant = parseVariant(spec);
const counter = new HandlerCounter();
let settled: (() => Promise<void>) | undefined;
const h = await session(
	variantFactories(variant, counter, (c) => {
		settled = () => c.settled();
	}),
	{ cwd: smallProject() },
);
await settled?.();

const calls = watchHostCalls(h, /^(append|get|build)/);

const cpuMs = () => {
	const used = process.cpuUsage();
	return (used.user + used.system) / 1000;
};
let request = 0;
let mark: { wall: number; cpu: number } | undefined;
let measured: { wall: number; cpu: number } | undefined;
const atRequest = () => {
	if (request === turns - window) {
		counter.enabled = true;
		calls.on = true;
		mark = { wall: nowMs(), cpu: cpuMs() };
	}
	if (request === turns && mark) {
		measured = { wall: nowMs() - mark.wall, cpu: cpuMs() - mark.cpu };
		counter.enabled = false;
		calls.on = false;
	}
	request++;
};
type Context = { messages: { role: string; content: unknown }[] };
const steps: ((context: Context) => unknown)[] = [];
for (let i = 1; i <= turns; i++)
	steps.push(() => {
		atRequest();
		return i % RESET_EVERY === 0
			? toolCall("new_context", { handoff: `Turns 1-${i} done; keep reading note.txt.` })
			: toolCall("read", { path: "note.txt" }, `Reading (turn ${i}).`);
	});
if (goal)
	steps.push((context) => {
		atRequest();
		let id = "";
		for (const message of context.messages) {
			const match = /Goal id: (g-[0-9a-f]+)/.exec(messageText(message as never));
			if (match?.[1]) id = match[1];
		}
		return toolCall("goal_complete", { goal_id: id, summary: "Done." });
	});
steps.push(() => {
	atRequest();
	return reply("Done.");
});
h.faux.appendResponses(steps as never);
const prompt = `Read note.txt ${turns} times, one read per turn, and start a new context every ${RESET_EVERY} turns.`;
await h.prompt(goal ? `/goal ${prompt}` : prompt);
for (let i = 0; i < 20 && h.faux.state.callCount < steps.length; i++) {
	await h.session.waitForIdle();
	await new Promise((resolve) => setTimeout(resolve, 20));
}
await h.session.waitForIdle();
await settled?.();
const perTurn = (n: number) => round(n / window, 3);
const handlers = [...counter.calls].map(([k, n]) => ({
	handler: k,
	callsPerTurn: perTurn(n),
	syncUsPerTurn: round(((counter.syncMs.get(k) ?? 0) / window) * 1000, 2),
}));
console.log(
	JSON.stringify(
		{
			spec,
			goal,
			requests: h.faux.state.callCount,
			scripted: steps.length,
			wallMsPerTurn: measured && round(measured.wall / window, 3),
			cpuMsPerTurn: measured && round(measured.cpu / window, 3),
			handlers,
			totalHandlerSyncUsPerTurn: round(
				handlers.reduce((a, x) => a + x.syncUsPerTurn, 0),
				2,
			),
			sessionEventsPerTurn: Object.fromEntries([...calls.events].map(([k, n]) => [k, perTurn(n)])),
			effectsPerTurn: Object.fromEntries([...calls.effects].map(([k, n]) => [k, perTurn(n)])),
			errors: h.errors.map((e) => `${e.event}: ${e.error}`).slice(0, 3),
		},
		null,
		1,
	),
);
await h.dispose();
