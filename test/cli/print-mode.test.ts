/**
 * Where a command's answer goes in print mode, on the real `pi` CLI (the dev-pinned Pi, or Pi 1.3.0
 * with `PI_LIFECYCLE_HOST=1.3.0`): `pi -p "/jscpd scan" > report.txt` must keep the report. Pi's
 * output guard sends `process.stdout.write`, and so `console.log`, to stderr in print mode; the
 * answer still reaches stdout, and warnings stay on stderr. In json mode stdout is Pi's protocol:
 * only JSON lines there.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { duplicatedFunction } from "../support/duplicates.js";
import { installPacked, type PackedInstall } from "../support/packed.js";
import { type PiRun, runPi } from "./run-pi.js";

const hello = fileURLToPath(new URL("./scripts/hello.mjs", import.meta.url));

let install: PackedInstall;
let run: PiRun | undefined;
let project: string | undefined;
beforeAll(() => {
	install = installPacked(["pi-reset", "pi-goal", "pi-jscpd"]);
});
afterAll(() => install?.cleanup());
afterEach(() => {
	run?.cleanup();
	run = undefined;
	if (project) rmSync(project, { recursive: true, force: true });
	project = undefined;
});
const dir = (name: string) => install.extensions.find((ext) => ext.name === name)?.packageDir ?? "";

/** A project with one copy-pasted function in two files. */
function projectWithDuplicate(): string {
	project = mkdtempSync(join(tmpdir(), "pi-lifecycle-print-"));
	mkdirSync(join(project, "src"));
	writeFileSync(join(project, "src", "a.ts"), duplicatedFunction("total"));
	writeFileSync(join(project, "src", "b.ts"), duplicatedFunction("sum"));
	return project;
}

const jsonLinesOnly = (stdout: string) =>
	stdout
		.split("\n")
		.filter(Boolean)
		.every((line) => line.startsWith("{"));

describe("print mode: the answer on stdout, nothing else there", () => {
	it("/jscpd scan: the report is on stdout (pi -p '/jscpd scan' > report.txt keeps it)", async () => {
		run = await runPi({
			extensions: [dir("pi-jscpd")],
			script: hello,
			prompt: "/jscpd scan",
			cwd: projectWithDuplicate(),
			args: ["--mode", "text"],
		});
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toMatch(/duplicated block/);
		expect(run.stdout).toMatch(/src\/a\.ts/);
		expect(run.stdout).toMatch(/src\/b\.ts/);
		expect(run.stderr).not.toMatch(/src\/a\.ts/);
	});

	it("/reset status: the answer is on stdout, not on stderr", async () => {
		run = await runPi({
			extensions: [dir("pi-reset")],
			script: hello,
			prompt: "/reset status",
			args: ["--mode", "text"],
		});
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toMatch(/window/i);
		expect(run.stdout).toMatch(/w0/);
		expect(run.stderr).not.toMatch(/w0/);
	});

	it("/goal status: the answer is on stdout, not on stderr", async () => {
		run = await runPi({
			extensions: [dir("pi-goal")],
			script: hello,
			prompt: "/goal status",
			args: ["--mode", "text"],
		});
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toMatch(/no goal/i);
		expect(run.stderr).not.toMatch(/no goal/i);
	});

	it("a malformed command: the error goes to stderr, prefixed with the extension's name; stdout stays empty", async () => {
		run = await runPi({
			extensions: [dir("pi-jscpd")],
			script: hello,
			prompt: "/jscpd scan --evil",
			args: ["--mode", "text"],
		});
		expect(run.stdout.trim()).toBe("");
		expect(run.stderr).toMatch(/^pi-jscpd: /m);
	});
});

describe("json mode: stdout is Pi's protocol", () => {
	it("/reset status answers on stderr; stdout holds only JSON lines", async () => {
		run = await runPi({
			extensions: [dir("pi-reset"), dir("pi-jscpd")],
			script: hello,
			prompt: "/reset status",
		});
		expect(run.code, run.stderr).toBe(0);
		expect(jsonLinesOnly(run.stdout)).toBe(true);
		expect(run.stderr).toMatch(/^pi-reset: .*w0/m);
	});

	it.each([
		["pi-jscpd", "/jscpd scan", /^pi-jscpd: jscpd: 1 duplicated block/m],
		["pi-goal", "/goal status", /^pi-goal: No goal\./m],
	])("%s: %s answers on stderr; stdout holds only JSON lines", async (name, prompt, answer) => {
		run = await runPi({ extensions: [dir(name)], script: hello, prompt, cwd: projectWithDuplicate() });
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout.trim()).not.toBe("");
		expect(jsonLinesOnly(run.stdout)).toBe(true);
		expect(run.stderr).toMatch(answer);
	});
});
