/**
 * Explicit project trust (issue 14): Pi's CLI answers `isProjectTrusted() === true` without asking for
 * a directory with no Pi resources and no saved decision; that implicit default must not count.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { getPackageDir, ProjectTrustStore } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { isExplicitlyTrusted, type TrustContext } from "../src/index.js";
import { createScriptedSession } from "../src/testing/index.js";

const dirs: string[] = [];
afterEach(() => {
	for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(): { project: string; agentDir: string; ctx: (trusted: boolean) => TrustContext } {
	const root = realpathSync(mkdtempSync(join(tmpdir(), "kit-trust-")));
	dirs.push(root);
	const project = join(root, "work", "project");
	const agentDir = join(root, "agent");
	mkdirSync(project, { recursive: true });
	mkdirSync(agentDir, { recursive: true });
	return { project, agentDir, ctx: (trusted) => ({ cwd: project, isProjectTrusted: () => trusted }) };
}

const plainArgv = ["node", "pi", "-p", "hello"];

describe("isExplicitlyTrusted", () => {
	it("Pi's implicit default (no Pi resources, no saved decision, no --approve) is not trust", () => {
		const { agentDir, ctx } = setup();
		expect(isExplicitlyTrusted(ctx(true), { agentDir, argv: plainArgv })).toBe(false);
	});

	it("a saved decision for the project or its closest saved parent counts (as /trust saves it)", () => {
		const { project, agentDir, ctx } = setup();
		const store = new ProjectTrustStore(agentDir);
		store.set(join(project, ".."), true);
		expect(isExplicitlyTrusted(ctx(true), { agentDir, argv: plainArgv })).toBe(true);
		store.set(project, false);
		expect(isExplicitlyTrusted(ctx(true), { agentDir, argv: plainArgv })).toBe(false);
	});

	it("Pi had to decide: a project with Pi resources of its own that Pi trusts counts", () => {
		const { project, agentDir, ctx } = setup();
		mkdirSync(join(project, ".pi"));
		mkdirSync(join(project, ".pi", "prompts"));
		expect(isExplicitlyTrusted(ctx(true), { agentDir, argv: plainArgv })).toBe(true);
	});

	it("--approve / -a on pi's command line counts; a later --no-approve wins", () => {
		const { agentDir, ctx } = setup();
		const pi = realpathSync(join(getPackageDir(), "dist", "bundle", "cli.js"));
		expect(isExplicitlyTrusted(ctx(true), { agentDir, argv: ["node", pi, "--approve"] })).toBe(true);
		expect(isExplicitlyTrusted(ctx(true), { agentDir, argv: ["node", pi, "-a", "hi"] })).toBe(true);
		expect(isExplicitlyTrusted(ctx(true), { agentDir, argv: ["node", pi, "-a", "--no-approve"] })).toBe(
			false,
		);
	});

	it("nothing makes a project Pi does not trust trusted; a stale context is untrusted", () => {
		const { project, agentDir, ctx } = setup();
		new ProjectTrustStore(agentDir).set(project, true);
		const pi = realpathSync(join(getPackageDir(), "dist", "bundle", "cli.js"));
		expect(isExplicitlyTrusted(ctx(false), { agentDir, argv: ["node", pi, "--approve"] })).toBe(false);
		const stale: TrustContext = {
			cwd: project,
			isProjectTrusted: () => {
				throw new Error("stale");
			},
		};
		expect(isExplicitlyTrusted(stale, { agentDir })).toBe(false);
	});

	it("the harness's projectTrusted: true is an explicit decision while the session lives; false is not", async () => {
		const seen: ExtensionContext[] = [];
		const capture = (pi: {
			on: (event: "session_start", h: (e: unknown, c: ExtensionContext) => void) => void;
		}) => pi.on("session_start", (_e, c) => void seen.push(c));
		const trusted = await createScriptedSession({ extensions: [capture], autoDispose: false });
		const trustedCtx = seen[0] as ExtensionContext;
		expect(isExplicitlyTrusted(trustedCtx, { argv: plainArgv })).toBe(true);
		const cwd = trusted.cwd;
		await trusted.dispose();
		expect(isExplicitlyTrusted({ cwd, isProjectTrusted: () => true }, { argv: plainArgv })).toBe(false);

		const untrusted = await createScriptedSession({ extensions: [capture], projectTrusted: false });
		expect(isExplicitlyTrusted(seen[1] as ExtensionContext, { argv: plainArgv })).toBe(false);
		await untrusted.dispose();
	});
});
