/** Fixtures for pi-jscpd tests: small TypeScript projects with duplicated code and fake jscpd executables. */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ExtensionFactory, ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { createScriptedSession, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, expect, vi } from "vitest";
import type { JscpdController } from "../src/adapters/controller.js";
import { pinnedCandidate } from "../src/adapters/locate.js";
import { createJscpdExtension, type JscpdOptions } from "../src/index.js";

/** A ~20-line function that jscpd reports when it appears twice. */
export function duplicatedFunction(name: string): string {
	return `export function ${name}(items: { price: number; qty: number; tax: number }[]) {
	let subtotal = 0;
	let taxTotal = 0;
	for (const item of items) {
		const line = item.price * item.qty;
		subtotal += line;
		taxTotal += line * item.tax;
		if (line > 1000) {
			console.log("large line", line);
		}
	}
	const discount = subtotal > 5000 ? subtotal * 0.05 : 0;
	const shipping = subtotal > 100 ? 0 : 9.99;
	const total = subtotal - discount + shipping + taxTotal;
	return {
		subtotal,
		taxTotal,
		discount,
		shipping,
		total,
	};
}
`;
}

/** A different ~20-line function (no duplicate of the one above). */
export function otherFunction(name: string): string {
	return `export function ${name}(words: string[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const raw of words) {
		const word = raw.trim().toLowerCase();
		if (word.length === 0) continue;
		counts.set(word, (counts.get(word) ?? 0) + 1);
	}
	return counts;
}
`;
}

/** A temp dir (canonical) removed by the returned cleanup. */
export function tempDir(prefix: string): string {
	return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** Writes files relative to `root`. */
export function writeFiles(root: string, files: Record<string, string>): void {
	for (const [path, text] of Object.entries(files)) {
		mkdirSync(dirname(join(root, path)), { recursive: true });
		writeFileSync(join(root, path), text);
	}
}

/** The pinned jscpd native binary (tests fail loudly if it is missing). */
export function realJscpd(): string {
	const pinned = pinnedCandidate();
	if (!pinned) throw new Error("the pinned jscpd binary is not installed");
	return pinned.command;
}

/** Writes an executable `/bin/sh` script. */
export function writeScript(path: string, body: string): string {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, `#!/bin/sh\n${body}\n`);
	chmodSync(path, 0o755);
	return path;
}

/** Process lines whose command line contains `marker`. */
export function processesWith(marker: string): string[] {
	const out = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
	return out.split("\n").filter((line) => line.includes(marker) && !line.includes("ps -eo"));
}

/** A scripted session plus the live pi-jscpd controller (replaced on reload). */
export type JscpdSession = ScriptedSession & { readonly controller: JscpdController };

/** A scripted session with pi-jscpd loaded, in `project`, with an isolated agent dir. */
export async function jscpdSession(options: {
	project: string;
	agentDir: string;
	jscpd?: Omit<JscpdOptions, "agentDir">;
	extra?: ExtensionFactory[];
	/** Extensions loaded before pi-jscpd (load-order tests). */
	before?: ExtensionFactory[];
	session?: "memory" | "file" | { open: string };
	/** Load the harness's recorder (default true; it subscribes to every event, `tool_call` too). */
	recorder?: boolean;
	/** An interactive UI (TUI mode), e.g. the kit's `createDialogStub().ui`. */
	ui?: ExtensionUIContext;
	/** Pi's trust answer for the project from the start (default true, as in Pi's SDK). */
	trusted?: boolean;
}): Promise<JscpdSession> {
	let controller: JscpdController | undefined;
	const h = await createScriptedSession({
		cwd: options.project,
		session: options.session,
		recorder: options.recorder,
		...(options.trusted === undefined ? {} : { projectTrusted: options.trusted }),
		...(options.ui ? { ui: { context: options.ui } } : {}),
		extensions: [
			...(options.before ?? []),
			{
				name: "pi-jscpd",
				factory: createJscpdExtension({
					agentDir: () => options.agentDir,
					...options.jscpd,
					onController: (c) => {
						controller = c;
					},
				}),
			},
			...(options.extra ?? []),
		],
	});
	return Object.defineProperty(h, "controller", {
		get(): JscpdController {
			if (!controller) throw new Error("pi-jscpd did not load");
			return controller;
		},
	}) as JscpdSession;
}

/** Custom messages of a type on the current branch. */
export function customMessages(h: ScriptedSession, customType: string) {
	return h.session.sessionManager
		.getBranch()
		.filter((e) => e.type === "custom_message" && e.customType === customType) as {
		content: unknown;
		display: boolean;
		details?: { findings?: { label: string; locations: { path: string }[] }[]; omitted?: number };
	}[];
}

/** Whether the baseline state entry has been appended (the baseline is accepted or partial). */
export function hasBaseline(h: ScriptedSession): boolean {
	return h.session.sessionManager
		.getBranch()
		.some((e) => e.type === "custom" && e.customType === "pi-jscpd/state");
}

/** Commit dates of fixture history: well before any session starts (a session's own commits are newer). */
const PAST = "2020-01-01T00:00:00Z";

/**
 * Runs git in `cwd` as a fixed test identity, dated in the past (fixture history, never the
 * session's own work). Returns stdout.
 */
export function git(cwd: string, ...args: string[]): string {
	return execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
		cwd,
		encoding: "utf8",
		stdio: ["ignore", "pipe", "ignore"],
		env: { ...process.env, GIT_AUTHOR_DATE: PAST, GIT_COMMITTER_DATE: PAST },
	});
}

/** A git repository in `root` with every file committed ("init"). */
export function gitInit(root: string): void {
	git(root, "init", "-q", "-b", "main");
	git(root, "add", ".");
	git(root, "commit", "-qm", "init");
}

/** Removes paths. */
export function remove(...paths: string[]): void {
	for (const path of paths) rmSync(path, { recursive: true, force: true });
}

/** `vi.waitFor` with a timeout that tolerates a loaded machine (background work, real processes). */
export function waitFor<T>(check: () => T | Promise<T>): Promise<T> {
	return vi.waitFor(check, { timeout: 20_000, interval: 20 });
}

/**
 * The setup every session test repeats: temp dirs removed and the session disposed after each test,
 * a session started with its baseline ready. Call once at the top of a test file.
 */
export function sessionFixtures() {
	let current: JscpdSession | undefined;
	const dirs: string[] = [];
	afterEach(async () => {
		await current?.dispose();
		current = undefined;
		remove(...dirs.splice(0));
	});
	return {
		/** A canonical temp dir removed after the test. */
		dir(prefix: string): string {
			const path = tempDir(prefix);
			dirs.push(path);
			return path;
		},
		/** A session (disposed after the test) whose baseline is captured and settled. */
		async ready(options: Parameters<typeof jscpdSession>[0]): Promise<JscpdSession> {
			const s = await jscpdSession(options);
			current = s;
			await waitFor(() => expect(hasBaseline(s)).toBe(true));
			await s.controller.settled();
			return s;
		},
	};
}
