/**
 * The root README's switch table, checked by toggling each switch with all three extensions (from
 * their packed tarballs) and inspecting where it landed: the session file, the global settings
 * file, or nowhere; then a reload, the same session reopened from its file, and a new session in
 * another project that shares the user's agent directory.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
	createDialogStub,
	createScriptedSession,
	type DialogStub,
	deferred,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { installPacked, type PackedInstall } from "./support/packed.js";

/** pi-goal settles an aborted goal run two macrotask turns later (once no compaction followed the abort). */
const heldPause = async () => {
	for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
};

let install: PackedInstall;
let agentDir: string;
const previousAgentDir = process.env.PI_CODING_AGENT_DIR;
const open: ScriptedSession[] = [];

beforeAll(() => {
	install = installPacked(["pi-reset", "pi-goal", "pi-jscpd"]);
});
afterAll(() => install?.cleanup());
beforeEach(() => {
	// The extensions find the user's settings where Pi does: PI_CODING_AGENT_DIR.
	agentDir = mkdtempSync(join(tmpdir(), "pi-lifecycle-switches-agent-"));
	process.env.PI_CODING_AGENT_DIR = agentDir;
});
afterEach(async () => {
	for (const session of open.splice(0)) await session.dispose();
	if (previousAgentDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
	else process.env.PI_CODING_AGENT_DIR = previousAgentDir;
	rmSync(agentDir, { recursive: true, force: true });
});

/** A TUI-like session (statuses recorded) in a fresh project, or reopening `file`. */
async function start(file?: string): Promise<{ s: ScriptedSession; ui: DialogStub }> {
	const ui = createDialogStub();
	const s = await createScriptedSession({
		extensionPaths: install.paths,
		ui: { context: ui.ui },
		session: file ? { open: file } : "file",
		autoDispose: false,
	});
	open.push(s);
	return { s, ui };
}

const globalFile = (name: string) => join(agentDir, "pi-lifecycle", `${name}.json`);
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
/** The session file's text (Pi writes the file once the first answer arrived). */
const sessionLines = (s: ScriptedSession) =>
	s.sessionFile && existsSync(s.sessionFile) ? readFileSync(s.sessionFile, "utf8") : "";

// Several sessions per test (reload, reopen, another project), each starting all three extensions.
describe("every switch in the root README: its scope and where it is stored", { timeout: 240_000 }, () => {
	it("/reset off: this session, in the session file; kept on reload and reopen; a new session in another project is on", async () => {
		const { s, ui } = await start();
		s.script(reply("hello"));
		await s.prompt("hi");
		await s.prompt("/reset off");
		expect(ui.statuses.get("pi-reset")).toBe("reset: off");
		expect(sessionLines(s)).toMatch(/"customType":"pi-reset\/state"[^\n]*"enabled":false/);
		expect(existsSync(globalFile("pi-reset"))).toBe(false);
		await s.reload();
		expect(ui.statuses.get("pi-reset")).toBe("reset: off");

		const reopened = await start(s.sessionFile);
		expect(reopened.ui.statuses.get("pi-reset")).toBe("reset: off");
		const other = await start();
		expect(other.ui.statuses.get("pi-reset")).toBe("reset: w0");
	});

	it("jscpd_run off (the model): this session only, stored nowhere; gone on reload", async () => {
		const { s, ui } = await start();
		s.script(toolCall("jscpd_run", { command: "off" }), reply("checks are off"));
		await s.prompt("turn the duplicate checks off");
		expect(ui.statuses.get("pi-jscpd")).toBe("jscpd: off");
		expect(existsSync(globalFile("pi-jscpd"))).toBe(false);
		expect(existsSync(join(s.cwd, ".pi"))).toBe(false);
		expect(sessionLines(s)).not.toMatch(/"customType":"pi-jscpd\/[^"]*"[^\n]*"enabled"/);
		await s.reload();
		expect(ui.statuses.get("pi-jscpd")).not.toBe("jscpd: off");
	});

	it("/jscpd off (you): every project, in the global pi-jscpd.json; a new session in another project is off", async () => {
		const { s, ui } = await start();
		await s.prompt("/jscpd off");
		expect(ui.statuses.get("pi-jscpd")).toBe("jscpd: off");
		expect(readJson(globalFile("pi-jscpd"))).toEqual({ enabled: false });
		expect(existsSync(join(s.cwd, ".pi"))).toBe(false);
		const other = await start();
		expect(other.ui.statuses.get("pi-jscpd")).toBe("jscpd: off");
		await other.s.prompt("/jscpd on");
		expect(readJson(globalFile("pi-jscpd"))).toEqual({ enabled: true });
		expect(other.ui.statuses.get("pi-jscpd")).not.toBe("jscpd: off");
	});

	it("/goal retry-usage-limits on (you): every project, in the global pi-goal.json; never the session file", async () => {
		const { s, ui } = await start();
		await s.prompt("/goal retry-usage-limits on");
		expect(ui.notices.at(-1)?.message).toMatch(/^retryUsageLimits is now on; saved to /);
		expect(readJson(globalFile("pi-goal"))).toEqual({ retryUsageLimits: true });
		expect(existsSync(join(s.cwd, ".pi"))).toBe(false);
		expect(sessionLines(s)).not.toContain("retryUsageLimits");
	});

	it("a goal's token budget: that goal, in the session file; never a settings file", async () => {
		const { s, ui } = await start();
		const gate = deferred();
		s.script(async () => {
			await gate.promise;
			return reply("Working on it.");
		});
		await s.prompt("/goal --tokens 100k write the report");
		await s.abort();
		gate.resolve();
		await s.waitForIdle();
		await heldPause();
		expect(ui.statuses.get("pi-goal")).toMatch(/^goal: paused · interrupted · budget [\d.]+k?\/100k$/);
		expect(sessionLines(s)).toMatch(/"customType":"pi-goal\/state"[^\n]*"tokenBudget":100000/);
		expect(existsSync(globalFile("pi-goal"))).toBe(false);
		const reopened = await start(s.sessionFile);
		expect(reopened.ui.statuses.get("pi-goal")).toMatch(
			/^goal: paused · interrupted · budget [\d.]+k?\/100k$/,
		);
		const other = await start();
		expect(other.ui.statuses.get("pi-goal")).toBeUndefined();
	});
});

describe("Pi's one status line", () => {
	it("the three footer statuses read apart: Pi joins them with single spaces, each starts with its name and a colon", async () => {
		const { s, ui } = await start();
		const gate = deferred();
		s.script(async () => {
			await gate.promise;
			return reply("Working on it.");
		});
		await s.prompt("/goal write the report");
		await s.abort();
		gate.resolve();
		await s.waitForIdle();
		await heldPause();
		// As Pi's footer builds the line: sorted by status key, joined with one space.
		const line = [...ui.statuses.entries()]
			.filter((entry): entry is [string, string] => entry[1] !== undefined)
			.sort(([a], [b]) => a.localeCompare(b))
			.map(([, text]) => text)
			.join(" ");
		expect(line).toMatch(/^goal: paused · interrupted jscpd: [^:]+ reset: w0$/);
	});
});
