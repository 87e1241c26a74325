/**
 * Hot handlers only schedule: no process is spawned and no file is stat-ed while a pi-jscpd handler
 * runs; the background work starts on a later macrotask, so a prompt that arrives first cancels it
 * before anything started. Spawns and stats of pi-jscpd's own modules are counted through module
 * mocks that pass every call through.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { JscpdController } from "../src/adapters/controller.js";
import { createJscpdExtension } from "../src/index.js";
import { goalLoop } from "./goal-loop.js";
import {
	customMessages,
	duplicatedFunction,
	otherFunction,
	realJscpd,
	remove,
	tempDir,
	waitFor,
	writeFiles,
	writeScript,
} from "./helpers.js";

const counted = vi.hoisted(() => ({ spawns: [] as string[], stats: 0 }));

// Every child process goes through the kit's runProcess (docs/security.md): count its calls.
vi.mock("@pi-lifecycle/lifecycle-kit", async (importOriginal) => {
	const actual = await importOriginal<typeof import("@pi-lifecycle/lifecycle-kit")>();
	return {
		...actual,
		runProcess: (request: Parameters<typeof actual.runProcess>[0]) => {
			counted.spawns.push(`${request.command} ${String(request.args[0])}`);
			return actual.runProcess(request);
		},
	};
});

vi.mock("node:fs", async (importOriginal) => {
	const actual = await importOriginal<typeof import("node:fs")>();
	return {
		...actual,
		statSync: (...args: Parameters<typeof actual.statSync>) => {
			counted.stats++;
			return actual.statSync(...args);
		},
	};
});

const FINDINGS = "pi-jscpd/findings";
const HOT = ["agent_settled", "agent_start", "input", "before_agent_start", "tool_call", "tool_result"];
let h: ScriptedSession | undefined;
let controller: JscpdController | undefined;
const dirs: string[] = [];
const savedPath = process.env.PATH;
afterEach(async () => {
	await controller?.shutdown();
	await h?.dispose();
	h = undefined;
	controller = undefined;
	process.env.PATH = savedPath;
	remove(...dirs.splice(0));
});

function gitProject() {
	const root = tempDir("pi-jscpd-git-");
	const agentDir = tempDir("pi-jscpd-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
	const git = (...args: string[]) => execFileSync("git", args, { cwd: root, stdio: "ignore" });
	git("init", "-q");
	git("-c", "user.email=t@t", "-c", "user.name=t", "add", ".");
	git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init");
	return { root, agentDir };
}

/** What one synchronous handler call did. */
interface HandlerCall {
	readonly event: string;
	readonly spawns: number;
	readonly stats: number;
}

/**
 * pi-jscpd loaded through a proxy `pi` that measures every hot handler's synchronous work, and can
 * run pi-jscpd's own `input` handler right after its settle handler (a prompt arriving first).
 */
async function session(options: {
	root: string;
	agentDir: string;
	extra?: NonNullable<Parameters<typeof createScriptedSession>[0]>["extensions"];
	afterSettle?: () => boolean;
}) {
	const calls: HandlerCall[] = [];
	const handlers = new Map<string, (event: unknown, ctx: unknown) => unknown>();
	const factory = createJscpdExtension({
		agentDir: () => options.agentDir,
		onController: (c) => {
			controller = c;
		},
	});
	const measured = (pi: ExtensionAPI): ExtensionAPI =>
		new Proxy(pi, {
			get(target, prop) {
				if (prop !== "on") {
					const value = Reflect.get(target, prop, target);
					return typeof value === "function" ? value.bind(target) : value;
				}
				return (event: string, handler: (e: unknown, ctx: unknown) => unknown) => {
					handlers.set(event, handler);
					const on = target.on as unknown as (e: string, h: (e: unknown, ctx: unknown) => unknown) => void;
					return on(event, (e, ctx) => {
						if (!HOT.includes(event)) return handler(e, ctx);
						const spawns = counted.spawns.length;
						const stats = counted.stats;
						const result = handler(e, ctx);
						calls.push({ event, spawns: counted.spawns.length - spawns, stats: counted.stats - stats });
						if (event === "agent_settled" && options.afterSettle?.()) {
							handlers.get("input")?.({ type: "input", text: "next", source: "interactive" }, ctx);
						}
						return result;
					});
				};
			},
		});
	h = await createScriptedSession({
		cwd: options.root,
		extensions: [{ name: "pi-jscpd", factory: (pi) => factory(measured(pi)) }, ...(options.extra ?? [])],
	});
	const c = controller;
	if (!c) throw new Error("pi-jscpd did not load");
	await c.settled();
	expect(c.status().baseline.status).toBe("accepted");
	return { s: h, c, calls };
}

describe("hot handlers only schedule", () => {
	it("the settled handler spawns nothing synchronously, nor do the continuation's agent_start and the other hot handlers", async () => {
		const { root, agentDir } = gitProject();
		const { s, c, calls } = await session({ root, agentDir, extra: [goalLoop({ continuations: 2 })] });
		expect(c.status().externalDetection).toBe("files+git");
		s.script(
			toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
			reply("iteration 1"),
			async () => {
				await waitFor(() => expect(c.status().lastOutcome?.kind).toBe("findings"));
				return reply("iteration 2");
			},
			reply("iteration 3"),
		);
		const before = counted.spawns.length;
		await s.prompt("work on the goal");
		s.script(
			toolCall("write", { path: "src/c.ts", content: otherFunction("countWords") }),
			reply("wrote c"),
			reply("iteration 2"),
			reply("iteration 3"),
		);
		await s.prompt("write c.ts");
		await waitFor(() => expect(c.status().recentChecks).toHaveLength(2));
		await c.settled();
		// The background work did run (git show-ref and jscpd after the continuation and the settles)...
		expect(counted.spawns.slice(before).some((line) => line.startsWith("git show-ref"))).toBe(true);
		expect(counted.spawns.slice(before).filter((line) => line.includes("jscpd"))).toHaveLength(2);
		expect(c.status().recentChecks.map((r) => r.disposition)).toEqual(["recorded", "recorded"]);
		expect(customMessages(s, FINDINGS)).toHaveLength(1);
		// ...but never inside a handler.
		const seen = new Set(calls.map((call) => call.event));
		// tool_call is subscribed only while the baseline is pending (accepted before these prompts).
		for (const event of HOT) expect(seen.has(event), event).toBe(event !== "tool_call");
		// Two runs of three attempts each (the kit's lifecycle tracker registers through the same pi).
		expect(calls.filter((call) => call.event === "agent_start").length).toBeGreaterThanOrEqual(6);
		expect(s.errors).toEqual([]);
		expect(calls.filter((call) => call.spawns > 0 || call.stats > 0)).toEqual([]);
	});

	it("a prompt that arrives right after the settle cancels the check before anything is spawned", async () => {
		const { root, agentDir } = gitProject();
		let interrupt = false;
		const { s, c } = await session({ root, agentDir, afterSettle: () => interrupt });
		s.script(
			toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
			reply("done"),
		);
		interrupt = true;
		const before = counted.spawns.length;
		await s.prompt("write b.ts");
		interrupt = false;
		await c.settled();
		await new Promise((resolve) => setTimeout(resolve, 50));
		// Neither git (the outside-change comparison) nor jscpd was started for this settle.
		expect(counted.spawns.slice(before)).toEqual([]);
		expect(c.status().recentChecks.map((r) => r.disposition)).toEqual(["cancelled"]);
		expect(c.status().scheduler.attemptedGeneration).toBe(0);
		// The generation stays eligible: the next settle checks it.
		s.script(reply("ok"));
		await s.prompt("anything else?");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
	});
});

describe("the settle check and the outside-change comparison", () => {
	it("a settle with a write and a bash copy: the check waits for the comparison, then scans what changed: one check covers both", async () => {
		const { root, agentDir } = gitProject();
		const gate = tempDir("pi-jscpd-gate-");
		dirs.push(gate);
		const realGit = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
		const scans = join(gate, "scans.log");
		// git show-ref (the comparison's git step, after its file listing) blocks while <gate>/hold
		// exists; jscpd scans are logged.
		writeScript(
			join(gate, "bin", "git"),
			`if [ "$1" = "show-ref" ] && [ -f '${gate}/hold' ]; then
	touch '${gate}/git-started'
	while [ -f '${gate}/hold' ]; do sleep 0.02; done
fi
exec '${realGit}' "$@"`,
		);
		process.env.PATH = `${join(gate, "bin")}:${savedPath}`;
		const jscpd = writeScript(
			join(gate, "jscpd"),
			`if [ "$1" != "--version" ]; then echo scan >> '${scans}'; fi
exec '${realJscpd()}' "$@"`,
		);
		const calls: string[] = [];
		const factory = createJscpdExtension({
			agentDir: () => agentDir,
			executable: jscpd,
			onController: (c) => {
				controller = c;
			},
		});
		h = await createScriptedSession({ cwd: root, extensions: [{ name: "pi-jscpd", factory }] });
		const s = h;
		const c = controller as JscpdController;
		await c.settled();
		expect(readFileSync(scans, "utf8").trim().split("\n")).toEqual(["scan"]);
		writeFileSync(join(gate, "hold"), "");
		s.script(
			toolCall("write", { path: "src/b.ts", content: otherFunction("countWords") }),
			toolCall("bash", { command: "sed s/computeTotals/computeCopy/ src/a.ts > src/copy.ts" }),
			reply("done"),
		);
		await s.prompt("write b.ts, copy a.ts with bash");
		// A check scans the changed files and their partners (issue 31): it waits for the comparison,
		// which names the bash-made copy, before it scans; nothing is scanned or recorded while held.
		await waitFor(() => expect(existsSync(join(gate, "git-started"))).toBe(true));
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(readFileSync(scans, "utf8").trim().split("\n")).toHaveLength(1);
		calls.push(...c.status().recentChecks.map((r) => r.disposition));
		expect(calls).toEqual([]);
		remove(join(gate, "hold"));
		await waitFor(() => expect(c.status().recentChecks).toHaveLength(1));
		await c.settled();
		// One check, recorded, that counted src/copy.ts (made through bash) as changed this session.
		expect(c.status().recentChecks.map((r) => [r.generation, r.disposition])).toEqual([[1, "recorded"]]);
		expect(c.status().changedFiles).toBe(2);
		expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.details)).toContain("src/copy.ts");
		expect(readFileSync(scans, "utf8").trim().split("\n")).toHaveLength(2);
	});
});
