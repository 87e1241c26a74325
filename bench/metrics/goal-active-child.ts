/**
 * Child process of the `goal-active` figure (run with --expose-gc): one long tool-call run of
 * `turns` turns, every 25th a `new_context` call, started as `/goal …` with all three extensions
 * (`goal`), as a plain prompt with all three (`all`) or with pi-reset alone (`reset`). Prints one JSON line: the time of
 * every provider request, the session entries by type, and heapUsed after full GCs before and after
 * the run (session still open).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.PI_CODING_AGENT_DIR = mkdtempSync(join(tmpdir(), "pi-lifecycle-bench-agent-"));
mkdirSync(join(process.env.PI_CODING_AGENT_DIR, "pi-lifecycle"), { recursive: true });
// The run is one manual goal run (tool calls), so the automatic-turn breaker is not involved; off anyway.
writeFileSync(
	join(process.env.PI_CODING_AGENT_DIR, "pi-lifecycle", "pi-goal.json"),
	JSON.stringify({ automaticTurns: null }),
);
const { allExtensions, session } = await import("../lib/extensions.ts");
const { smallProject } = await import("../lib/project.ts");
const { nowMs } = await import("../lib/stats.ts");
const { messageText, reply, toolCall } = await import("@pi-lifecycle/lifecycle-kit/testing");
const { default: piReset } = await import("@pi-lifecycle/pi-reset");

const variant = process.argv[2] === "goal" || process.argv[2] === "all" ? process.argv[2] : "reset";
const turns = Number(process.argv[3] ?? 1000);
const RESET_EVERY = 25;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const collect = () => {
	for (let i = 0; i < 4; i++) gc();
	return process.memoryUsage().heapUsed;
};

type Controller = Parameters<NonNullable<Parameters<typeof allExtensions>[0]>>[0];
let controller: Controller | undefined;
const extensions =
	variant === "reset" ? [{ name: "pi-reset", factory: piReset }] : allExtensions((c) => (controller = c));
const h = await session(extensions, { cwd: smallProject() });
await controller?.settled();

const times: number[] = [];
/** Process CPU time (user + system, ms) at every request: steadier than wall time on a loaded machine. */
const cpu: number[] = [];
const mark = () => {
	times.push(nowMs());
	const used = process.cpuUsage();
	cpu.push((used.user + used.system) / 1000);
};
type Context = { messages: { role: string; content: unknown }[] };
const steps: ((context: Context) => unknown)[] = [];
for (let i = 1; i <= turns; i++) {
	steps.push(() => {
		mark();
		return i % RESET_EVERY === 0
			? toolCall("new_context", { handoff: `Turns 1-${i} done; keep reading note.txt.` })
			: toolCall("read", { path: "note.txt" }, `Reading (turn ${i}).`);
	});
}
if (variant === "goal") {
	steps.push((context) => {
		mark();
		let id = "";
		for (const message of context.messages) {
			const match = /Goal id: (g-[0-9a-f]+)/.exec(messageText(message as never));
			if (match?.[1]) id = match[1];
		}
		return toolCall("goal_complete", { goal_id: id, summary: "Read note.txt every turn as asked." });
	});
}
steps.push(() => {
	mark();
	return reply("Done.");
});
h.faux.appendResponses(steps as never);

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
process.stdout.write(
	`${JSON.stringify({
		variant,
		turns,
		requests: h.faux.state.callCount,
		scripted: steps.length,
		times,
		cpu,
		entries: entries.length,
		byType,
		finalGoalStatus: goalState?.data?.state?.goal?.status,
		errors: h.errors.map((e) => `${e.event}: ${e.error}`).slice(0, 3),
		heapStart: start,
		heapEnd: end,
	})}\n`,
);
await h.dispose();
