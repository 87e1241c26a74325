/**
 * Issue 14: an untrusted repository runs nothing of its own (docs/security.md). Hostile
 * repositories are built in temp dirs and driven through Pi's real session with the real jscpd
 * 5.3.2; every vector leaves a marker file when it runs, and no marker may appear. The trusted
 * counterpart checks the documented trusted behaviour.
 */
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { JscpdController } from "../../packages/pi-jscpd/src/adapters/controller.js";
import { allExtensions, tempDir } from "../reliability/support/extensions.js";
import {
	duplicated,
	escapeLink,
	hostileGitRepo,
	markersIn,
	openJscpdSession,
	put,
	type Sandbox,
	sandbox,
	userGitStatus,
} from "./support/hostile.js";

let harness: ScriptedSession | undefined;
let controller: JscpdController | undefined;
const savedPath = process.env.PATH;
afterEach(async () => {
	process.env.PATH = savedPath;
	vi.restoreAllMocks();
	await harness?.dispose();
	harness = undefined;
	controller = undefined;
});

async function jscpdSession(
	s: Sandbox,
	trusted: boolean,
): Promise<{ h: ScriptedSession; c: JscpdController }> {
	const opened = await openJscpdSession(s.root, trusted);
	harness = opened.harness;
	controller = opened.controller;
	await controller.settled();
	return { h: harness, c: controller };
}

/** The text of every jscpd_run result on the branch. */
function scanResults(h: ScriptedSession): string {
	return h.session.sessionManager
		.getBranch()
		.filter(
			(e) => e.type === "message" && e.message.role === "toolResult" && e.message.toolName === "jscpd_run",
		)
		.map((e) => JSON.stringify((e as unknown as { message: { content: unknown } }).message.content))
		.join("\n");
}

/** One ordinary turn: a write (settle → outside-change probe and checkpoint) and an explicit scan. */
async function ordinaryTurn(h: ScriptedSession, c: JscpdController, checkpoint = true): Promise<void> {
	h.script(
		toolCall("write", { path: "src/c.ts", content: duplicated("third") }),
		toolCall("jscpd_run", { command: "scan", args: [] }),
		reply("done"),
	);
	await h.prompt("add c.ts and check for duplicates");
	// A partial baseline (a finding dropped for leaving the root counts as omitted) runs no checkpoint.
	if (checkpoint)
		await vi.waitFor(() => expect(c.status().recentChecks.length).toBeGreaterThan(0), { timeout: 30_000 });
	await c.settled();
}

describe("security: git in a hostile repository", () => {
	it("the hostile repository's git vectors are live: a user's own `git status` runs them", () => {
		const twin = sandbox("pi-security-git-twin-");
		hostileGitRepo(twin);
		userGitStatus(twin.root);
		// The filter driver and the last core.fsmonitor (set by an included file) run on a plain status.
		expect(markersIn(twin.markers)).toEqual(expect.arrayContaining(["hook-post-index-change"]));
		expect(markersIn(twin.markers).some((m) => /fsmonitor|include/.test(m))).toBe(true);
	});

	it("untrusted: no git vector runs (fsmonitor, hooks, filters, drivers, pagers, helpers, includes) and detection lists files", async () => {
		const s = sandbox("pi-security-git-");
		hostileGitRepo(s);
		const { h, c } = await jscpdSession(s, false);
		await ordinaryTurn(h, c);
		expect(markersIn(s.markers)).toEqual([]);
		expect(c.status().externalDetection).toBe("files");
	});

	it("trusted: git runs as the user's own git would (documented), so the repository's fsmonitor runs", async () => {
		const s = sandbox("pi-security-git-trusted-");
		hostileGitRepo(s);
		const { h, c } = await jscpdSession(s, true);
		await ordinaryTurn(h, c);
		// git ran (its programs left markers); changes are found by listing files either way, and git
		// adds checkout/pull detection when its commands succeed.
		expect(markersIn(s.markers).length).toBeGreaterThan(0);
		expect(["files+git", "files"]).toContain(c.status().externalDetection);
	});
});

const HOSTILE_JSCPD_CONFIG = (s: Sandbox) => ({
	blame: true,
	output: join(s.outside, "report"),
	reporters: ["html", "json", "sarif", "console"],
	followSymlinks: true,
	noGitignore: true,
	minTokens: 1,
	exitCode: 3,
	baseline: join(s.outside, "baseline.json"),
	updateBaseline: true,
	path: [s.outside],
});

function hostileJscpdProject(s: Sandbox): void {
	put(join(s.root, "src", "a.ts"), duplicated("first"));
	put(join(s.root, "src", "b.ts"), duplicated("second"));
	put(join(s.outside, "secret.ts"), duplicated("secret"));
	escapeLink(s, "src/link");
	const config = JSON.stringify(HOSTILE_JSCPD_CONFIG(s));
	put(join(s.root, ".jscpd.json"), config);
	put(join(s.root, ".config", "jscpd.json"), config);
	put(join(s.root, "package.json"), JSON.stringify({ name: "hostile", jscpd: HOSTILE_JSCPD_CONFIG(s) }));
	// Planted executables: a project jscpd and a git that jscpd's blame would run.
	for (const name of ["jscpd", "git", "node"]) {
		put(
			join(s.root, "node_modules", ".bin", name),
			`#!/bin/sh\ntouch '${join(s.markers, `planted-${name}`)}'\necho 5.3.2\n`,
			0o755,
		);
	}
}

describe("security: jscpd in a hostile project", () => {
	it("untrusted: no project config, binary or PATH entry takes effect; no finding names an outside file", async () => {
		const s = sandbox("pi-security-jscpd-");
		hostileJscpdProject(s);
		process.env.PATH = [join(s.root, "node_modules", ".bin"), "node_modules/.bin", ".", savedPath].join(
			delimiter,
		);
		const { h, c } = await jscpdSession(s, false);
		await ordinaryTurn(h, c);
		const results = scanResults(h);
		expect(results).toMatch(/src\/(a|b|c)\.ts/);
		expect(results).not.toMatch(/secret|link\//);
		expect(markersIn(s.markers)).toEqual([]);
		expect(readdirSync(s.outside)).toEqual(["secret.ts"]);
		const capability = c.status().capability;
		expect(capability.status).toBe("available");
		if (capability.status === "available") expect(capability.source).not.toBe("project");
	});

	it("trusted: the project's config applies, but its output path and followed symlinks cannot leave the root", async () => {
		const s = sandbox("pi-security-jscpd-trusted-");
		put(join(s.root, "src", "a.ts"), duplicated("first"));
		put(join(s.root, "src", "b.ts"), duplicated("second"));
		put(join(s.outside, "secret.ts"), duplicated("first"));
		escapeLink(s, "src/link");
		put(
			join(s.root, ".jscpd.json"),
			JSON.stringify({
				followSymlinks: true,
				output: join(s.outside, "report"),
				reporters: ["html", "json"],
			}),
		);
		const { h, c } = await jscpdSession(s, true);
		await ordinaryTurn(h, c, false);
		const results = scanResults(h);
		expect(results).toMatch(/src\/(a|b|c)\.ts/);
		expect(results).not.toMatch(/secret|link\//);
		expect(readdirSync(s.outside)).toEqual(["secret.ts"]);
		expect(c.status().baseline.status).toBe("partial");
	});
});

describe("security: settings files of all three packages", () => {
	function hostileSettings(root: string): void {
		const dir = join(root, ".pi", "pi-lifecycle");
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, "pi-jscpd.json"), JSON.stringify({ enabled: false }));
		writeFileSync(join(dir, "pi-goal.json"), JSON.stringify({ automaticTurns: 1 }));
		writeFileSync(join(dir, "pi-reset.json"), JSON.stringify({ enabled: false }));
	}

	async function allThree(root: string, trusted: boolean): Promise<string> {
		const said: string[] = [];
		vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
			said.push(String(chunk));
			return true;
		});
		vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
			said.push(args.join(" "));
		});
		vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => {
			said.push(args.join(" "));
		});
		const agentDir = tempDir("pi-security-agent-");
		harness = await createScriptedSession({
			cwd: root,
			projectTrusted: trusted,
			extensions: allExtensions({
				agentDir,
				jscpd: {
					executable: join(agentDir, "no-jscpd"),
					onController: (c) => {
						controller = c;
					},
				},
			}),
		});
		await controller?.settled();
		return said.join("\n");
	}

	it("untrusted: none of the three project settings files applies, and each package says so", async () => {
		const root = join(tempDir("pi-security-settings-"), "project");
		hostileSettings(root);
		const said = await allThree(root, false);
		expect(controller?.status().settings.enabled).toBe(true);
		for (const name of ["pi-jscpd", "pi-goal", "pi-reset"]) {
			expect(said).toContain(
				`${name}: ignoring ${join(root, ".pi", "pi-lifecycle", `${name}.json`)}: the project is not trusted (/trust it, or start pi with --approve)`,
			);
		}
	});

	it("trusted: a .pi directory that is a symlink leaving the project is not read, for all three packages", async () => {
		const base = tempDir("pi-security-settings-link-");
		const root = join(base, "project");
		const elsewhere = join(base, "elsewhere");
		hostileSettings(elsewhere);
		mkdirSync(root, { recursive: true });
		symlinkSync(join(elsewhere, ".pi"), join(root, ".pi"));
		const said = await allThree(root, true);
		expect(controller?.status().settings.enabled).toBe(true);
		for (const name of ["pi-jscpd", "pi-goal", "pi-reset"]) {
			expect(said).toMatch(new RegExp(`${name}: ignoring .*${name}\\.json: it resolves outside the project`));
		}
		expect(existsSync(join(elsewhere, ".pi", "pi-lifecycle", "pi-jscpd.json"))).toBe(true);
	});
});
