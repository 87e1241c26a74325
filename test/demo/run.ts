/**
 * `pnpm demo` — the project's main job. The real `pi` CLI (RPC mode) with all three extensions and
 * a built-in scripted model (no API key, no network) plays a short story:
 *
 *   a goal starts → the agent writes a copy-pasted function → pi-jscpd reports it quietly →
 *   the agent removes the duplicate → it calls new_context with a handoff and continues in the
 *   fresh window → it completes the goal.
 *
 * It prints a readable transcript with the footer statuses and the number of model requests, and
 * exits non-zero if the story did not happen as told.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..", "..");
const cli = join(repo, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");
const TIMEOUT_MS = Number(process.env.PI_LIFECYCLE_DEMO_TIMEOUT_MS ?? 90_000);
const OBJECTIVE = "Add src/totals.ts with sumOrders and src/report.ts with reportTotal built on it";

type Record = { type?: string; [key: string]: unknown };

const root = mkdtempSync(join(tmpdir(), "pi-lifecycle-demo-"));
const project = join(root, "project");
const requestLog = join(root, "requests.jsonl");
for (const dir of [project, join(root, "home"), join(root, "agent")]) mkdirSync(dir, { recursive: true });
writeFileSync(join(project, "package.json"), '{ "name": "demo-project", "private": true }\n');

const out = (line = "") => process.stdout.write(`${line}\n`);
const dim = (text: string) => (process.stdout.isTTY ? `\x1b[2m${text}\x1b[0m` : text);
const oneLine = (text: string, max = 150) => {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.map((block: { type?: string; text?: string }) => (block.type === "text" ? (block.text ?? "") : ""))
		.join(" ");
}

const footer = new Map<string, string>();
/** The statuses as Pi's footer shows them: sorted by key, each text starting with its noun. */
const footerLine = () =>
	[...footer]
		.filter(([, text]) => text)
		.sort(([a], [b]) => a.localeCompare(b))
		.map(([, text]) => text)
		.join("   ");
const story = {
	findings: 0,
	resets: 0,
	complete: false,
	dedupWrite: false,
	settled: 0,
	finalCheckStarted: false,
};
const FINAL_CHECK_WAIT_MS = 20_000;
let finalCheckTimer: NodeJS.Timeout | undefined;

function show(record: Record): void {
	switch (record.type) {
		case "extension_ui_request": {
			if (record.method === "setStatus" && typeof record.statusKey === "string") {
				const text = typeof record.statusText === "string" ? record.statusText : "";
				if (footer.get(record.statusKey) === text) return;
				footer.set(record.statusKey, text);
				if (text) out(dim(`    footer │ ${footerLine()}`));
			} else if (record.method === "notify") {
				out(`  notice  │ ${oneLine(String(record.message ?? ""))}`);
			}
			return;
		}
		case "message_end": {
			const message = record.message as { role?: string; content?: unknown; customType?: string } | undefined;
			if (message?.role === "assistant") {
				const calls = Array.isArray(message.content)
					? message.content.filter((b: { type?: string }) => b.type === "toolCall")
					: [];
				const said = textOf(message.content);
				if (said) out(`  agent   │ ${oneLine(said)}`);
				for (const call of calls as { name: string; arguments: { path?: string; handoff?: string } }[]) {
					const detail = call.arguments.path ?? call.arguments.handoff ?? "";
					out(`  tool    │ ${call.name}${detail ? ` ${oneLine(detail, 110)}` : ""}`);
					if (call.name === "write" && call.arguments.path === "src/report.ts" && story.findings > 0) {
						story.dedupWrite = true;
					}
				}
			} else if (message?.role === "custom") {
				describeCustom(message.customType ?? "", textOf(message.content));
			}
			return;
		}
		case "entry_appended": {
			const entry = record.entry as { type?: string; customType?: string; content?: unknown } | undefined;
			if (entry?.type === "custom_message") describeCustom(entry.customType ?? "", textOf(entry.content));
			if (entry?.type === "compaction")
				out("  pi      │ compaction entry (retain-none): a new context window begins");
			return;
		}
		case "tool_execution_end": {
			const name = String(record.toolName ?? "");
			if (name === "goal_complete" && record.isError === false) story.complete = true;
			if (record.isError) out(`  result  │ ${name} failed: ${oneLine(JSON.stringify(record.result), 120)}`);
			return;
		}
		case "agent_settled":
			story.settled++;
			out(dim("  pi      │ run settled"));
			return;
		default:
			return;
	}
}

const seenCustom = new Set<string>();
function describeCustom(customType: string, text: string): void {
	const key = `${customType}:${text}`;
	if (seenCustom.has(key)) return;
	seenCustom.add(key);
	if (customType === "pi-jscpd/findings") {
		story.findings++;
		out(`  jscpd   │ (quiet, no model turn) ${oneLine(text, 130)}`);
	} else if (customType === "pi-reset/boot") {
		story.resets++;
		out(
			`  reset   │ fresh window opens with the handoff: ${oneLine(text.split("Handoff from the previous window:")[1] ?? text, 110)}`,
		);
	} else if (customType === "pi-goal/continuation") {
		out(dim(`  goal    │ (hidden) ${oneLine(text, 100)}`));
	} else if (customType === "pi-goal/contract") {
		out(dim("  goal    │ (hidden) goal contract published"));
	}
}

function send(child: ChildProcess, command: object): void {
	child.stdin?.write(`${JSON.stringify(command)}\n`);
}

async function main(): Promise<number> {
	if (!existsSync(join(repo, "packages", "pi-goal", "dist", "index.js"))) {
		out("The packages are not built: run `npx -y pnpm@12.4.2 demo` (it builds first).");
		return 1;
	}
	out("pi-lifecycle demo — the real pi CLI with pi-goal, pi-reset and pi-jscpd, and a scripted model");
	out(dim(`project: ${project}`));
	out();
	const child = spawn(
		process.execPath,
		[
			cli,
			"--mode",
			"rpc",
			"--no-session",
			"-ne",
			"-e",
			join(repo, "test", "cli", "faux-provider-extension.ts"),
			"-e",
			join(repo, "packages", "pi-goal"),
			"-e",
			join(repo, "packages", "pi-reset"),
			"-e",
			join(repo, "packages", "pi-jscpd"),
			"--model",
			"pi-lifecycle-faux/scripted",
		],
		{
			cwd: project,
			stdio: ["pipe", "pipe", "pipe"],
			env: {
				...process.env,
				HOME: join(root, "home"),
				PI_CODING_AGENT_DIR: join(root, "agent"),
				PI_OFFLINE: "1",
				PI_LIFECYCLE_FAUX_SCRIPT: join(here, "story.mjs"),
				PI_LIFECYCLE_FAUX_LOG: requestLog,
			},
		},
	);
	const exited = new Promise<void>((resolve) => {
		child.once("exit", () => resolve());
		child.once("error", () => resolve());
	});
	let stderr = "";
	child.stderr?.on("data", (chunk) => {
		stderr += String(chunk);
	});
	let buffer = "";
	const done = new Promise<void>((resolve) => {
		child.stdout?.on("data", (chunk) => {
			buffer += String(chunk);
			let newline = buffer.indexOf("\n");
			while (newline >= 0) {
				const line = buffer.slice(0, newline).replace(/\r$/, "");
				buffer = buffer.slice(newline + 1);
				newline = buffer.indexOf("\n");
				if (!line.startsWith("{")) continue;
				try {
					show(JSON.parse(line) as Record);
				} catch {
					// Not a protocol record.
				}
				// After the goal completed and Pi settled, pi-jscpd checks the fixed code in the
				// background; wait for that check's verdict so the final footer shows it.
				if (story.complete && story.settled > 0) {
					const jscpd = footer.get("pi-jscpd") ?? "";
					if (jscpd.includes("checking")) story.finalCheckStarted = true;
					else if (story.finalCheckStarted) resolve();
					finalCheckTimer ??= setTimeout(resolve, FINAL_CHECK_WAIT_MS);
				}
			}
		});
		void exited.then(resolve);
	});
	out(`  user    │ /goal ${OBJECTIVE}`);
	send(child, { id: "goal", type: "prompt", message: `/goal ${OBJECTIVE}` });
	const timer = setTimeout(() => child.kill("SIGTERM"), TIMEOUT_MS);
	await done;
	clearTimeout(timer);
	clearTimeout(finalCheckTimer);
	child.stdin?.end();
	const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
	await exited;
	clearTimeout(killer);

	const requests = existsSync(requestLog)
		? readFileSync(requestLog, "utf8").split("\n").filter(Boolean).length
		: 0;
	out();
	out("summary");
	out(`  model requests: ${requests} (no summarisation request: the reset cost none)`);
	out(`  jscpd findings delivered quietly: ${story.findings}`);
	out(`  context resets: ${story.resets}`);
	out(`  duplicate removed after the finding: ${story.dedupWrite ? "yes" : "no"}`);
	out(`  goal complete: ${story.complete ? "yes" : "no"}`);
	const cleanAtEnd = footer.get("pi-jscpd")?.startsWith("jscpd: clean") ?? false;
	out(`  duplicate gone at the end (last jscpd check clean): ${cleanAtEnd ? "yes" : "no"}`);
	out(`  footer: ${footerLine()}`);
	const ok = story.complete && story.findings >= 1 && story.resets === 1 && story.dedupWrite && cleanAtEnd;
	out();
	if (ok) out("demo OK: goal → duplicate → quiet finding → fix → reset → complete.");
	else {
		out("demo FAILED: the story did not complete as told.");
		if (stderr.trim()) out(`pi stderr:\n${stderr.trim().slice(-2000)}`);
	}
	return ok ? 0 : 1;
}

try {
	process.exitCode = await main();
} finally {
	rmSync(root, { recursive: true, force: true });
}
