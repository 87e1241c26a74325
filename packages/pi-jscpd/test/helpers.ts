/** Fixtures for pi-jscpd tests: small TypeScript projects with duplicated code and fake jscpd executables. */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ExtensionFactory, ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { createScriptedSession, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, expect, vi } from "vitest";
import type { JscpdController } from "../src/adapters/controller.js";
import { findNewGroups } from "../src/adapters/find-new.js";
import { pinnedCandidate, probeCapability } from "../src/adapters/locate.js";
import { ProjectIndex } from "../src/adapters/project-index.js";
import { ProcessRunner } from "../src/adapters/runner.js";
import { runScan } from "../src/adapters/scan.js";
import { indexGroups, type LineIndex } from "../src/core/identity.js";
import type { Detection } from "../src/core/kinds.js";
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

/** The issue-21 example: a 15-line invoice function. */
export const INVOICE = `export interface Item { price: number; qty: number; taxable: boolean }
export function computeInvoiceTotals(items: Item[], taxRate: number) {
	let subtotal = 0;
	let tax = 0;
	for (const item of items) {
		const line = item.price * item.qty;
		subtotal += line;
		if (item.taxable) {
			tax += line * taxRate;
		}
	}
	const total = subtotal + tax;
	const rounded = Math.round(total * 100) / 100;
	return { subtotal, tax, total: rounded };
}
`;

/** An agent's copy of {@link INVOICE} with every name changed (`computeInvoiceTotals` → `sumOrderAmounts`, `items` → `entries`, …). */
export const RENAMED = `import type { Item } from "./invoice";
export function sumOrderAmounts(entries: Item[], rate: number) {
	let base = 0;
	let levy = 0;
	for (const entry of entries) {
		const amount = entry.price * entry.qty;
		base += amount;
		if (entry.taxable) {
			levy += amount * rate;
		}
	}
	const sum = base + levy;
	const rounded = Math.round(sum * 100) / 100;
	return { base, levy, total: rounded };
}
`;

/** A third copy of {@link INVOICE}, renamed differently from {@link RENAMED}. */
export const CART = RENAMED.replace("sumOrderAmounts", "sumCartAmounts")
	.replaceAll("entries", "rows")
	.replaceAll("entry", "row")
	.replaceAll("levy", "duty")
	.replaceAll("base", "net");

/** An agent's copy of {@link INVOICE} with a statement added (a log line) and one removed (the rounding). */
export const NEAR = `import type { Item } from "./invoice";
export function orderTotals(items: Item[], taxRate: number) {
	let subtotal = 0;
	let tax = 0;
	for (const item of items) {
		const line = item.price * item.qty;
		subtotal += line;
		console.log("line", line);
		if (item.taxable) {
			tax += line * taxRate;
		}
	}
	const total = subtotal + tax;
	return { subtotal, tax, total };
}
`;

/**
 * A file of 50 alike functions (1,225 near-copy pairs in 350 lines), as generated code is: over the
 * near-copy pairs a session accepts, so its baseline goes exact-only.
 */
export const ALIKE = Array.from(
	{ length: 50 },
	(_, i) => `export function level${i}(value: number, low: number, high: number) {
	if (value < low - ${i}) {
		return low;
	}
	if (value > high + ${i}) return high;
	return Math.round(value * ${i + 2});
}
`,
).join("");

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

/**
 * The real jscpd's baseline scan of `root` (as it is now), and `find(changed, focused)`: the new
 * findings of the `changed` files against that baseline, from a whole scan or a focused one (the
 * project's fingerprint index), for tests that compare the two.
 */
export async function wholeAndFocusedFinder(root: string, detection: Detection, trusted = false) {
	const runner = new ProcessRunner();
	if (trusted) runner.bind({ root, trusted: true } as never);
	const capability = await probeCapability(runner, [{ command: realJscpd(), source: "override" }], {
		cwd: root,
	});
	const scan = await runScan(runner, capability, { root, paths: [], timeoutMs: 60_000, detection });
	if (scan.status !== "ok") throw new Error(scan.reason);
	const baseline: LineIndex = indexGroups(scan.report.groups);
	const index = new ProjectIndex({ trusted: () => trusted });
	index.prepare(root, detection);
	return async (changed: string[], focused: boolean) => {
		const outcome = await findNewGroups({
			runner,
			capability,
			root,
			timeoutMs: 60_000,
			detection,
			baseline: () => baseline,
			changed: () => new Set(changed),
			...(focused ? { focus: (set, signal) => index.focus(set, signal) } : {}),
		});
		if (outcome.status !== "ok") throw new Error(outcome.reason);
		return outcome;
	};
}

/** Writes an executable `/bin/sh` script. */
export function writeScript(path: string, body: string): string {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, `#!/bin/sh\n${body}\n`);
	chmodSync(path, 0o755);
	return path;
}

/**
 * Real jscpd behind a gate: when `<gate>/hold` exists, the next scan blocks until `<gate>/release`
 * (`<gate>/started` says it is blocked; `marker` names the waiting process for {@link processesWith}).
 */
export function gatedJscpd(gate: string, marker: string): string {
	return writeScript(
		join(gate, "bin", "jscpd"),
		`REAL='${realJscpd()}'
if [ "$1" = "--version" ]; then exec "$REAL" --version; fi
if [ -f '${gate}/hold' ]; then
	rm -f '${gate}/hold'; touch '${gate}/started'
	sh -c 'while [ ! -f "$0/release" ]; do sleep 0.05; done; : ${marker}' '${gate}'
fi
exec "$REAL" "$@"`,
	);
}

/** The real jscpd behind `<agentDir>/bin/jscpd`, failing near-copy detection (`--similarity`) with `stderr` and exit `code`. */
export function nearFailingJscpd(agentDir: string, stderr: string, code: number): string {
	return writeScript(
		join(agentDir, "bin", "jscpd"),
		`for arg in "$@"; do if [ "$arg" = "--similarity" ]; then echo "${stderr}" >&2; exit ${code}; fi; done
exec '${realJscpd()}' "$@"`,
	);
}

/** The real jscpd behind `<agentDir>/bin/jscpd`, logging each detection run ("near" or "exact") to `log`. */
export function loggingJscpd(agentDir: string, log: string): string {
	return writeScript(
		join(agentDir, "bin", "jscpd"),
		`case " $* " in *" --similarity "*) echo near >> '${log}';; *" --version "*) ;; *) echo exact >> '${log}';; esac
exec '${realJscpd()}' "$@"`,
	);
}

/**
 * A git repository in `root` holding `main` on branch main (committed, checked out) and a branch
 * `feature` that adds `feature` (a checkout then brings those files in).
 */
export function gitWithFeature(
	root: string,
	main: Record<string, string>,
	feature: Record<string, string>,
): void {
	writeFiles(root, main);
	gitInit(root);
	git(root, "checkout", "-qb", "feature");
	writeFiles(root, feature);
	git(root, "add", ".");
	git(root, "commit", "-qm", "feature");
	git(root, "checkout", "-q", "main");
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

/** The contents of every `jscpd_run` tool result on the branch, as one JSON text (what the model read). */
export function jscpdToolResults(h: ScriptedSession): string {
	const results = h.session.sessionManager
		.getBranch()
		.filter(
			(e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "jscpd_run",
		);
	return JSON.stringify(
		results.map((e) =>
			e.type === "message" && e.message.role === "toolResult" ? e.message.content : undefined,
		),
	);
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

/**
 * A git repository in `root` on `main` holding `files` (src/a.ts by default); its branch `feature`
 * adds src/legacy.ts, an old copy of src/a.ts: code a checkout, merge or pull brings in existed before.
 */
export function repoWithOldCopyOnBranch(
	root: string,
	files: Record<string, string> = { "src/a.ts": duplicatedFunction("computeTotals") },
): string {
	writeFiles(root, files);
	gitInit(root);
	git(root, "checkout", "-qb", "feature");
	writeFiles(root, { "src/legacy.ts": duplicatedFunction("legacyTotals") });
	git(root, "add", ".");
	git(root, "commit", "-qm", "legacy");
	git(root, "checkout", "-q", "main");
	return root;
}

/** The paths of each finding in the session's first findings message. */
export function reportedPaths(h: ScriptedSession): string[][] {
	return (customMessages(h, "pi-jscpd/findings")[0]?.details?.findings ?? []).map((f) =>
		f.locations.map((l) => l.path),
	);
}

/** Removes paths. */
export function remove(...paths: string[]): void {
	for (const path of paths) rmSync(path, { recursive: true, force: true });
}

/** `vi.waitFor` with a timeout that tolerates a loaded machine (background work, real processes). */
export function waitFor<T>(check: () => T | Promise<T>): Promise<T> {
	return vi.waitFor(check, { timeout: 20_000, interval: 20 });
}

/** Options of {@link sessionFixtures}' `start`: the project's files, pi-jscpd's global settings, the session's own options. */
export type StartOptions = Omit<Parameters<typeof jscpdSession>[0], "project" | "agentDir"> & {
	/** The temp project dir's name prefix. */
	readonly prefix?: string;
	/** Written to the agent dir's `pi-lifecycle/pi-jscpd.json`. */
	readonly settings?: object;
	/** A jscpd for the session, made in the agent dir (e.g. {@link nearFailingJscpd}). */
	readonly executable?: (agentDir: string) => string;
};

/**
 * The setup every session test repeats: temp dirs removed and the session disposed after each test
 * (`shutdown`: the controller shut down first), a session started with its baseline ready. Call
 * once at the top of a test file.
 */
export function sessionFixtures(options: { readonly shutdown?: boolean } = {}) {
	let current: JscpdSession | undefined;
	const dirs: string[] = [];
	afterEach(async () => {
		if (options.shutdown) await current?.controller.shutdown();
		await current?.dispose();
		current = undefined;
		remove(...dirs.splice(0));
	});
	const fixtures = {
		/** A canonical temp dir removed after the test. */
		dir(prefix: string): string {
			const path = tempDir(prefix);
			dirs.push(path);
			return path;
		},
		/** A session (disposed after the test) whose baseline is captured and settled. */
		async ready(options: Parameters<typeof jscpdSession>[0]): Promise<JscpdSession> {
			const s = await fixtures.open(options);
			await waitFor(() => expect(hasBaseline(s)).toBe(true));
			await s.controller.settled();
			return s;
		},
		/** A session (disposed after the test), not waited for. */
		async open(options: Parameters<typeof jscpdSession>[0]): Promise<JscpdSession> {
			const s = await jscpdSession(options);
			current = s;
			return s;
		},
		/** A project holding `files` and an agent dir in fresh temp dirs (removed after the test). */
		sandbox(files: Record<string, string>, start: Pick<StartOptions, "prefix" | "settings"> = {}) {
			const root = fixtures.dir(start.prefix ?? "pi-jscpd-");
			const agentDir = fixtures.dir("pi-jscpd-agent-");
			writeFiles(root, files);
			if (start.settings)
				writeFiles(agentDir, { "pi-lifecycle/pi-jscpd.json": JSON.stringify(start.settings) });
			return { root, agentDir };
		},
		/** {@link sandbox} and a {@link ready} session in it. */
		async start(files: Record<string, string>, start: StartOptions = {}): Promise<JscpdSession> {
			const { prefix, settings, executable, ...session } = start;
			const { root, agentDir } = fixtures.sandbox(files, { prefix, settings });
			const jscpd = executable ? { ...session.jscpd, executable: executable(agentDir) } : session.jscpd;
			return fixtures.ready({ ...session, project: root, agentDir, ...(jscpd ? { jscpd } : {}) });
		},
	};
	return fixtures;
}
