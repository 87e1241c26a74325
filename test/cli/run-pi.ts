/**
 * Runs the real `pi` CLI (the dev-pinned host's bundled cli.js) under Node 22 in print mode (json by default),
 * offline, with an isolated HOME and PI_CODING_AGENT_DIR, and a scripted faux model.
 */
import { execFile } from "node:child_process";
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	realpathSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, "..", "..");

/**
 * Path of the host CLI entry (`pi` bin): the dev-pinned Pi, or Pi 1.3.0 when
 * `PI_LIFECYCLE_HOST=1.3.0` (installed at the root as `pi-coding-agent-1.3.0`).
 */
export function piCliPath(): string {
	const dir =
		process.env.PI_LIFECYCLE_HOST === "1.3.0" ? "pi-coding-agent-1.3.0" : "@earendil-works/pi-coding-agent";
	return join(realpathSync(join(repoRoot, "node_modules", dir)), "dist", "bundle", "cli.js");
}

/** Options for {@link runPi}. */
export interface RunPiOptions {
	/** Extension paths passed with `-e` (files or package directories). */
	extensions: string[];
	/** Path of the faux script module (see faux-provider-extension.ts). */
	script: string;
	/** The prompt (`-p`). */
	prompt: string;
	/** Run with Pi's discovered extensions and installed packages (no `-ne`). Default false. */
	discover?: boolean;
	/** Reuse these isolated directories (e.g. after `piCommand(["install", …])`). */
	dirs?: { home: string; agentDir: string };
	/** Working directory; a fresh temp project by default. */
	cwd?: string;
	/** Extra CLI args. */
	args?: string[];
	/** Extra environment. */
	env?: Record<string, string>;
	/** Timeout in ms (default 60 s). */
	timeoutMs?: number;
	/** `json` (`--mode json -p`, the default) or `text` (plain `-p`). */
	mode?: "json" | "text";
	/** Files written into the agent dir before the run (path relative to it → content). */
	agentFiles?: Record<string, string>;
}

/** What one CLI run produced. */
export interface PiRun {
	code: number | null;
	/** Wall time of the run, in ms. */
	elapsedMs: number;
	stdout: string;
	stderr: string;
	/** Parsed JSON event lines of `--mode json`. */
	events: { type: string; [key: string]: unknown }[];
	/** Provider requests logged by the faux provider. */
	requests: { index: number; messages: unknown[] }[];
	/** The isolated directories (removed by cleanup). */
	dirs: { home: string; agentDir: string; cwd: string };
	cleanup(): void;
}

/** Runs `pi --mode json -p <prompt>` (or `pi -p <prompt>`) and resolves when the process exits. */
export function runPi(options: RunPiOptions): Promise<PiRun> {
	const root = mkdtempSync(join(tmpdir(), "pi-lifecycle-cli-"));
	const home = options.dirs?.home ?? join(root, "home");
	const agentDir = options.dirs?.agentDir ?? join(root, "agent");
	const cwd = options.cwd ?? join(root, "project");
	for (const dir of [home, agentDir, cwd]) mkdirSync(dir, { recursive: true });
	for (const [path, content] of Object.entries(options.agentFiles ?? {})) {
		mkdirSync(dirname(join(agentDir, path)), { recursive: true });
		writeFileSync(join(agentDir, path), content);
	}
	const log = join(root, "requests.jsonl");
	const args = [
		piCliPath(),
		...(options.discover ? [] : ["-ne"]),
		"-e",
		join(here, "faux-provider-extension.ts"),
		...options.extensions.flatMap((ext) => ["-e", ext]),
		"--model",
		"pi-lifecycle-faux/scripted",
		...(options.mode === "text" ? [] : ["--mode", "json"]),
		...(options.args ?? []),
		"-p",
		options.prompt,
	];
	const started = Date.now();
	return new Promise((resolve) => {
		const child = execFile(
			process.execPath,
			args,
			{
				cwd,
				timeout: options.timeoutMs ?? 60_000,
				maxBuffer: 64 * 1024 * 1024,
				env: {
					...process.env,
					HOME: home,
					PI_CODING_AGENT_DIR: agentDir,
					PI_OFFLINE: "1",
					PI_LIFECYCLE_FAUX_SCRIPT: options.script,
					PI_LIFECYCLE_FAUX_LOG: log,
					...options.env,
				},
			},
			(error, stdout, stderr) => {
				const events = stdout
					.split("\n")
					.filter((line) => line.startsWith("{"))
					.flatMap((line) => {
						try {
							return [JSON.parse(line)];
						} catch {
							return [];
						}
					});
				const requests = existsSync(log)
					? readFileSync(log, "utf8")
							.split("\n")
							.filter(Boolean)
							.map((line) => JSON.parse(line))
					: [];
				resolve({
					code: error ? ((error as { code?: number }).code ?? 1) : 0,
					elapsedMs: Date.now() - started,
					stdout,
					stderr,
					events,
					requests,
					dirs: { home, agentDir, cwd },
					cleanup: () => rmSync(root, { recursive: true, force: true }),
				});
			},
		);
		// Print mode reads piped stdin until EOF: give it none.
		child.stdin?.end();
	});
}

/** Runs a non-prompt `pi` subcommand (install, list, remove, …) in isolated directories. */
export function piCommand(
	args: string[],
	dirs: { home: string; agentDir: string; cwd: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
	return new Promise((resolve) => {
		const child = execFile(
			process.execPath,
			[piCliPath(), ...args],
			{
				cwd: dirs.cwd,
				timeout: 60_000,
				env: { ...process.env, HOME: dirs.home, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1" },
			},
			(error, stdout, stderr) =>
				resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
		);
		child.stdin?.end();
	});
}
