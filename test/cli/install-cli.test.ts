/**
 * `pi install ./packages/<ext>` from a checkout, with the real CLI in an isolated HOME and
 * PI_CODING_AGENT_DIR, offline: the package is recorded, listed, and its command works in a later
 * run that only has the installed packages (plus the test's faux model).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { piCommand, runPi } from "./run-pi.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
let root: string | undefined;
afterEach(() => {
	if (root) rmSync(root, { recursive: true, force: true });
	root = undefined;
});

const cases = [
	{ name: "pi-reset", command: "/reset status", expect: /window/i },
	{ name: "pi-goal", command: "/goal status", expect: /No goal/i },
	{ name: "pi-jscpd", command: "/jscpd status", expect: /jscpd/i },
] as const;

describe.each(cases)("pi install ./packages/$name", ({ name, command, expect: expected }) => {
	it("installs from the checkout, is listed, and its command answers in a later run", async () => {
		root = mkdtempSync(join(tmpdir(), "pi-lifecycle-install-"));
		const dirs = { home: join(root, "home"), agentDir: join(root, "agent"), cwd: join(root, "project") };
		for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });

		const installed = await piCommand(["install", join(repoRoot, "packages", name)], dirs);
		expect(installed.code, installed.stderr).toBe(0);
		const settings = JSON.parse(readFileSync(join(dirs.agentDir, "settings.json"), "utf8"));
		expect(JSON.stringify(settings.packages)).toContain(`packages/${name}`);
		const listed = await piCommand(["list"], dirs);
		expect(listed.stdout).toContain(`packages/${name}`);

		const run = await runPi({
			extensions: [],
			discover: true,
			dirs,
			cwd: dirs.cwd,
			script: fileURLToPath(new URL("./scripts/hello.mjs", import.meta.url)),
			prompt: command,
			args: ["--mode", "text"],
		});
		expect(run.code, run.stderr).toBe(0);
		expect(`${run.stdout}\n${run.stderr}`).toMatch(expected);
	});
});
