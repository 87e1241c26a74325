import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	gatedJscpd,
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	processesWith,
	realJscpd,
	remove,
	tempDir,
	waitFor,
	writeFiles,
	writeScript,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
let h: JscpdSession | undefined;
const dirs: string[] = [];
afterEach(async () => {
	vi.restoreAllMocks();
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

function project(files: Record<string, string> = { "src/a.ts": duplicatedFunction("computeTotals") }) {
	const root = tempDir("pi-jscpd-project-");
	const agentDir = tempDir("pi-jscpd-agent-");
	const gate = tempDir("pi-jscpd-gate-");
	dirs.push(root, agentDir, gate);
	writeFiles(root, files);
	return { root, agentDir, gate };
}

function writeDuplicate(session: JscpdSession) {
	session.script(
		toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
		reply("wrote b.ts"),
	);
}

/**
 * What pi-jscpd prints without a UI (the harness runs like print mode): the kit's `tellUser` writes
 * `info` answers to stdout (`console.log`) and everything else to stderr (`console.error`).
 * `process.stdout.write` is left alone: replacing it is what Pi's print-mode output guard does, and
 * then the kit writes answers straight to file descriptor 1 (the real-CLI print-mode test covers that).
 */
function captureOutput(): { stdout: string[]; stderr: string[] } {
	const stdout: string[] = [];
	const stderr: string[] = [];
	const record = (lines: string[]) => (chunk: unknown) => {
		lines.push(String(chunk));
		return true;
	};
	vi.spyOn(console, "log").mockImplementation(record(stdout));
	vi.spyOn(console, "error").mockImplementation(record(stderr));
	vi.spyOn(process.stderr, "write").mockImplementation(record(stderr));
	return { stdout, stderr };
}

/**
 * A session on a gated jscpd whose automatic check after writing b.ts is held (the baseline came
 * first): resolves once that check has started. `marker` names its waiting process.
 */
async function heldAutomaticCheck(marker: string): Promise<JscpdSession> {
	const { root, agentDir, gate } = project();
	const s = await jscpdSession({ project: root, agentDir, jscpd: { executable: gatedJscpd(gate, marker) } });
	h = s;
	await waitFor(() => expect(hasBaseline(s)).toBe(true));
	writeFileSync(join(gate, "hold"), "");
	writeDuplicate(s);
	await s.prompt("write b.ts");
	await waitFor(() => expect(existsSync(join(gate, "started"))).toBe(true));
	return s;
}

describe("checkpoint lifecycle (scripted sessions)", () => {
	// Issue 20: no system-prompt line (the declaration alone carries what a model needs to choose it).
	it("jscpd_run is declared once, short, and adds no line to the system prompt", async () => {
		const { root, agentDir } = project();
		h = await jscpdSession({ project: root, agentDir });
		h.script(reply("ok"));
		await h.prompt("hello");
		const system = h.requests[0]?.messages.filter((m) => (m.role as string) === "system") as unknown as {
			sections?: Record<string, string>;
			toolsAdded?: { name: string }[];
		}[];
		const declared = system.flatMap((m) => m.toolsAdded ?? []).filter((t) => t.name === "jscpd_run");
		expect(declared).toHaveLength(1);
		expect(JSON.stringify(declared[0]).length).toBeLessThanOrEqual(300);
		expect(system.map((m) => Object.values(m.sections ?? {}).join("\n")).join("\n")).not.toContain(
			"jscpd_run",
		);
	});

	// Issue 20: what each command does moved out of the declaration into `help`, and wrong calls are
	// answered with the usage; `args` as one string is still accepted (split like a /jscpd line).
	it("help and wrong calls carry what the declaration no longer says; a string args still works", async () => {
		const { root, agentDir } = project();
		h = await jscpdSession({ project: root, agentDir });
		h.script(
			toolCall("jscpd_run", { command: "help" }),
			toolCall("jscpd_run", { command: "changed", args: ["src"] }),
			toolCall("jscpd_run", { command: "scan", args: "../outside" }),
			reply("done"),
		);
		await h.prompt("check duplicates");
		const results = h.session.sessionManager
			.getBranch()
			.flatMap((e) =>
				e.type === "message" && e.message.role === "toolResult"
					? [(e.message.content as { text?: string }[]).map((c) => c.text ?? "").join("")]
					: [],
			);
		const [help, changed, scan] = results;
		for (const command of ["scan", "changed", "status", "on", "off", "help"]) expect(help).toContain(command);
		expect(help).toContain("files changed this session");
		expect(changed).toContain('"changed" takes no arguments');
		expect(scan).not.toContain("must be a list");
		expect(scan).toContain("../outside");
	});

	it("an explicit scan during an automatic check takes priority: it cancels the check, which resumes afterwards", async () => {
		const marker = `pijscpdgate${process.pid}${Date.now()}`;
		const s = await heldAutomaticCheck(marker);
		expect(s.controller.status().scheduler.automaticActive).toBe(true);

		const output = captureOutput();
		await s.prompt("/jscpd scan src");
		// The answer the user asked for: stdout in print mode, nothing on stderr.
		expect(output.stdout.join("")).toContain("jscpd: 1 duplicated block");
		expect(output.stderr).toEqual([]);
		// The held automatic process was killed, not left running.
		await waitFor(() => expect(processesWith(marker)).toEqual([]));
		// Its generation was left unattempted, so the check resumed and delivered exactly once.
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(s.providerCalls).toBe(2);
	});

	it("the agent never waits on the baseline scan: the first write runs while it is pending, and its duplicate is still reported as new", async () => {
		const { root, agentDir, gate } = project();
		const marker = `pijscpdfirst${process.pid}${Date.now()}`;
		writeFileSync(join(gate, "hold"), "");
		const s = await jscpdSession({
			project: root,
			agentDir,
			jscpd: { executable: gatedJscpd(gate, marker) },
		});
		h = s;
		await waitFor(() => expect(existsSync(join(gate, "started"))).toBe(true));
		writeDuplicate(s);
		// The whole prompt (write included) finishes while the baseline scan is still held.
		await s.prompt("write b.ts");
		expect(existsSync(join(root, "src/b.ts"))).toBe(true);
		expect(s.controller.status().baseline.status).toBe("pending");
		// The baseline scan reads b.ts only now, with the duplicate in it: b.ts's content before the
		// write (none) replaces it in the baseline, so the copy is still the session's.
		writeFileSync(join(gate, "release"), "");
		await waitFor(() =>
			expect(s.controller.status().baseline).toMatchObject({ status: "accepted", groups: 1 }),
		);
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
	});

	it("tool_call is subscribed only while the baseline or the first file listing is pending: not once both are done, also in a restored session", async () => {
		const { root, agentDir, gate } = project();
		const marker = `pijscpdarmed${process.pid}${Date.now()}`;
		writeFileSync(join(gate, "hold"), "");
		const s = await jscpdSession({
			project: root,
			agentDir,
			session: "file",
			recorder: false,
			jscpd: { executable: gatedJscpd(gate, marker) },
		});
		h = s;
		const runner = () => s.session.extensionRunner;
		await waitFor(() => expect(existsSync(join(gate, "started"))).toBe(true));
		expect(s.controller.status().baseline.status).toBe("pending");
		expect(runner().hasHandlers("tool_call")).toBe(true);
		writeFileSync(join(gate, "release"), "");
		await s.controller.settled();
		expect(s.controller.status().baseline.status).toBe("accepted");
		expect(runner().hasHandlers("tool_call")).toBe(false);
		// Mutations are still recorded (tool_result) and checked.
		writeDuplicate(s);
		await s.prompt("write b.ts");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(s.controller.status().changedFiles).toBe(1);
		expect(s.errors).toEqual([]);
		// A restored session reads its baseline from the file: never pending, never subscribed.
		const file = s.sessionFile as string;
		await s.dispose({ keepFiles: true });
		h = undefined;
		dirs.push(join(file, "..", ".."));
		h = await jscpdSession({
			project: root,
			agentDir,
			session: { open: file },
			recorder: false,
			jscpd: { executable: gatedJscpd(gate, marker) },
		});
		expect(h.controller.status().baseline.status).toBe("accepted");
		// The restored session lists the project's files once (tools wait for that listing only).
		const restored = h;
		await waitFor(() => expect(restored.session.extensionRunner.hasHandlers("tool_call")).toBe(false));
	});

	it("a new prompt cancels the automatic check and leaves its generation unattempted", async () => {
		const marker = `pijscpdprompt${process.pid}${Date.now()}`;
		const s = await heldAutomaticCheck(marker);

		s.script(reply("answer to the next prompt"));
		await s.prompt("next question");
		await waitFor(() => expect(processesWith(marker)).toEqual([]));
		// The cancelled check did not consume generation 1, so the settle of the new prompt checked it
		// again and delivered once, after the new run.
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(s.controller.status().recentChecks.map((r) => [r.generation, r.disposition])).toEqual([
			[1, "cancelled"],
			[1, "recorded"],
		]);
		expect(s.controller.status().scheduler.attemptedGeneration).toBe(1);
		expect(s.providerCalls).toBe(3);
		// The findings message comes after the new run's answer, not inside it.
		const branch = s.session.sessionManager.getBranch();
		expect(branch.at(-1)).toMatchObject({ type: "custom_message", customType: FINDINGS });
	});

	it("a failed automatic check updates only status: no message, no warning", async () => {
		const { root, agentDir, gate } = project();
		const crashing = writeScript(
			join(gate, "bin", "jscpd"),
			`if [ "$1" = "--version" ]; then echo "jscpd 5.3.2"; exit 0; fi
if [ -f '${gate}/crash' ]; then echo boom >&2; exit 101; fi
exec '${realJscpd()}' "$@"`,
		);
		const s = await jscpdSession({ project: root, agentDir, jscpd: { executable: crashing } });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		writeFileSync(join(gate, "crash"), "");
		const output = captureOutput();
		writeDuplicate(s);
		await s.prompt("write b.ts");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("failed"));
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
		expect(output).toEqual({ stdout: [], stderr: [] });
		expect(s.errors).toEqual([]);
	});

	it("missing jscpd stays dormant and visible in status, never a warning per settle", async () => {
		const { root, agentDir } = project();
		const output = captureOutput();
		const s = await jscpdSession({
			project: root,
			agentDir,
			jscpd: { executable: join(root, "missing-jscpd") },
		});
		h = s;
		await s.controller.settled();
		writeDuplicate(s);
		await s.prompt("write b.ts");
		s.script(reply("again"));
		await s.prompt("again");
		await s.controller.settled();
		expect(s.controller.status().capability.status).toBe("unavailable");
		expect(s.controller.status().baseline.status).toBe("unavailable");
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
		expect(output).toEqual({ stdout: [], stderr: [] });
		await s.prompt("/jscpd status");
		expect(output.stdout.join("")).toContain("jscpd cannot run");
		expect(output.stderr).toEqual([]);
	});

	it("the jscpd_run tool rejects option injection and path escape with a readable error", async () => {
		const { root, agentDir } = project();
		const s = await jscpdSession({ project: root, agentDir });
		h = s;
		s.script(
			toolCall("jscpd_run", { command: "scan", args: ["--reporters", "html"] }),
			toolCall("jscpd_run", { command: "scan", args: "../" }),
			reply("ok"),
		);
		await s.prompt("scan");
		const results = s.session.sessionManager
			.getBranch()
			.filter((e) => e.type === "message" && e.message.role === "toolResult")
			.map((e) => (e.type === "message" && e.message.role === "toolResult" ? e.message : undefined));
		expect(results.map((r) => r?.isError)).toEqual([true, true]);
		expect(JSON.stringify(results[0]?.content)).toContain("looks like an option");
		expect(JSON.stringify(results[1]?.content)).toContain("outside the project root");
	});

	it("untrusted project config is ignored; trusted project config applies", async () => {
		const { root, agentDir } = project({
			"src/a.ts": duplicatedFunction("computeTotals"),
			".pi/pi-lifecycle/pi-jscpd.json": JSON.stringify({ enabled: false }),
		});
		const s = await jscpdSession({ project: root, agentDir });
		h = s;
		expect(s.controller.status().settings.enabled).toBe(false);
		s.session.settingsManager.setProjectTrusted(false);
		await s.reload();
		expect(s.controller.status().settings.enabled).toBe(true);
		expect(s.controller.status().settingsSources.join("\n")).toContain("project: untrusted");
	});

	it("an invalid settings file is ignored with one warning", async () => {
		const { root, agentDir } = project();
		writeFiles(agentDir, { "pi-lifecycle/pi-jscpd.json": JSON.stringify({ maxFindings: 999 }) });
		const output = captureOutput();
		const s = await jscpdSession({ project: root, agentDir });
		h = s;
		expect(s.controller.status().settings.maxFindings).toBe(5);
		// A warning, not an answer: stderr, never stdout.
		expect(output.stderr.filter((line) => line.includes("pi-jscpd: ignoring"))).toHaveLength(1);
		expect(output.stdout.join("")).not.toContain("ignoring");
	});

	it("the baseline survives reload and resume (kept outside model context)", async () => {
		const { root, agentDir } = project();
		const s = await jscpdSession({ project: root, agentDir, session: "file" });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		const file = s.controller.status().baseline.file;
		expect(file && existsSync(file)).toBe(true);
		// A duplicate created before reload but after the baseline must still count as new afterwards.
		writeDuplicate(s);
		await s.prompt("write b.ts");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		await s.reload();
		await s.controller.settled();
		expect(s.controller.status().baseline).toMatchObject({ status: "accepted", file, groups: 0 });
		expect(s.controller.status().changedFiles).toBe(1);
		expect(s.controller.status().acknowledged).toBe(1);
		const sessionFile = s.sessionFile;
		await s.dispose({ keepFiles: true });
		h = undefined;

		const resumed = await jscpdSession({ project: root, agentDir, session: { open: sessionFile ?? "" } });
		h = resumed;
		await resumed.controller.settled();
		expect(resumed.controller.status().baseline).toMatchObject({ status: "accepted", file });
		expect(
			resumed.requests.flatMap((r) => r.messages).some((m) => JSON.stringify(m).includes("pi-jscpd/state")),
		).toBe(false);
		remove(join(sessionFile ?? "", "..", ".."));
	});

	it("a settle blocked while jscpd is still being probed (after reload) checks once the probe finishes", async () => {
		const { root, agentDir, gate } = project();
		const slowProbe = writeScript(
			join(gate, "bin", "jscpd"),
			`if [ "$1" = "--version" ] && [ -f '${gate}/hold-version' ]; then
	while [ ! -f '${gate}/release-version' ]; do sleep 0.05; done
fi
exec '${realJscpd()}' "$@"`,
		);
		const s = await jscpdSession({
			project: root,
			agentDir,
			session: "file",
			jscpd: { executable: slowProbe },
		});
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		writeDuplicate(s);
		await s.prompt("write b.ts");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		writeFileSync(join(gate, "hold-version"), "");
		await s.reload();
		s.script(
			toolCall("edit", { path: "src/b.ts", edits: [{ oldText: "computeOrder", newText: "computeOrders" }] }),
			reply("renamed"),
		);
		await s.prompt("rename");
		await s.controller.settled();
		expect(s.controller.status().capability.status).toBe("probing");
		expect(s.controller.status().recentChecks).toEqual([]);
		writeFileSync(join(gate, "release-version"), "");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(2));
		expect(s.providerCalls).toBe(4);
	});

	it("/tree navigation invalidates automatic work and restores the target branch's changed files", async () => {
		const { root, agentDir, gate } = project();
		const marker = `pijscpdtree${process.pid}${Date.now()}`;
		const s = await jscpdSession({
			project: root,
			agentDir,
			jscpd: { executable: gatedJscpd(gate, marker) },
		});
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		const before = s.session.sessionManager.getLeafId();
		writeFileSync(join(gate, "hold"), "");
		writeDuplicate(s);
		await s.prompt("write b.ts");
		await waitFor(() => expect(existsSync(join(gate, "started"))).toBe(true));
		await s.session.navigateTree(before ?? "", { summarize: false });
		await waitFor(() => expect(processesWith(marker)).toEqual([]));
		expect(s.controller.status().changedFiles).toBe(0);
		writeFileSync(join(gate, "release"), "");
		await s.controller.settled();
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
	});
});
