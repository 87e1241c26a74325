/**
 * Process faults of pi-jscpd's jscpd runner, through the real extension in a scripted session (its
 * session-start baseline capture is the first scan) and through the runner for memory figures.
 * Every case checks: the status shows the failure, no process of the fake survives (process table),
 * no private temp dir remains, memory stays bounded.
 */
import { chmodSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createScriptedSession, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { FAULTS, Tally } from "@pi-lifecycle/seed-plan";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { JscpdController } from "../../packages/pi-jscpd/src/adapters/controller.js";
import { probeCapability } from "../../packages/pi-jscpd/src/adapters/locate.js";
import { ProcessRunner } from "../../packages/pi-jscpd/src/adapters/runner.js";
import { runScan } from "../../packages/pi-jscpd/src/adapters/scan.js";
import { statusText } from "../../packages/pi-jscpd/src/core/status-text.js";
import { createJscpdExtension } from "../../packages/pi-jscpd/src/index.js";
import { fakeJscpd, processesWith, tempDir, writeScript } from "./support/extensions.js";

const tally = new Tally();
afterAll(() => tally.verify("faults", { jscpdProcess: FAULTS.jscpdProcess }));

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

interface Setup {
	readonly dir: string;
	readonly temp: string;
	readonly marker: string;
}

function setup(name: string): Setup {
	const dir = tempDir(`pi-reliability-${name}-`);
	const temp = tempDir("pi-reliability-jscpdtmp-");
	return { dir, temp, marker: `pirel${name}${process.pid}${Date.now()}` };
}

/** pi-jscpd alone in a scripted session, with a settings file and the given executable. */
async function jscpdSession(s: Setup, executable: string, timeoutMs = 1_000) {
	let controller: JscpdController | undefined;
	const { mkdirSync, writeFileSync } = await import("node:fs");
	mkdirSync(join(s.dir, "agent", "pi-lifecycle"), { recursive: true });
	writeFileSync(join(s.dir, "agent", "pi-lifecycle", "pi-jscpd.json"), JSON.stringify({ timeoutMs }));
	harness = await createScriptedSession({
		extensions: [
			{
				name: "pi-jscpd",
				factory: createJscpdExtension({
					agentDir: () => join(s.dir, "agent"),
					executable,
					limits: { tempRoot: s.temp, killGraceMs: 200 },
					onController: (c) => {
						controller = c;
					},
				}),
			},
		],
	});
	const get = () => controller as JscpdController;
	return { controller: get, status: () => statusText(get().status()) };
}

async function noOrphans(marker: string): Promise<void> {
	for (let i = 0; i < 50 && processesWith(marker).length > 0; i++)
		await new Promise((r) => setTimeout(r, 50));
	expect(processesWith(marker), "an orphan jscpd process survived").toEqual([]);
}

describe("pi-jscpd process faults", () => {
	it("jscpd missing: the capability is unavailable, status says why, nothing is left behind", async () => {
		const s = setup("missing");
		const session = await jscpdSession(s, join(s.dir, "no-such-jscpd"));
		await session.controller().settled();
		expect(session.status()).toMatch(/jscpd cannot run: .*no-such-jscpd/);
		expect(session.status()).toMatch(/Automatic jscpd checks cannot run\./);
		expect(readdirSync(s.temp)).toEqual([]);
		tally.hit("jscpdProcess");
	});

	it("jscpd not executable: unavailable, never run through a shell, nothing left behind", async () => {
		const s = setup("noexec");
		const path = fakeJscpd(s.dir);
		chmodSync(path, 0o644);
		const session = await jscpdSession(s, path);
		await session.controller().settled();
		expect(session.status()).toMatch(/jscpd cannot run/);
		expect(readdirSync(s.temp)).toEqual([]);
		tally.hit("jscpdProcess");
	});

	it("jscpd hangs past the timeout: the baseline fails with a timeout, the process tree is killed, no temp dir", async () => {
		const s = setup("hang");
		const path = fakeJscpd(s.dir, `sh -c 'sleep 600; : ${s.marker}' &\nsleep 600; : ${s.marker}`);
		const session = await jscpdSession(s, path, 1_000);
		await session.controller().settled();
		// The renamed/near-copy attempt times out at timeoutMs, the exact scan at 4 × timeoutMs.
		expect(session.status()).toMatch(/Baseline could not be recorded \(jscpd timed out after 4000 ms/);
		await noOrphans(s.marker);
		expect(readdirSync(s.temp)).toEqual([]);
		tally.hit("jscpdProcess");
	});

	it("jscpd killed mid-scan by shutdown (reload): the scan is cancelled, no orphan, no temp dir", async () => {
		const s = setup("shutdown");
		// The first scan hangs (it is killed by the reload); the reloaded runtime's scan succeeds.
		const flag = join(s.dir, "hung-once");
		const path = fakeJscpd(
			s.dir,
			`out=""; for a in "$@"; do if [ "$prev" = "--output" ]; then out="$a"; fi; prev="$a"; done
if [ ! -e "${flag}" ]; then touch "${flag}"; sh -c 'sleep 600; : ${s.marker}' & sleep 600; fi
printf '{"duplicates":[]}' > "$out/jscpd-report.json"`,
		);
		const session = await jscpdSession(s, path, 600_000);
		// The backgrounded grandchild carries the marker on its command line.
		for (let i = 0; i < 100 && processesWith(s.marker).length < 1; i++)
			await new Promise((r) => setTimeout(r, 20));
		expect(processesWith(s.marker).length).toBeGreaterThanOrEqual(1);
		const old = session.controller();
		await harness?.reload();
		await old.settled();
		await session.controller().settled();
		expect(session.controller()).not.toBe(old);
		expect(session.status()).toMatch(/Baseline: \d+ duplicated block/);
		await noOrphans(s.marker);
		expect(readdirSync(s.temp).filter((name) => name.startsWith("pi-jscpd-"))).toEqual([]);
		tally.hit("jscpdProcess");
	});

	it("jscpd exits non-zero with partial JSON: a failed baseline with a clear reason", async () => {
		const s = setup("partial");
		const path = fakeJscpd(
			s.dir,
			`out=""; while [ $# -gt 0 ]; do if [ "$1" = "--output" ]; then out="$2"; fi; shift; done
printf '{"duplicates":[{"format":"typescript","fir' > "$out/jscpd-report.json"; echo "boom" >&2; exit 3`,
		);
		const session = await jscpdSession(s, path);
		await session.controller().settled();
		expect(session.status()).toMatch(
			/Baseline could not be recorded \(.*(not valid JSON|exited with code 3)/,
		);
		expect(readdirSync(s.temp)).toEqual([]);
		tally.hit("jscpdProcess");
	});

	it("jscpd prints 100 MB: output is bounded, memory stays bounded, the scan still succeeds", async () => {
		const s = setup("flood");
		const path = fakeJscpd(
			s.dir,
			`out=""; while [ $# -gt 0 ]; do if [ "$1" = "--output" ]; then out="$2"; fi; shift; done
head -c 104857600 /dev/zero; head -c 10485760 /dev/zero >&2
printf '{"duplicates":[]}' > "$out/jscpd-report.json"`,
		);
		const runner = new ProcessRunner({ tempRoot: s.temp });
		const capability = await probeCapability(runner, [{ command: path, source: "override" }], { cwd: s.dir });
		global.gc?.();
		const before = process.memoryUsage();
		let peak = 0;
		const sampler = setInterval(() => {
			peak = Math.max(peak, process.memoryUsage().rss - before.rss);
		}, 5);
		const outcome = await runScan(runner, capability, { root: s.dir, paths: [], timeoutMs: 60_000 });
		clearInterval(sampler);
		const heapDelta = process.memoryUsage().heapUsed - before.heapUsed;
		expect(outcome.status).toBe("ok");
		expect(peak, `RSS grew by ${peak} bytes`).toBeLessThan(64 * 1024 * 1024);
		expect(heapDelta, `heap grew by ${heapDelta} bytes`).toBeLessThan(32 * 1024 * 1024);
		console.log(
			`[reliability] 100 MB stdout: peak RSS delta ${(peak / 1048576).toFixed(1)} MB, heap delta ${(heapDelta / 1048576).toFixed(1)} MB`,
		);
		expect(readdirSync(s.temp)).toEqual([]);
		tally.hit("jscpdProcess");
	});

	it("jscpd writes a huge report (200 MB): rejected by size before it is read, memory bounded, status shows it", async () => {
		const s = setup("hugereport");
		const path = fakeJscpd(
			s.dir,
			`out=""; while [ $# -gt 0 ]; do if [ "$1" = "--output" ]; then out="$2"; fi; shift; done
truncate -s 200M "$out/jscpd-report.json"`,
		);
		const before = process.memoryUsage().rss;
		const session = await jscpdSession(s, path);
		await session.controller().settled();
		const delta = process.memoryUsage().rss - before;
		expect(session.status()).toMatch(
			/Baseline could not be recorded \(the jscpd report is too large \(209715200 bytes/,
		);
		expect(delta, `RSS grew by ${delta} bytes`).toBeLessThan(64 * 1024 * 1024);
		expect(readdirSync(s.temp)).toEqual([]);
		tally.hit("jscpdProcess");
	});

	it("jscpd floods stderr and crashes: the reason is bounded", async () => {
		const s = setup("stderr");
		const path = fakeJscpd(
			s.dir,
			`i=0; while [ $i -lt 20000 ]; do echo "panic line $i" >&2; i=$((i+1)); done; echo "FINAL: out of memory" >&2; exit 101`,
		);
		// 20,000 lines from a shell loop take seconds on a loaded machine: the limit is not under test.
		const session = await jscpdSession(s, path, 10_000);
		await session.controller().settled();
		const line =
			session
				.status()
				.split("\n")
				.find((l) => l.startsWith("Baseline could not be recorded")) ?? "";
		expect(line).toMatch(/Baseline could not be recorded \(jscpd exited with code 101/);
		expect(line.length).toBeLessThan(600);
		expect(readdirSync(s.temp)).toEqual([]);
		tally.hit("jscpdProcess");
	});

	// Regression test for a fixed defect (pi-jscpd, src/runner.ts BoundedBuffer + src/scan.ts runScan "failed"): stderr keeps the
	// FIRST 64 KiB and runScan then shows the last 3 lines of that head, so a crash that prints more
	// than 64 KiB shows lines from the middle of its output ("panic line 4163 …") and never the final
	// error line. Expected: keep the tail of stderr (or head and tail) so the reason is the real one.
	it("jscpd floods stderr and crashes: the status shows its final error line", async () => {
		const s = setup("stderrtail");
		const path = fakeJscpd(
			s.dir,
			`i=0; while [ $i -lt 20000 ]; do echo "panic line $i" >&2; i=$((i+1)); done; echo "FINAL: out of memory" >&2; exit 101`,
		);
		// 20,000 lines from a shell loop take seconds on a loaded machine: the limit is not under test.
		const session = await jscpdSession(s, path, 10_000);
		await session.controller().settled();
		expect(session.status()).toContain("FINAL: out of memory");
	});
});

describe("writeScript helper sanity", () => {
	it("fake executables are real files run without a shell by the runner", () => {
		const s = setup("sanity");
		expect(writeScript(join(s.dir, "x"), "exit 0")).toContain(s.dir);
	});
});
