/**
 * Audit of issue 33's trust rules: which `pi` command lines carry the user's `--approve`, and which
 * `trust.json` entry Pi's interactive `/reload` saves by itself (its `autoTrustOnReloadCwd`: only the
 * startup session's directory, when it had no Pi resources at startup and pi had no trust flag).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getPackageDir, ProjectTrustStore } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decideTrustAtSessionStart, isExplicitlyTrusted, type TrustContext } from "../src/index.js";

const dirs: string[] = [];
let agentDir = "";
let project = "";
beforeEach(() => {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "kit-trust-audit-")));
	dirs.push(root);
	agentDir = join(root, "agent");
	project = join(root, "project");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(project, { recursive: true });
});
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function addPiResource(cwd: string): void {
	mkdirSync(join(cwd, ".pi", "prompts"), { recursive: true });
	writeFileSync(join(cwd, ".pi", "prompts", "review.md"), "review\n");
}

const session = (): TrustContext => ({ cwd: project, isProjectTrusted: () => true, sessionManager: {} });

describe("--approve on every pi CLI entry point counts", () => {
	it("node <pi>/dist/cli.js -a (the unbundled CLI Pi's own RpcClient starts) and the RPC entry are pi's command line", () => {
		const ctx = { cwd: project, isProjectTrusted: () => true };
		for (const entry of ["dist/cli.js", "dist/rpc-entry.js", "dist/bundle/rpc-entry.js"]) {
			const script = join(getPackageDir(), entry);
			expect(isExplicitlyTrusted(ctx, { agentDir, argv: ["node", script, "--approve"] }), entry).toBe(true);
			expect(isExplicitlyTrusted(ctx, { agentDir, argv: ["node", script, "--", "-a"] }), entry).toBe(false);
		}
		// Not a CLI entry of the Pi package: its -a is not pi's.
		const notEntry = join(getPackageDir(), "dist", "main.js");
		expect(isExplicitlyTrusted(ctx, { agentDir, argv: ["node", notEntry, "-a"] })).toBe(false);
	});
});

describe("the trust.json entry Pi's /reload saves by itself", () => {
	it("a session-only trust (Pi's prompt at /resume after a Pi resource appeared), then /reload: Pi's save is not the user's at the next start", () => {
		expect(decideTrustAtSessionStart({ reason: "startup" }, session(), { agentDir }).trusted).toBe(false);
		addPiResource(project);
		// /resume: Pi asks; "Trust (this session only)" saves nothing.
		const resumed = session();
		expect(decideTrustAtSessionStart({ reason: "resume" }, resumed, { agentDir })).toEqual({
			trusted: true,
			source: "asked",
		});
		decideTrustAtSessionStart({ reason: "reload" }, resumed, { agentDir });
		new ProjectTrustStore(agentDir).set(project, true); // Pi's maybeSaveImplicitProjectTrustAfterReload
		// The next pi start: that entry is Pi's, not the user's.
		expect(decideTrustAtSessionStart({ reason: "startup" }, session(), { agentDir }).trusted).toBe(false);
	});

	it("a /reload in a session Pi will not save for (another directory than the startup's): the user's later /trust counts", () => {
		const other = join(project, "..", "started-here");
		mkdirSync(other);
		const startup = { cwd: other, isProjectTrusted: () => true, sessionManager: {} } satisfies TrustContext;
		decideTrustAtSessionStart({ reason: "startup" }, startup, { agentDir });
		// /resume a session of the project (plain: Pi trusts it without asking), a Pi resource appears, /reload.
		const resumed = session();
		expect(decideTrustAtSessionStart({ reason: "resume" }, resumed, { agentDir }).source).toBe("implicit");
		addPiResource(project);
		decideTrustAtSessionStart({ reason: "reload" }, resumed, { agentDir });
		// Pi saves nothing (its autoTrustOnReloadCwd is the startup directory); the user runs /trust → Trust.
		new ProjectTrustStore(agentDir).set(project, true);
		expect(isExplicitlyTrusted(resumed, { agentDir })).toBe(true);
		expect(decideTrustAtSessionStart({ reason: "startup" }, session(), { agentDir })).toEqual({
			trusted: true,
			source: "saved",
		});
	});
});
