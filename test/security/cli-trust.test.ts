/**
 * Issue 14: what `ctx.isProjectTrusted()` means in the real `pi` CLI. Pi asks about trust only when
 * the project has Pi resources of its own (`.pi/settings.json`, `.pi/extensions`, `.agents/skills`,
 * …); for any other directory with no stored decision it answers `true` without asking (Pi's main.js:
 * `trustStore.get(cwd) ?? !hasTrustRequiringResources`). A freshly cloned hostile repository has no
 * such resources, so the user is never asked. Our extensions count only explicit trust
 * (lifecycle-kit `isExplicitlyTrusted`, docs/security.md "Explicit trust"): such a repository runs
 * none of its git programs, while a project the user trusted (`/trust`'s saved decision, or
 * `--approve`) gets the documented trusted behaviour. pi-jscpd's git in a trusted project is now
 * only `rev-parse`/`show-ref` (changes are found by listing files, issue 31), which start none of the
 * repository's programs, so the trusted behaviour is observed through the project's own jscpd
 * (`node_modules/.bin/jscpd`, used only in a trusted project).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type PiRun, runPi } from "../cli/run-pi.js";
import { hostileGitRepo, markersIn, sandbox } from "./support/hostile.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** A project-local jscpd (trusted projects only) that leaves a marker and then stands in for jscpd 5. */
function projectJscpd(root: string, markers: string): void {
	const bin = join(root, "node_modules", ".bin");
	mkdirSync(bin, { recursive: true });
	const file = join(bin, "jscpd");
	writeFileSync(file, `#!/bin/sh\ntouch '${join(markers, "project-jscpd")}'\necho 5.3.2\n`);
	chmodSync(file, 0o755);
}
const script = fileURLToPath(new URL("../cli/scripts/jscpd.mjs", import.meta.url));

let run: PiRun | undefined;
const extraDirs: string[] = [];
afterEach(() => {
	run?.cleanup();
	run = undefined;
	for (const dir of extraDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function piIn(cwd: string, options: { dirs?: { home: string; agentDir: string }; args?: string[] } = {}) {
	return runPi({
		extensions: [join(repoRoot, "packages", "pi-jscpd")],
		script,
		prompt: "write two modules",
		cwd,
		timeoutMs: 90_000,
		...options,
	});
}

describe("security: the real pi CLI in a freshly cloned hostile repository", () => {
	it("a repository the user was never asked about runs none of its git programs (Pi's implicit trust does not count)", async () => {
		const s = sandbox("pi-security-cli-trust-");
		hostileGitRepo(s);
		projectJscpd(s.root, s.markers);
		run = await piIn(s.root);
		expect(run.code, run.stderr).toBe(0);
		expect(markersIn(s.markers)).toEqual([]);
	}, 120_000);

	it("explicit trust: a saved decision (as /trust saves it) gets the trusted behaviour: the project's own jscpd runs", async () => {
		const s = sandbox("pi-security-cli-trusted-");
		hostileGitRepo(s);
		projectJscpd(s.root, s.markers);
		const dirsRoot = mkdtempSync(join(tmpdir(), "pi-security-cli-trust-dirs-"));
		extraDirs.push(dirsRoot);
		const dirs = { home: join(dirsRoot, "home"), agentDir: join(dirsRoot, "agent") };
		mkdirSync(dirs.home, { recursive: true });
		mkdirSync(dirs.agentDir, { recursive: true });
		writeFileSync(join(dirs.agentDir, "trust.json"), `${JSON.stringify({ [s.root]: true })}\n`);
		run = await piIn(s.root, { dirs });
		expect(run.code, run.stderr).toBe(0);
		expect(markersIn(s.markers)).toContain("project-jscpd");
	}, 120_000);

	it("explicit trust: --approve gets the trusted behaviour too", async () => {
		const s = sandbox("pi-security-cli-approve-");
		hostileGitRepo(s);
		projectJscpd(s.root, s.markers);
		run = await piIn(s.root, { args: ["--approve"] });
		expect(run.code, run.stderr).toBe(0);
		expect(markersIn(s.markers)).toContain("project-jscpd");
	}, 120_000);
});
