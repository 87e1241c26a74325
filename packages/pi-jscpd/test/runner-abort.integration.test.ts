/**
 * Issue 17 item 3: abort and shutdown are honoured at every await of a run, including while its
 * private temp dir is being created, and close() never waits for a scan. The temp-dir creation is
 * held on a controlled promise, so the race is deterministic.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ProcessRunner } from "../src/adapters/runner.js";
import { remove, tempDir, writeScript } from "./helpers.js";

const hold = vi.hoisted(() => ({ gate: undefined as Promise<void> | undefined, entered: () => {} }));

vi.mock("node:fs/promises", async (importOriginal) => {
	const actual = await importOriginal<typeof import("node:fs/promises")>();
	return {
		...actual,
		mkdtemp: async (...args: Parameters<typeof actual.mkdtemp>) => {
			const dir = await actual.mkdtemp(...args);
			hold.entered();
			if (hold.gate) await hold.gate;
			return dir;
		},
	};
});

const dirs: string[] = [];
afterEach(() => {
	hold.gate = undefined;
	remove(...dirs.splice(0));
});

function setup() {
	const root = tempDir("pi-jscpd-abort-");
	const temp = tempDir("pi-jscpd-abort-tmp-");
	dirs.push(root, temp);
	const tools = tempDir("pi-jscpd-abort-bin-");
	dirs.push(tools);
	const marker = join(root, "started");
	const command = writeScript(join(tools, "jscpd"), `: > '${marker}'\nsleep 30`);
	return { root, temp, marker, command };
}

function holdMkdtemp(): { entered: Promise<void>; release: () => void } {
	let release = () => {};
	hold.gate = new Promise<void>((resolve) => {
		release = resolve;
	});
	const entered = new Promise<void>((resolve) => {
		hold.entered = resolve;
	});
	return { entered, release };
}

describe("abort and shutdown at every await (issue 17 item 3)", () => {
	it("an abort while the temp dir is being created: jscpd never starts and the run is cancelled", async () => {
		const { root, temp, marker, command } = setup();
		const runner = new ProcessRunner({ tempRoot: temp });
		runner.bind({ root, trusted: false });
		const gate = holdMkdtemp();
		const controller = new AbortController();
		const running = runner.run({ command, args: [], timeoutMs: 30_000, signal: controller.signal });
		await gate.entered;
		controller.abort();
		gate.release();
		expect(await running).toEqual({ status: "cancelled" });
		expect(existsSync(marker)).toBe(false);
	});

	it("close() while the temp dir is being created: nothing starts and close returns without a scan", async () => {
		const { root, temp, marker, command } = setup();
		const runner = new ProcessRunner({ tempRoot: temp });
		runner.bind({ root, trusted: false });
		const gate = holdMkdtemp();
		const running = runner.run({ command, args: [], timeoutMs: 30_000 });
		await gate.entered;
		const closing = runner.close();
		gate.release();
		const begin = Date.now();
		await closing;
		expect(await running).toEqual({ status: "cancelled" });
		expect(Date.now() - begin).toBeLessThan(2_000);
		expect(existsSync(marker)).toBe(false);
	});

	it("close() during a scan kills it at once: it does not wait for the scan or its timeout", async () => {
		const { root, temp, marker, command } = setup();
		const runner = new ProcessRunner({ tempRoot: temp });
		runner.bind({ root, trusted: false });
		const running = runner.run({ command, args: [], timeoutMs: 30_000 });
		await vi.waitFor(() => expect(existsSync(marker)).toBe(true), { timeout: 10_000 });
		const begin = Date.now();
		await runner.close();
		expect(Date.now() - begin).toBeLessThan(2_000);
		expect(await running).toEqual({ status: "cancelled" });
	});
});
