import { spawnSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import { describe, expect, it, vi } from "vitest";
import {
	createFooterStatus,
	createOnceReporter,
	stdoutRedirected,
	tellUser,
	writeStdout,
} from "../src/user-output.js";

function context(mode: string, hasUI: boolean) {
	const notices: [string, string][] = [];
	const statuses: [string, string | undefined][] = [];
	const ctx = {
		hasUI,
		mode,
		ui: {
			notify: (text: string, level: string) => void notices.push([text, level]),
			setStatus: (key: string, text: string | undefined) => void statuses.push([key, text]),
		},
	} as never;
	return { ctx, notices, statuses };
}

function capture() {
	const out: string[] = [];
	const err: string[] = [];
	const log = vi.spyOn(console, "log").mockImplementation((text: unknown) => void out.push(String(text)));
	const error = vi.spyOn(console, "error").mockImplementation((text: unknown) => void err.push(String(text)));
	return {
		out,
		err,
		restore() {
			log.mockRestore();
			error.mockRestore();
		},
	};
}

describe("the no-UI policy of tellUser", () => {
	it("with a UI, every level is a notification and nothing is printed", () => {
		const { ctx, notices } = context("tui", true);
		const io = capture();
		try {
			tellUser(ctx, "demo", "hello");
			tellUser(ctx, "demo", "careful", "warning");
			expect(notices).toEqual([
				["hello", "info"],
				["careful", "warning"],
			]);
			expect([...io.out, ...io.err]).toEqual([]);
		} finally {
			io.restore();
		}
	});

	it("in print mode, info answers go to stdout unprefixed; warnings and errors to stderr, prefixed once", () => {
		const { ctx } = context("print", false);
		const io = capture();
		try {
			tellUser(ctx, "demo", "Status: fine");
			tellUser(ctx, "demo", "careful", "warning");
			tellUser(ctx, "demo", "demo: already prefixed", "error");
			expect(io.out).toEqual(["Status: fine"]);
			expect(io.err).toEqual(["demo: careful", "demo: already prefixed"]);
		} finally {
			io.restore();
		}
	});

	it("in print mode under Pi's output guard (process.stdout.write sent to stderr), info answers still reach stdout", () => {
		// A child process with the guard Pi installs in print, json and rpc modes (same since 1.3.0):
		// an own process.stdout.write that forwards to stderr, so console.log lands on stderr.
		const source = pathToFileURL(new URL("../src/user-output.ts", import.meta.url).pathname).href;
		const script = `
			const toStderr = process.stderr.write.bind(process.stderr);
			process.stdout.write = (chunk, encoding, callback) =>
				toStderr(String(chunk), typeof encoding === "function" ? encoding : callback);
			const { tellUser, writeStdout } = await import(${JSON.stringify(source)});
			const ctx = { hasUI: false, mode: "print", ui: {} };
			tellUser(ctx, "demo", "Status: fine");
			tellUser(ctx, "demo", "careful", "warning");
			tellUser({ ...ctx, mode: "json" }, "demo", "json answer");
			writeStdout("second line\\n");
			console.log("a plain console.log");
		`;
		const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
		expect(child.status, child.stderr).toBe(0);
		expect(child.stdout).toBe("Status: fine\nsecond line\n");
		expect(child.stderr).toContain("demo: careful");
		expect(child.stderr).toContain("demo: json answer");
		expect(child.stderr).toContain("a plain console.log");
	});

	it("in json mode stdout belongs to the protocol: even info goes to stderr", () => {
		const { ctx } = context("json", false);
		const io = capture();
		try {
			tellUser(ctx, "demo", "Status: fine");
			expect(io.out).toEqual([]);
			expect(io.err).toEqual(["demo: Status: fine"]);
		} finally {
			io.restore();
		}
	});

	it("a stale context (throwing) or none falls back to stderr and never throws", () => {
		const stale = {
			get hasUI(): boolean {
				throw new Error("stale");
			},
		} as never;
		const io = capture();
		try {
			tellUser(stale, "demo", "late");
			tellUser(undefined, "demo", "none", "warning");
			expect(io.err).toEqual(["demo: late", "demo: none"]);
		} finally {
			io.restore();
		}
	});
});

describe("createOnceReporter", () => {
	it("reports once per reporter (malformed saved state is said once per runtime)", () => {
		const { ctx, notices } = context("tui", true);
		const report = createOnceReporter("demo");
		expect(report.reported).toBe(false);
		expect(report(ctx, "ignored 2 entries")).toBe(true);
		expect(report(ctx, "ignored 3 entries")).toBe(false);
		expect(report.reported).toBe(true);
		expect(notices).toEqual([["ignored 2 entries", "warning"]]);
		expect(createOnceReporter("demo")(ctx, "a new runtime reports again")).toBe(true);
	});
});

describe("createFooterStatus", () => {
	it("calls setStatus only when the text or the context changed", () => {
		const first = context("tui", true);
		const second = context("tui", true);
		const footer = createFooterStatus("demo");
		expect(footer.set(first.ctx, "on")).toBe(true);
		expect(footer.set(first.ctx, "on")).toBe(true);
		expect(footer.set(first.ctx, undefined)).toBe(true);
		expect(footer.set(second.ctx, undefined)).toBe(true);
		expect(first.statuses).toEqual([
			["demo", "on"],
			["demo", undefined],
		]);
		expect(second.statuses).toEqual([["demo", undefined]]);
	});

	it("a stale context is ignored (the new runtime owns the footer), and the next set retries", () => {
		let stale = true;
		const calls: (string | undefined)[] = [];
		const ctx = {
			ui: {
				setStatus(_key: string, text: string | undefined) {
					if (stale) throw new Error("stale");
					calls.push(text);
				},
			},
		} as never;
		const footer = createFooterStatus("demo");
		expect(footer.set(ctx, "on")).toBe(false);
		expect(footer.set(undefined, "on")).toBe(false);
		stale = false;
		expect(footer.set(ctx, "on")).toBe(true);
		expect(calls).toEqual(["on"]);
	});
});

describe("writeStdout past a print-mode redirect", () => {
	it("a redirect of process.stdout.write (as Pi's print mode installs) is seen and bypassed", () => {
		const proto = Object.getPrototypeOf(process.stdout) as { write: typeof process.stdout.write };
		const real: string[] = [];
		const redirected: string[] = [];
		const protoWrite = vi.spyOn(proto, "write").mockImplementation((chunk: unknown) => {
			real.push(String(chunk));
			return true;
		});
		expect(stdoutRedirected()).toBe(false);
		process.stdout.write = ((chunk: unknown) => {
			redirected.push(String(chunk));
			return true;
		}) as typeof process.stdout.write;
		try {
			expect(stdoutRedirected()).toBe(true);
			writeStdout("summary\n");
		} finally {
			delete (process.stdout as { write?: unknown }).write;
			protoWrite.mockRestore();
		}
		expect(real).toEqual(["summary\n"]);
		expect(redirected).toEqual([]);
		expect(stdoutRedirected()).toBe(false);
	});
});
