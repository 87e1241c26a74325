/**
 * Issue 17 item 3 and issue 14: no jscpd process outlives Pi. Shutdown kills a running scan at once
 * (never waits for it), and after a SIGKILL of Pi itself the kit's watchdog kills the scan's
 * process group (docs/security.md, "Process lifetime").
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScriptedSession, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { JscpdController } from "../../packages/pi-jscpd/src/adapters/controller.js";
import { allExtensions, tempDir, writeScript } from "../reliability/support/extensions.js";

const here = dirname(fileURLToPath(import.meta.url));
let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** A jscpd that answers --version and hangs on a scan (writing its pid, and a grandchild's). */
function hangingJscpd(dir: string): { command: string; pids: string } {
	const pids = join(dir, "scan.pids");
	const command = writeScript(
		join(dir, "bin", "jscpd"),
		`if [ "$1" = "--version" ]; then echo 5.3.2; exit 0; fi
sleep 120 &
echo "$$ $!" > '${pids}'
wait`,
	);
	return { command, pids };
}

function scanPids(file: string): number[] {
	return readFileSync(file, "utf8").trim().split(/\s+/).map(Number);
}

describe("process lifetime", () => {
	it("shutdown never waits for a scan: it returns at once and the scan's process group is gone", async () => {
		const dir = tempDir("pi-security-lifetime-");
		const { command, pids } = hangingJscpd(dir);
		let controller: JscpdController | undefined;
		harness = await createScriptedSession({
			extensions: allExtensions({
				agentDir: dir,
				order: ["pi-jscpd"],
				jscpd: {
					executable: command,
					onController: (c) => {
						controller = c;
					},
				},
			}),
		});
		await vi.waitFor(() => expect(existsSync(pids) && readFileSync(pids, "utf8").trim()).toBeTruthy(), {
			timeout: 20_000,
		});
		const begin = Date.now();
		await controller?.shutdown();
		expect(Date.now() - begin).toBeLessThan(1_000);
		for (const pid of scanPids(pids))
			await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 5_000 });
	});

	it("after a SIGKILL of Pi, no jscpd process survives: the watchdog kills the scan's group", async () => {
		const dir = tempDir("pi-security-sigkill-");
		const { command, pids } = hangingJscpd(dir);
		const project = join(dir, "project");
		const pi = spawn(
			process.execPath,
			[join(here, "support", "pi-stand-in.mjs"), project, join(dir, "agent"), command],
			{ cwd: here, stdio: ["ignore", "pipe", "inherit"] },
		);
		try {
			// Pi's start and the first scan took 17-30 s at load average 25; the run is bounded by the test timeout.
			await vi.waitFor(() => expect(existsSync(pids) && readFileSync(pids, "utf8").trim()).toBeTruthy(), {
				timeout: 120_000,
				interval: 100,
			});
			const scan = scanPids(pids);
			for (const pid of scan) expect(alive(pid)).toBe(true);
			pi.kill("SIGKILL");
			for (const pid of scan)
				await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 10_000, interval: 50 });
		} finally {
			pi.kill("SIGKILL");
		}
	});
});
