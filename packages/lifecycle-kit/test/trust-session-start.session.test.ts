/**
 * Issue 33: trust is decided once per session start, from what Pi decided then. A project Pi trusted
 * implicitly (a plain directory nobody asked about) stays untrusted for us until the user trusts it;
 * a Pi resource that appears later, and the `trust.json` entry Pi's interactive `/reload` then saves
 * by itself, change nothing. Sessions are the harness's real AgentSession with
 * `projectTrusted: "implicit"`, which is what the `pi` CLI gives a plain directory.
 */
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
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { getPackageDir, ProjectTrustStore } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
	decideTrustAtSessionStart,
	isExplicitlyTrusted,
	projectTrustDecision,
	type TrustContext,
	trackLifecycle,
} from "../src/index.js";
import { SAVED_BY_PI_NOTICE } from "../src/project-trust.js";
import { captureConsole, createScriptedSession, reply, toolCall } from "../src/testing/index.js";
import { piSavedTrustFile } from "../src/trust-records.js";

const dirs: string[] = [];
let agentDir = "";
let project = "";
beforeEach(() => {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "kit-trust-start-")));
	dirs.push(root);
	agentDir = join(root, "agent");
	project = join(root, "project");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(project, { recursive: true });
	vi.stubEnv("PI_CODING_AGENT_DIR", agentDir);
});
afterEach(() => {
	vi.unstubAllEnvs();
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** An extension built like ours (trackLifecycle first) that keeps the latest context. */
function observer(seen: ExtensionContext[]) {
	return (pi: ExtensionAPI) => {
		trackLifecycle(pi);
		pi.on("session_start", (_event, ctx) => void seen.push(ctx));
	};
}

function addPiResource(cwd: string): void {
	mkdirSync(join(cwd, ".pi", "prompts"), { recursive: true });
	writeFileSync(join(cwd, ".pi", "prompts", "review.md"), "review\n");
}

/** What Pi 1.3.0–1.6.0's interactive `/reload` does right after the reload (maybeSaveImplicitProjectTrustAfterReload). */
function piSavesImplicitTrustAfterReload(cwd: string): void {
	const store = new ProjectTrustStore(agentDir);
	if (store.get(cwd) === null) store.set(cwd, true);
}

describe("trust is decided once per session start", () => {
	it("implicit trust at start: a Pi resource the agent writes later does not make the project trusted", async () => {
		const seen: ExtensionContext[] = [];
		const harness = await createScriptedSession({
			extensions: [observer(seen)],
			cwd: project,
			projectTrusted: "implicit",
			responses: [toolCall("write", { path: ".pi/prompts/review.md", content: "review\n" }), reply("done")],
		});
		const ctx = seen.at(-1) as ExtensionContext;
		expect(isExplicitlyTrusted(ctx)).toBe(false);
		await harness.prompt("write a prompt template");
		expect(existsSync(join(project, ".pi", "prompts", "review.md"))).toBe(true);
		expect(projectTrustDecision(ctx)).toEqual({ trusted: false, source: "implicit" });
	});

	it("a Pi resource that appears later (git pull) and /reload: still untrusted, and the trust.json entry Pi then saves by itself does not count", async () => {
		const seen: ExtensionContext[] = [];
		const harness = await createScriptedSession({
			extensions: [observer(seen)],
			cwd: project,
			projectTrusted: "implicit",
		});
		addPiResource(project);
		const output = captureConsole({ streams: ["error"] });
		await harness.reload();
		piSavesImplicitTrustAfterReload(project);
		const reloaded = seen.at(-1) as ExtensionContext;
		expect(seen.length).toBe(2);
		expect(isExplicitlyTrusted(reloaded)).toBe(false);
		expect(JSON.parse(readFileSync(join(agentDir, "trust.json"), "utf8"))).toEqual({ [project]: true });
		expect(JSON.parse(readFileSync(piSavedTrustFile(agentDir), "utf8")).paths).toEqual([project]);
		await harness.reload();
		expect(isExplicitlyTrusted(seen.at(-1) as ExtensionContext)).toBe(false);
		await harness.dispose();

		// The next pi start: Pi trusts the project from that entry without asking; it is still not the user's.
		const next = await createScriptedSession({
			extensions: [observer(seen)],
			cwd: project,
			projectTrusted: "implicit",
		});
		expect(projectTrustDecision(seen.at(-1) as ExtensionContext)).toEqual({
			trusted: false,
			source: "saved-by-pi",
		});
		await next.dispose();
		// Said once (per process and project), when it happened.
		expect(output.lines.error.filter((line) => line.includes(SAVED_BY_PI_NOTICE))).toHaveLength(1);
	});

	it("the user's /trust during the session upgrades it, and a /reload keeps the upgrade", async () => {
		const seen: ExtensionContext[] = [];
		const harness = await createScriptedSession({
			extensions: [observer(seen)],
			cwd: project,
			projectTrusted: "implicit",
		});
		expect(isExplicitlyTrusted(seen.at(-1) as ExtensionContext)).toBe(false);
		new ProjectTrustStore(agentDir).set(project, true); // what /trust → "Trust" saves
		expect(isExplicitlyTrusted(seen.at(-1) as ExtensionContext)).toBe(true);
		await harness.reload();
		expect(projectTrustDecision(seen.at(-1) as ExtensionContext)).toEqual({ trusted: true, source: "saved" });
	});

	it("a project with Pi resources at the start: Pi had to decide, so its trust counts, and a reload keeps it", async () => {
		addPiResource(project);
		const seen: ExtensionContext[] = [];
		const harness = await createScriptedSession({
			extensions: [observer(seen)],
			cwd: project,
			projectTrusted: "implicit",
		});
		expect(projectTrustDecision(seen.at(-1) as ExtensionContext)).toEqual({ trusted: true, source: "asked" });
		await harness.reload();
		expect(isExplicitlyTrusted(seen.at(-1) as ExtensionContext)).toBe(true);
		expect(existsSync(piSavedTrustFile(agentDir))).toBe(false);
	});

	it("a new session start (/new, /resume, /fork: a new session manager) decides again; a reload does not", () => {
		const first = { cwd: project, isProjectTrusted: () => true, sessionManager: {} } satisfies TrustContext;
		expect(decideTrustAtSessionStart({ reason: "startup" }, first, { agentDir })).toMatchObject({
			trusted: false,
		});
		addPiResource(project);
		expect(decideTrustAtSessionStart({ reason: "reload" }, first, { agentDir }).trusted).toBe(false);
		expect(isExplicitlyTrusted(first, { agentDir })).toBe(false);
		// Pi asked for the new session (its prompt: "Trust (this session only)" saves nothing).
		const second = { cwd: project, isProjectTrusted: () => true, sessionManager: {} } satisfies TrustContext;
		rmSync(piSavedTrustFile(agentDir), { force: true });
		expect(decideTrustAtSessionStart({ reason: "new" }, second, { agentDir })).toEqual({
			trusted: true,
			source: "asked",
		});
	});

	it("a kit first loaded by a reload cannot see the start: Pi resources alone do not count then", () => {
		addPiResource(project);
		const ctx = { cwd: project, isProjectTrusted: () => true, sessionManager: {} } satisfies TrustContext;
		expect(decideTrustAtSessionStart({ reason: "reload" }, ctx, { agentDir }).trusted).toBe(false);
	});

	it("a user who changes Pi's saved entry (Do not trust, then Trust in a later session) gets it counted", () => {
		const ctx = (sessionManager: object) => ({ cwd: project, isProjectTrusted: () => true, sessionManager });
		const store = new ProjectTrustStore(agentDir);
		const plain = ctx({});
		decideTrustAtSessionStart({ reason: "startup" }, plain, { agentDir });
		addPiResource(project);
		decideTrustAtSessionStart({ reason: "reload" }, plain, { agentDir });
		store.set(project, true); // Pi's own save after the reload
		expect(isExplicitlyTrusted(ctx({}), { agentDir })).toBe(false);
		store.set(project, false); // /trust → Do not trust
		expect(isExplicitlyTrusted(ctx({}), { agentDir })).toBe(false);
		store.set(project, true); // a later /trust → Trust
		expect(isExplicitlyTrusted(ctx({}), { agentDir })).toBe(true);
	});
});

describe("--approve is read only from the pi CLI's own command line", () => {
	const cli = realpathSync(join(getPackageDir(), "dist", "bundle", "cli.js"));

	it("-a in another host's command line (a test runner, an SDK program) is not an approval", () => {
		const ctx = { cwd: project, isProjectTrusted: () => true };
		expect(isExplicitlyTrusted(ctx, { agentDir, argv: ["node", "/usr/lib/some-tool/bin.js", "-a"] })).toBe(
			false,
		);
		expect(isExplicitlyTrusted(ctx, { agentDir, argv: ["node", "pi", "--approve"] })).toBe(false);
	});

	it("pi's own --approve / -a counts, parsed as pi parses it (an option's value or after -- is not one)", () => {
		const ctx = { cwd: project, isProjectTrusted: () => true };
		const trusted = (...args: string[]) =>
			isExplicitlyTrusted(ctx, { agentDir, argv: ["node", cli, ...args] });
		expect(trusted("--approve")).toBe(true);
		expect(trusted("-a", "hello")).toBe(true);
		expect(trusted("-a", "--no-approve")).toBe(false);
		expect(trusted("--model", "-a")).toBe(false);
		expect(trusted("--", "-a")).toBe(false);
		expect(trusted("-p", "explain -a")).toBe(false);
	});

	it("any Pi copy's pi CLI is recognised, not only the copy the kit imports (an install can give the kit its own)", () => {
		const ctx = { cwd: project, isProjectTrusted: () => true };
		const other = join(
			import.meta.dirname,
			"..",
			"..",
			"..",
			"node_modules",
			"pi-coding-agent-1.3.0",
			"dist",
			"bundle",
			"cli.js",
		);
		expect(isExplicitlyTrusted(ctx, { agentDir, argv: ["node", other, "-a"] })).toBe(true);
		const notBin = join(getPackageDir(), "dist", "index.js");
		expect(isExplicitlyTrusted(ctx, { agentDir, argv: ["node", notBin, "-a"] })).toBe(false);
	});
});
