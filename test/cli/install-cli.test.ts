/**
 * `pi install ./packages/<ext>` from a checkout, with the real CLI in an isolated HOME and
 * PI_CODING_AGENT_DIR, offline: the package is recorded, listed, and its command works in a later
 * run that only has the installed packages (plus the test's faux model).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { tarballPath } from "../support/packed.js";
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

describe("before the first release: the packed tarballs (root README, Install)", () => {
	const tarball = (name: "lifecycle-kit" | "pi-reset" | "pi-goal") => tarballPath(name);

	it("pi install of an extension's tarball says Installed, then loads nothing (the kit is not on the registry)", async () => {
		root = mkdtempSync(join(tmpdir(), "pi-lifecycle-install-"));
		const dirs = { home: join(root, "home"), agentDir: join(root, "agent"), cwd: join(root, "project") };
		for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
		const installed = await piCommand(["install", tarball("pi-reset")], dirs);
		expect(installed.stdout).toMatch(/Installed/);
		const run = await runPi({
			extensions: [],
			discover: true,
			dirs,
			cwd: dirs.cwd,
			script: fileURLToPath(new URL("./scripts/hello.mjs", import.meta.url)),
			prompt: "/reset status",
			args: ["--mode", "text"],
		});
		expect(run.stdout).not.toMatch(/Window: w0/);
	});

	it("npm install of the kit's and the extensions' tarballs into a folder, then pi install of each: they load", async () => {
		root = mkdtempSync(join(tmpdir(), "pi-lifecycle-install-"));
		const dirs = { home: join(root, "home"), agentDir: join(root, "agent"), cwd: join(root, "project") };
		for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
		const folder = join(root, "pi-lifecycle");
		mkdirSync(folder);
		// pi-reset and pi-goal need nothing but the kit, so this runs offline (pi-jscpd also needs jscpd).
		execFileSync(
			"npm",
			[
				"install",
				"--offline",
				"--legacy-peer-deps",
				"--no-audit",
				"--no-fund",
				...(["lifecycle-kit", "pi-reset", "pi-goal"] as const).map((name) => tarball(name)),
			],
			{
				cwd: folder,
				env: { ...process.env, HOME: dirs.home, npm_config_cache: join(root, "npm-cache") },
				stdio: "pipe",
			},
		);
		for (const name of ["pi-reset", "pi-goal"]) {
			const installed = await piCommand(
				["install", join(folder, "node_modules", "@pi-lifecycle", name)],
				dirs,
			);
			expect(installed.code, installed.stderr).toBe(0);
		}
		for (const [command, answer] of [
			["/reset status", /Window: w0/],
			["/goal status", /No goal/],
		] as const) {
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
			expect(run.stdout).toMatch(answer);
		}
	}, 120_000);
});

describe("pi install from a checkout that was never built (root README, Did it load?)", () => {
	it("says Installed and lists it, then loads nothing and says nothing: the command goes to the model", async () => {
		root = mkdtempSync(join(tmpdir(), "pi-lifecycle-install-"));
		const dirs = { home: join(root, "home"), agentDir: join(root, "agent"), cwd: join(root, "project") };
		for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
		const checkout = join(root, "checkout");
		execFileSync("git", ["clone", "--quiet", "--no-hardlinks", repoRoot, checkout], { stdio: "pipe" });
		const installed = await piCommand(["install", join(checkout, "packages", "pi-reset")], dirs);
		expect(installed.stdout).toMatch(/Installed/);
		expect((await piCommand(["list"], dirs)).stdout).toContain("packages/pi-reset");
		const run = await runPi({
			extensions: [],
			discover: true,
			dirs,
			cwd: dirs.cwd,
			script: fileURLToPath(new URL("./scripts/hello.mjs", import.meta.url)),
			prompt: "/reset status",
			args: ["--mode", "text"],
		});
		expect(run.stdout).toMatch(/hello from the scripted model/);
		expect(run.stdout).not.toMatch(/Window: w0/);
		expect(run.stderr).not.toMatch(/pi-reset/);
	}, 120_000);
});
