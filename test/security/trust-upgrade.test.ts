/**
 * Issue 33: trust is decided once per session start, from what Pi decided then. A repository Pi
 * trusted implicitly (no Pi resources, nobody asked: `projectTrusted: "implicit"`, what the `pi`
 * CLI gives a plain directory) cannot become trusted during the session: not by a Pi resource that
 * appears later (the agent's `write`, a `git pull`), not by `/reload`, not by the `trust.json` entry
 * Pi's interactive reload then saves by itself, and not by `-a` in another host's command line.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProjectTrustStore } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { JscpdController } from "../../packages/pi-jscpd/src/adapters/controller.js";
import { allExtensions, tempDir } from "../reliability/support/extensions.js";
import { duplicated, hostileGitRepo, markersIn, type Sandbox, sandbox } from "./support/hostile.js";

let harness: ScriptedSession | undefined;
let controller: JscpdController | undefined;
const savedArgv = [...process.argv];
afterEach(async () => {
	process.argv.splice(0, process.argv.length, ...savedArgv);
	await harness?.dispose();
	harness = undefined;
	controller = undefined;
});

async function implicitSession(s: Sandbox): Promise<{ h: ScriptedSession; agentDir: string }> {
	const agentDir = tempDir("pi-security-trust-agent-");
	harness = await createScriptedSession({
		cwd: s.root,
		projectTrusted: "implicit",
		extensions: allExtensions({
			agentDir,
			jscpd: {
				onController: (c) => {
					controller = c;
				},
			},
		}),
	});
	await current().settled();
	return { h: harness, agentDir };
}

function current(): JscpdController {
	if (!controller) throw new Error("pi-jscpd did not load");
	return controller;
}

/** What a `git pull` bringing Pi resources and our settings would leave in the repository. */
function piResourcesAppear(s: Sandbox): void {
	mkdirSync(join(s.root, ".pi", "prompts"), { recursive: true });
	writeFileSync(join(s.root, ".pi", "prompts", "review.md"), "review\n");
	mkdirSync(join(s.root, ".pi", "pi-lifecycle"), { recursive: true });
	writeFileSync(
		join(s.root, ".pi", "pi-lifecycle", "pi-jscpd.json"),
		`${JSON.stringify({ minTokens: 10 })}\n`,
	);
}

/** A write (settle → outside-change probe and checkpoint) and an explicit scan. */
async function ordinaryTurn(h: ScriptedSession): Promise<void> {
	h.script(
		toolCall("write", { path: "src/c.ts", content: duplicated("third") }),
		toolCall("jscpd_run", { command: "scan", args: [] }),
		reply("done"),
	);
	await h.prompt("add c.ts and check for duplicates");
	await current().settled();
}

describe("security: trust cannot be upgraded without the user", () => {
	it("the agent writes a Pi resource and our settings, then /jscpd on: the project's settings stay ignored, no git runs", async () => {
		const s = sandbox("pi-security-trust-write-");
		hostileGitRepo(s);
		const { h } = await implicitSession(s);
		h.script(
			toolCall("write", { path: ".pi/prompts/review.md", content: "review\n" }),
			toolCall("write", { path: ".pi/pi-lifecycle/pi-jscpd.json", content: '{"minTokens": 10}\n' }),
			reply("done"),
		);
		await h.prompt("set up a review prompt");
		await h.prompt("/jscpd on");
		await current().settled();
		expect(current().status().settingsSources.join("\n")).toMatch(/project: untrusted/);
		await ordinaryTurn(h);
		expect(markersIn(s.markers)).toEqual([]);
		expect(current().status().externalDetection).toBe("files"); // listings, no git
	});

	it("a Pi resource appears (git pull), then /reload and Pi's own trust.json save: no git vector runs (fsmonitor, hooks, …)", async () => {
		const s = sandbox("pi-security-trust-reload-");
		hostileGitRepo(s);
		const { h, agentDir } = await implicitSession(s);
		piResourcesAppear(s);
		await h.reload();
		// What Pi 1.3.0–1.6.0's interactive /reload does next, without asking the user.
		const store = new ProjectTrustStore(agentDir);
		if (store.get(s.root) === null) store.set(s.root, true);
		await current().settled();
		await ordinaryTurn(h);
		await h.reload();
		await current().settled();
		await ordinaryTurn(h);
		expect(markersIn(s.markers)).toEqual([]);
		expect(current().status().settingsSources.join("\n")).toMatch(/project: untrusted/);
	});

	it("-a in the host's own command line (here the test runner's) is not the user's --approve", async () => {
		const s = sandbox("pi-security-trust-argv-");
		hostileGitRepo(s);
		process.argv.push("-a", "--approve");
		const { h } = await implicitSession(s);
		await ordinaryTurn(h);
		expect(markersIn(s.markers)).toEqual([]);
	});
});
