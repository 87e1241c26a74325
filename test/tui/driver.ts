/**
 * Drives the real interactive `pi` (the dev-pinned host's bundled cli.js) in a detached tmux
 * session of a fixed size: isolated HOME / PI_CODING_AGENT_DIR, offline, the scripted faux model
 * (test/cli/faux-provider-extension.ts) and the three extensions from their TypeScript sources
 * (the kit is resolved by Pi's loader to its built dist, which the suite's `^build` provides).
 *
 * Every tmux call uses a private socket in the run's temp directory, so `close()` ends exactly the
 * server this driver started. Synchronisation is by polling `capture-pane -p`, never by sleeping.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root. */
export const repoRoot = join(here, "..", "..");
const cliPath = join(
	repoRoot,
	"node_modules",
	"@earendil-works",
	"pi-coding-agent",
	"dist",
	"bundle",
	"cli.js",
);

/** The extensions the tour loads, from source (`-e` paths). */
export const EXTENSIONS = ["pi-goal", "pi-reset", "pi-jscpd"].map((name) =>
	join(repoRoot, "packages", name, "src", "index.ts"),
);

/** Path of a faux script in test/cli/scripts or test/tui/scripts. */
export function fauxScript(name: string): string {
	const local = join(here, "scripts", name);
	return existsSync(local) ? local : join(repoRoot, "test", "cli", "scripts", name);
}

/** Path of a test-only extension in test/tui/fixtures (for `extraExtensions`). */
export function fixtureExtension(name: string): string {
	return join(here, "fixtures", name);
}

/** Options of {@link startPi}. */
export interface StartOptions {
	/** Faux script module (see faux-provider-extension.ts); none = the model is never asked. */
	readonly script?: string;
	/** Terminal columns (default 120). */
	readonly cols?: number;
	/** Terminal rows (default 40). */
	readonly rows?: number;
	/** Extra environment. */
	readonly env?: Record<string, string>;
	/** Files to write into the agent directory before start (relative path → content). */
	readonly agentFiles?: Record<string, string>;
	/** Files to write into the project (cwd) before start. */
	readonly projectFiles?: Record<string, string>;
	/** Sets PI_TUI_GATE to a file in the run's directory (see scripts/gated-goal.mjs and `openGate`). */
	readonly gated?: boolean;
	/** More extensions to load after the three (`-e` paths), e.g. test fixtures in test/tui/fixtures. */
	readonly extraExtensions?: readonly string[];
	/** Run pi in this existing directory instead of a fresh one (e.g. a hostile repository). */
	readonly cwd?: string;
}

/** A running interactive pi. */
export interface PiTui {
	/** Sends tmux key names (`Enter`, `Escape`, `Tab`, `Down`, `C-c`) or literal text with `{ literal: true }`. */
	sendKeys(...keys: string[]): void;
	/** Types text literally (no key-name interpretation). */
	type(text: string): void;
	/** The current screen as plain text. */
	capture(): string;
	/** Polls the screen until `pattern` matches; returns the screen. Throws with the last screen on timeout. */
	waitForScreen(pattern: RegExp, timeoutMs?: number): Promise<string>;
	/** Polls until `pattern` no longer matches. */
	waitForNoMatch(pattern: RegExp, timeoutMs?: number): Promise<string>;
	/** Creates the PI_TUI_GATE file (a gated faux step proceeds). */
	openGate(): void;
	/** The isolated directories. */
	readonly dirs: { readonly home: string; readonly agentDir: string; readonly cwd: string };
	/** Kills the tmux server of this run and removes its temp directory. Idempotent. */
	close(): void;
}

function writeFiles(root: string, files: Record<string, string> | undefined): void {
	for (const [path, content] of Object.entries(files ?? {})) {
		const full = join(root, path);
		mkdirSync(dirname(full), { recursive: true });
		writeFileSync(full, content);
	}
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts pi in tmux and waits until its editor and footer are drawn. */
export async function startPi(options: StartOptions = {}): Promise<PiTui> {
	const root = mkdtempSync(join(tmpdir(), "pi-lifecycle-tui-"));
	const dirs = {
		home: join(root, "home"),
		agentDir: join(root, "agent"),
		cwd: options.cwd ?? join(root, "project"),
	};
	for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
	writeFiles(dirs.agentDir, options.agentFiles);
	writeFiles(dirs.cwd, options.projectFiles);
	const socket = join(root, "tmux.sock");
	// Extended keys on, as Pi's tmux guide asks (otherwise Pi prints a warning into the transcript).
	const config = join(root, "tmux.conf");
	writeFileSync(config, "set -g extended-keys on\nset -g status off\n");
	const session = "pi";
	const tmux = (args: string[]) =>
		execFileSync("tmux", ["-S", socket, ...args], { encoding: "utf8", timeout: 10_000 });
	const env: Record<string, string> = {
		HOME: dirs.home,
		PI_CODING_AGENT_DIR: dirs.agentDir,
		PI_OFFLINE: "1",
		TERM: "xterm-256color",
		LANG: "C.UTF-8",
		LC_ALL: "C.UTF-8",
		...(options.script ? { PI_LIFECYCLE_FAUX_SCRIPT: options.script } : {}),
		...(options.gated ? { PI_TUI_GATE: join(root, "gate") } : {}),
		...options.env,
	};
	const command = [
		"env",
		...Object.entries(env).map(([key, value]) => `${key}=${value}`),
		process.execPath,
		cliPath,
		"-ne",
		"-e",
		join(repoRoot, "test", "cli", "faux-provider-extension.ts"),
		...[...EXTENSIONS, ...(options.extraExtensions ?? [])].flatMap((path) => ["-e", path]),
		"--model",
		"pi-lifecycle-faux/scripted",
	];
	tmux([
		"-f",
		config,
		"new-session",
		"-d",
		"-s",
		session,
		"-x",
		String(options.cols ?? 120),
		"-y",
		String(options.rows ?? 40),
		"-c",
		dirs.cwd,
		"--",
		...command,
	]);
	let closed = false;
	const capture = () => {
		try {
			return tmux(["capture-pane", "-p", "-t", session]);
		} catch (error) {
			return `[capture failed: ${(error as Error).message}]`;
		}
	};
	const poll = async (done: (screen: string) => boolean, timeoutMs: number, what: string) => {
		const deadline = Date.now() + timeoutMs;
		let screen = capture();
		while (!done(screen)) {
			if (Date.now() > deadline)
				throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}. Screen:\n${screen}`);
			await sleep(100);
			screen = capture();
		}
		return screen;
	};
	const tui: PiTui = {
		dirs,
		sendKeys: (...keys) => {
			tmux(["send-keys", "-t", session, ...keys]);
		},
		type: (text) => {
			tmux(["send-keys", "-t", session, "-l", "--", text]); // "--": text may start with a dash
		},
		capture,
		openGate: () => writeFileSync(join(root, "gate"), ""),
		waitForScreen: (pattern, timeoutMs = 15_000) => poll((s) => pattern.test(s), timeoutMs, String(pattern)),
		waitForNoMatch: (pattern, timeoutMs = 15_000) =>
			poll((s) => !pattern.test(s), timeoutMs, `no ${String(pattern)}`),
		close: () => {
			if (closed) return;
			closed = true;
			try {
				tmux(["kill-server"]);
			} catch {
				// Already gone.
			}
			rmSync(root, { recursive: true, force: true });
		},
	};
	try {
		// Ready when the footer shows the faux model; a first-start prompt, if any, is accepted. Pi's start
		// takes over 20 s on a loaded 2-core machine; the waits end as soon as the screen matches.
		const screen = await tui.waitForScreen(/scripted|trust|Trust/, 90_000);
		if (/trust/i.test(screen) && !/scripted/.test(screen)) {
			tui.sendKeys("Enter");
			await tui.waitForScreen(/scripted/, 60_000);
		}
		// The extensions' statuses appear once session_start ran.
		await tui.waitForScreen(/reset/, 60_000);
	} catch (error) {
		tui.close();
		throw error;
	}
	return tui;
}

/**
 * The text in pi's editor: the lines between the last two horizontal rules of the screen. While the
 * agent works the top rule carries the working indicator (`── ⠴ Working ───…`).
 */
export function editorText(screen: string): string {
	const lines = screen.split("\n");
	const rules = lines.flatMap((line, index) => (/^─{20,}|^── .*─{20,}\s*$/.test(line) ? [index] : []));
	const [top, bottom] = rules.slice(-2);
	if (top === undefined || bottom === undefined) return "";
	return lines
		.slice(top + 1, bottom)
		.map((line) => line.trim())
		.join("\n")
		.trim();
}

/** Types a line into a dialog or the editor and presses Enter once. */
export function submit(tui: PiTui, line: string): void {
	tui.type(line);
	tui.sendKeys("Enter");
}

/**
 * Runs a command line from the editor. An open autocomplete list takes the first Enter (it
 * accepts the highlighted completion), so Enter is pressed again until the editor is empty.
 */
export async function command(tui: PiTui, line: string): Promise<void> {
	tui.type(line);
	await tui.waitForScreen(new RegExp(line.slice(0, 30).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")), 10_000);
	for (let attempt = 0; attempt < 3; attempt++) {
		tui.sendKeys("Enter");
		const deadline = Date.now() + 3_000;
		while (Date.now() < deadline) {
			if (editorText(tui.capture()) !== line.trim()) return;
			await sleep(100);
		}
	}
	throw new Error(`The editor kept "${line}":\n${tui.capture()}`);
}

/** The footer lines (the last `count` non-empty lines of the screen). */
export function footer(screen: string, count = 3): string {
	return screen
		.split("\n")
		.filter((line) => line.trim() !== "")
		.slice(-count)
		.join("\n");
}

/** The line of a select dialog that carries the cursor (`→`), or undefined. */
function cursorLine(screen: string): string | undefined {
	return screen.split("\n").find((line) => /^\s*→/.test(line));
}

/**
 * Moves a select dialog's cursor to the entry whose label matches, then presses Enter. After each
 * key it waits until the cursor line actually moved (the screen re-rendered), so keys never run
 * ahead of the dialog; it searches downwards first, then upwards.
 */
export async function choose(tui: PiTui, label: RegExp): Promise<void> {
	await tui.waitForScreen(/^\s*→/m, 10_000);
	for (const key of ["Down", "Up"] as const) {
		for (let step = 0; step < 20; step++) {
			const current = cursorLine(tui.capture());
			if (current && label.test(current)) {
				tui.sendKeys("Enter");
				return;
			}
			tui.sendKeys(key);
			const moved = await tui
				.waitForScreen(new RegExp(`^(?!${escapeRegExp(current ?? "")}$)\\s*→`, "m"), 2_000)
				.then(() => true)
				.catch(() => false);
			if (!moved) break; // the end of the list in this direction
		}
	}
	throw new Error(`No menu entry ${label}:\n${tui.capture()}`);
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
