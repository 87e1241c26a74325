import { spawn } from "node:child_process";
import {
	chmodSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { ProcessRegistry, runProcess } from "../src/process.js";
import { isInsideReal, minimalEnv, resolveExecutable, safePathEntries } from "../src/process-policy.js";

function sandbox(): { base: string; root: string; outside: string } {
	const base = mkdtempSync(join(tmpdir(), "kit-process-"));
	const root = join(base, "project");
	const outside = join(base, "outside");
	mkdirSync(join(root, "bin"), { recursive: true });
	mkdirSync(outside, { recursive: true });
	return { base, root, outside };
}

function script(path: string, body: string): string {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, `#!/bin/sh\n${body}\n`);
	chmodSync(path, 0o755);
	return path;
}

/** A tool that runs `work` in a grandchild and waits for it; `grandchild()` is that grandchild's pid. */
function withGrandchild(base: string, work: string): { tool: string; grandchild: () => number } {
	const pidFile = join(base, "grandchild.pid");
	const tool = script(join(base, "tools", "work"), `${work} & echo $! > ${pidFile}; wait`);
	return { tool, grandchild: () => readPid(pidFile) };
}

/** The pid a script wrote to `file`; throws until all of it is there (the shell creates the file before it writes). */
function readPid(file: string): number {
	const pid = existsSync(file) ? Number(readFileSync(file, "utf8").trim()) : Number.NaN;
	if (!Number.isInteger(pid) || pid <= 0) throw new Error(`no pid in ${file} yet`);
	return pid;
}

/** runProcess options for `command` in the untrusted project `root`. */
function untrusted(root: string, command: string) {
	return { command, args: [], cwd: root, trust: { root, trusted: false } };
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

describe("process policy", () => {
	it("untrusted: relative and in-project PATH entries are dropped, absolute outside ones kept", () => {
		const { root, outside } = sandbox();
		symlinkSync(join(root, "bin"), join(outside, "link-into-project"));
		const path = [
			".",
			"node_modules/.bin",
			join(root, "bin"),
			join(outside, "link-into-project"),
			outside,
		].join(delimiter);
		expect(safePathEntries(path, { root, trusted: false })).toEqual([outside]);
		expect(safePathEntries(path, { root, trusted: true })).toHaveLength(5);
	});

	it("untrusted: an executable inside the project is refused, also through a symlink; trusted runs it", () => {
		const { root, outside } = sandbox();
		const planted = script(join(root, "bin", "tool"), "exit 0");
		symlinkSync(planted, join(outside, "tool"));
		expect(resolveExecutable(planted, { root, trusted: false }).ok).toBe(false);
		expect(resolveExecutable(join(outside, "tool"), { root, trusted: false }).ok).toBe(false);
		expect(resolveExecutable("tool", { root, trusted: false }, { pathEnv: join(root, "bin") }).ok).toBe(
			false,
		);
		expect(resolveExecutable(planted, { root, trusted: true })).toEqual({ ok: true, path: planted });
		expect(resolveExecutable(planted, { root, trusted: false }, { bundled: true }).ok).toBe(true);
		expect(resolveExecutable("./bin/tool", { root, trusted: true }).ok).toBe(false);
	});

	it("containment is by real path: '..' and symlinks that leave the root are outside", () => {
		const { root, outside } = sandbox();
		symlinkSync(outside, join(root, "escape"));
		expect(isInsideReal(root, join(root, "bin"))).toBe(true);
		expect(isInsideReal(root, join(root, "bin", "..", "..", "outside"))).toBe(false);
		expect(isInsideReal(root, join(root, "escape", "x.ts"))).toBe(false);
		expect(isInsideReal(root, join(root, "not-yet", "x.ts"))).toBe(true);
	});

	it("the environment is minimal: NODE_OPTIONS, LD_PRELOAD, GIT_* and secrets are dropped", () => {
		const env = minimalEnv(
			{
				PATH: `.${delimiter}/usr/bin`,
				HOME: "/home/u",
				LC_ALL: "C",
				NODE_OPTIONS: "--require /evil.js",
				LD_PRELOAD: "/evil.so",
				GIT_DIR: "/evil",
				GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='evil'",
				OPENAI_API_KEY: "sk",
			},
			{ root: "/nonexistent-project", trusted: false },
			{ EXTRA: "1" },
		);
		expect(env).toEqual({ PATH: "/usr/bin", HOME: "/home/u", LC_ALL: "C", EXTRA: "1" });
	});
});

describe("runProcess", () => {
	it("never a shell: arguments with shell syntax reach the program literally", async () => {
		const { root, base } = sandbox();
		const marker = join(base, "pwned");
		const outcome = await runProcess({
			command: process.execPath,
			args: ["-e", "console.log(JSON.stringify(process.argv.slice(1)))", `$(touch ${marker})`, "; touch x"],
			cwd: root,
			trust: { root, trusted: false },
			timeoutMs: 10_000,
		});
		expect(outcome.status).toBe("exited");
		if (outcome.status === "exited")
			expect(JSON.parse(outcome.stdout.text)).toEqual([`$(touch ${marker})`, "; touch x"]);
		expect(existsSync(marker)).toBe(false);
	});

	it("bounded output: the caller sees truncated: true, never a silent drop", async () => {
		const { root } = sandbox();
		const outcome = await runProcess({
			command: process.execPath,
			args: ["-e", "process.stdout.write('x'.repeat(200000))"],
			cwd: root,
			trust: { root, trusted: false },
			timeoutMs: 10_000,
			maxOutputBytes: 1024,
		});
		expect(outcome.status).toBe("exited");
		if (outcome.status === "exited") {
			expect(outcome.stdout.truncated).toBe(true);
			expect(outcome.stdout.text.length).toBeLessThan(1200);
			expect(outcome.stderr.truncated).toBe(false);
		}
	});

	it("untrusted: a planted executable inside the project is not run", async () => {
		const { root, base } = sandbox();
		const marker = join(base, "ran");
		const planted = script(join(root, "bin", "jscpd"), `touch ${marker}`);
		const outcome = await runProcess({
			...untrusted(root, planted),
			timeoutMs: 5_000,
		});
		expect(outcome.status).toBe("unavailable");
		expect(existsSync(marker)).toBe(false);
	});

	it("timeout kills the whole process group, grandchildren included", async () => {
		const { root, base } = sandbox();
		const { tool, grandchild } = withGrandchild(base, "sleep 30");
		const outcome = await runProcess({ ...untrusted(root, tool), timeoutMs: 300, killGraceMs: 100 });
		expect(outcome.status).toBe("timeout");
		await vi.waitFor(() => expect(alive(grandchild())).toBe(false), { timeout: 3_000 });
	});

	it.each([
		{
			rule: "memory bound: a group over maxMemoryBytes is killed, grandchildren included, and the outcome says memory",
			work: "sleep 30",
			maxMemoryBytes: 1024,
			outcome: { status: "memory", limitBytes: 1024 },
		},
		{
			rule: "memory bound: a group under maxMemoryBytes runs to its end",
			work: "sleep 0.6",
			maxMemoryBytes: 1024 * 1024 * 1024,
			outcome: { status: "exited", exitCode: 0 },
		},
	])("$rule", async ({ work, maxMemoryBytes, outcome }) => {
		const { root, base } = sandbox();
		const { tool, grandchild } = withGrandchild(base, work);
		expect(await runProcess({ ...untrusted(root, tool), timeoutMs: 20_000, maxMemoryBytes })).toMatchObject(
			outcome,
		);
		await vi.waitFor(() => expect(alive(grandchild())).toBe(false), { timeout: 3_000 });
	});

	it("abort kills the process group; an already aborted signal starts nothing", async () => {
		const { root, base } = sandbox();
		const pidFile = join(base, "child.pid");
		const tool = script(join(base, "tools", "hang"), `echo $$ > ${pidFile}; sleep 30`);
		const controller = new AbortController();
		const running = runProcess({
			...untrusted(root, tool),
			timeoutMs: 30_000,
			signal: controller.signal,
		});
		const pid = await vi.waitFor(() => readPid(pidFile), { timeout: 5_000 });
		controller.abort();
		expect(await running).toEqual({ status: "aborted", started: true });
		await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 3_000 });
		const skipped = await runProcess({
			...untrusted(root, tool),
			timeoutMs: 30_000,
			signal: controller.signal,
		});
		expect(skipped).toEqual({ status: "aborted", started: false });
	});

	it("closeAll (shutdown) kills at once without waiting and refuses later runs", async () => {
		const { root, base } = sandbox();
		const pidFile = join(base, "child.pid");
		const tool = script(join(base, "tools", "hang"), `echo $$ > ${pidFile}; sleep 30`);
		const registry = new ProcessRegistry();
		const running = runProcess({
			...untrusted(root, tool),
			timeoutMs: 30_000,
			registry,
		});
		const pid = await vi.waitFor(() => readPid(pidFile), { timeout: 5_000 });
		registry.closeAll();
		expect(await running).toEqual({ status: "aborted", started: true });
		expect(registry.size).toBe(0);
		expect(
			await runProcess({
				...untrusted(root, tool),
				timeoutMs: 1_000,
				registry,
			}),
		).toEqual({ status: "aborted", started: false });
		await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 10_000 });
	});

	it("parent death: after a SIGKILL of the process that started it, the child does not outlive it", async () => {
		const { root, base } = sandbox();
		const pidFile = join(base, "child.pid");
		const tool = script(join(base, "tools", "hang"), `echo $$ > ${pidFile}; sleep 60`);
		const processModule = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "process.ts");
		// A stand-in for Pi: loads the helper from source (".js" specifiers mapped to ".ts") and starts
		// a hanging child, then idles until it is killed.
		const hook = `data:text/javascript,export async function resolve(s, c, next) { try { return await next(s, c); } catch (e) { if (s.endsWith(".js")) return next(s.slice(0, -3) + ".ts", c); throw e; } }`;
		const parentSource = `import { register } from "node:module";
register(${JSON.stringify(hook)});
const { runProcess } = await import(${JSON.stringify(processModule)});
runProcess({ command: ${JSON.stringify(tool)}, args: [], cwd: ${JSON.stringify(root)}, trust: { root: ${JSON.stringify(root)}, trusted: false }, timeoutMs: 60000 });
setInterval(() => {}, 1000);`;
		const parentFile = join(base, "parent.mjs");
		writeFileSync(parentFile, parentSource);
		const parent = spawn(process.execPath, ["--experimental-strip-types", "--no-warnings", parentFile], {
			stdio: "ignore",
		});
		const pid = await vi.waitFor(() => readPid(pidFile), {
			timeout: 30_000,
		});
		expect(alive(pid)).toBe(true);
		parent.kill("SIGKILL");
		await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 30_000, interval: 50 });
	});

	it("parent death before the group reached the watchdog: the child is still found by its environment marker (Linux)", async () => {
		if (process.platform !== "linux") return;
		const { base } = sandbox();
		const pidFile = join(base, "child.pid");
		const tool = script(join(base, "tools", "hang"), `echo $$ > ${pidFile}; sleep 60`);
		const watchdogModule = join(dirname(fileURLToPath(import.meta.url)), "..", "src", "process-watchdog.ts");
		// Pi descheduled between spawn and the write to the watchdog: the child runs, its group was never listed.
		const parentSource = `import { spawn } from "node:child_process";
const { startWatchdog, WATCHDOG_MARKER } = await import(${JSON.stringify(watchdogModule)});
startWatchdog({ watchdog: true, environmentSweep: true }); // as on Linux (platform.ts)
const [name, value] = WATCHDOG_MARKER.split("=");
spawn(${JSON.stringify(tool)}, [], { detached: true, stdio: "ignore", env: { PATH: process.env.PATH, [name]: value } });
setInterval(() => {}, 1000);`;
		const parentFile = join(base, "parent-unlisted.mjs");
		writeFileSync(parentFile, parentSource);
		const parent = spawn(process.execPath, ["--experimental-strip-types", "--no-warnings", parentFile], {
			stdio: "ignore",
		});
		const pid = await vi.waitFor(() => readPid(pidFile), {
			timeout: 30_000,
		});
		expect(alive(pid)).toBe(true);
		parent.kill("SIGKILL");
		await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 30_000, interval: 50 });
	});
});
