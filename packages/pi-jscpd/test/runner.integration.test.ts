import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeCapability } from "../src/adapters/locate.js";
import { ProcessRunner } from "../src/adapters/runner.js";
import { runScan } from "../src/adapters/scan.js";
import {
	duplicatedFunction,
	processesWith,
	realJscpd,
	remove,
	tempDir,
	waitFor,
	writeFiles,
	writeScript,
} from "./helpers.js";

const dirs: string[] = [];
afterEach(() => remove(...dirs.splice(0)));

function setup() {
	const root = tempDir("pi-jscpd-runner-");
	const temp = tempDir("pi-jscpd-tmp-");
	dirs.push(root, temp);
	writeFiles(root, { "src/a.ts": duplicatedFunction("one"), "src/b.ts": duplicatedFunction("two") });
	return { root, temp };
}

/** A fake jscpd that answers --version like 5.3.2 and then runs `body` for scans. */
function fake(dir: string, body: string): string {
	return writeScript(
		join(dir, "bin", "jscpd"),
		`if [ "$1" = "--version" ]; then echo "jscpd 5.3.2"; exit 0; fi\n${body}`,
	);
}

async function scanWith(command: string, root: string, runner: ProcessRunner, timeoutMs = 5_000) {
	const capability = await probeCapability(runner, [{ command, source: "override" }], { cwd: root });
	return runScan(runner, capability, { root, paths: [], timeoutMs });
}

describe("process adapter with real and fake jscpd", () => {
	it("real jscpd on a fixture tree reports the duplicated function and leaves no temp dir", async () => {
		const { root, temp } = setup();
		const runner = new ProcessRunner({ tempRoot: temp });
		const outcome = await scanWith(realJscpd(), root, runner);
		expect(outcome.status).toBe("ok");
		if (outcome.status !== "ok") return;
		expect(outcome.report.groups).toHaveLength(1);
		expect(outcome.report.groups[0]?.locations.map((l) => l.path).sort()).toEqual(["src/a.ts", "src/b.ts"]);
		expect(readdirSync(temp)).toEqual([]);
	});

	it("a jscpd over the memory bound (a tiny cap) is an incomplete scan that says it ran out of memory", async () => {
		const { root, temp } = setup();
		const bin = tempDir("pi-jscpd-bin-");
		dirs.push(bin);
		const runner = new ProcessRunner({ tempRoot: temp, maxMemoryBytes: 1024 });
		const outcome = await scanWith(fake(bin, "sleep 30"), root, runner);
		expect(outcome).toMatchObject({ status: "incomplete" });
		expect(outcome.status === "incomplete" && outcome.reason).toMatch(
			/^jscpd ran out of memory \(limit 1 MB\); nothing was checked \(the project gave jscpd \d+ files/,
		);
		expect(readdirSync(temp)).toEqual([]);
	});

	it("a jscpd that may be a node launcher gets a bounded heap (NODE_OPTIONS) for scans", async () => {
		const { root, temp } = setup();
		const log = join(temp, "..", `${temp.split("/").pop()}-env.log`);
		dirs.push(log);
		const runner = new ProcessRunner({ tempRoot: temp, maxMemoryBytes: 512 * 1024 * 1024 });
		const command = fake(temp, `echo "$NODE_OPTIONS" > '${log}'; exit 3`);
		await scanWith(command, root, runner);
		expect(readFileSync(log, "utf8").trim()).toBe("--max-old-space-size=256");
	});

	it("a missing executable makes jscpd unavailable (dormant), not an error", async () => {
		const { root, temp } = setup();
		const runner = new ProcessRunner({ tempRoot: temp });
		const capability = await probeCapability(
			runner,
			[{ command: join(root, "no-such-jscpd"), source: "override" }],
			{ cwd: root },
		);
		expect(capability.status).toBe("unavailable");
		const outcome = await runScan(runner, capability, { root, paths: [], timeoutMs: 1_000 });
		expect(outcome.status).toBe("unavailable");
	});

	it("a jscpd that is not 5.x is not used", async () => {
		const { root, temp } = setup();
		const old = writeScript(join(root, "old", "jscpd"), 'echo "4.0.5"');
		const capability = await probeCapability(
			new ProcessRunner({ tempRoot: temp }),
			[{ command: old, source: "path" }],
			{ cwd: root },
		);
		expect(capability).toMatchObject({ status: "unavailable" });
	});

	it("a hanging jscpd times out and the whole process tree is killed, leaving no orphan and no temp dir", async () => {
		const { root, temp } = setup();
		const marker = `pijscpdhang${process.pid}${Date.now()}`;
		const command = fake(root, `sh -c 'sleep 600; : ${marker}' &\nsh -c 'sleep 600; : ${marker}'`);
		const runner = new ProcessRunner({ tempRoot: temp, killGraceMs: 200 });
		const scanning = scanWith(command, root, runner, 1_000);
		await waitFor(() => expect(processesWith(marker).length).toBeGreaterThanOrEqual(2));
		const outcome = await scanning;
		expect(outcome.status).toBe("timeout");
		await waitFor(() => expect(processesWith(marker)).toEqual([]));
		expect(readdirSync(temp)).toEqual([]);
	});

	it("aborting a run kills its process group", async () => {
		const { root, temp } = setup();
		const marker = `pijscpdabort${process.pid}${Date.now()}`;
		const command = fake(root, `sh -c 'sleep 600; : ${marker}'`);
		const runner = new ProcessRunner({ tempRoot: temp, killGraceMs: 200 });
		const capability = await probeCapability(runner, [{ command, source: "override" }], { cwd: root });
		const controller = new AbortController();
		const scanning = runScan(runner, capability, {
			root,
			paths: [],
			timeoutMs: 60_000,
			signal: controller.signal,
		});
		await waitFor(() => expect(processesWith(marker)).toHaveLength(1));
		controller.abort();
		expect((await scanning).status).toBe("cancelled");
		await waitFor(() => expect(processesWith(marker)).toEqual([]));
		expect(readdirSync(temp)).toEqual([]);
	});

	it("a crashing jscpd is a failed scan with bounded stderr", async () => {
		const { root, temp } = setup();
		const command = fake(root, 'echo "thread main panicked" >&2; exit 101');
		const outcome = await scanWith(command, root, new ProcessRunner({ tempRoot: temp }));
		expect(outcome).toMatchObject({ status: "failed" });
		expect(outcome.status === "failed" && outcome.reason).toContain("panicked");
		expect(readdirSync(temp)).toEqual([]);
	});

	it("a garbage report is a failed scan", async () => {
		const { root, temp } = setup();
		const command = fake(
			root,
			'out=""; while [ $# -gt 0 ]; do [ "$1" = "--output" ] && out="$2"; shift; done\necho "not json {" > "$out/jscpd-report.json"',
		);
		const outcome = await scanWith(command, root, new ProcessRunner({ tempRoot: temp }));
		expect(outcome).toMatchObject({ status: "failed", reason: expect.stringContaining("not valid JSON") });
		expect(readdirSync(temp)).toEqual([]);
	});

	it("huge output and a huge report are bounded: a failed scan, no temp dir left", async () => {
		const { root, temp } = setup();
		const command = fake(
			root,
			'out=""; while [ $# -gt 0 ]; do [ "$1" = "--output" ] && out="$2"; shift; done\nhead -c 3000000 /dev/zero | tr "\\0" "x"\nhead -c 3000000 /dev/zero | tr "\\0" "y" >&2\nhead -c 2000000 /dev/zero > "$out/jscpd-report.json"',
		);
		const runner = new ProcessRunner({ tempRoot: temp, maxReportBytes: 1_000_000, maxOutputBytes: 10_000 });
		const outcome = await scanWith(command, root, runner);
		expect(outcome).toMatchObject({ status: "failed", reason: expect.stringContaining("too large") });
		expect(outcome.status === "failed" && outcome.reason.length).toBeLessThan(1_000);
		expect(readdirSync(temp)).toEqual([]);
	});

	it("runs are serialised: never two jscpd processes at once", async () => {
		const { root, temp } = setup();
		const log = join(root, "log.txt");
		const command = fake(root, `echo start >> ${log}; sleep 0.2; echo end >> ${log}; exit 3`);
		const runner = new ProcessRunner({ tempRoot: temp });
		const capability = await probeCapability(runner, [{ command, source: "override" }], { cwd: root });
		await Promise.all(
			[1, 2, 3].map(() => runScan(runner, capability, { root, paths: [], timeoutMs: 5_000 })),
		);
		const { readFileSync } = await import("node:fs");
		expect(readFileSync(log, "utf8").trim().split("\n")).toEqual([
			"start",
			"end",
			"start",
			"end",
			"start",
			"end",
		]);
	});
});
