import { VERSION } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkHost, compareVersions, guardHost, MIN_PI_VERSION } from "../src/host.js";
import { captureConsole, createScriptedSession, reply, type ScriptedSession } from "../src/testing/index.js";

describe("compareVersions", () => {
	it("compares major, minor and patch numerically", () => {
		expect(compareVersions("1.3.0", "1.3.0")).toBe(0);
		expect(compareVersions("1.10.0", "1.9.9")).toBe(1);
		expect(compareVersions("1.2.9", "1.3.0")).toBe(-1);
		expect(compareVersions("2.0.0", "1.99.99")).toBe(1);
		expect(compareVersions("0.73.1", "1.3.0")).toBe(-1);
	});

	it("ignores pre-release suffixes and surrounding space", () => {
		expect(compareVersions("1.3.0-beta.1", "1.3.0")).toBe(0);
		expect(compareVersions(" 1.6.0 ", "1.6.0")).toBe(0);
	});

	it("treats an unreadable version as 0.0.0", () => {
		expect(compareVersions("garbage", "0.0.1")).toBe(-1);
	});
});

describe("checkHost", () => {
	it("supports the minimum and newer", () => {
		expect(MIN_PI_VERSION).toBe("1.3.0");
		expect(checkHost("1.3.0")).toEqual({ supported: true, version: "1.3.0" });
		expect(checkHost("1.6.0").supported).toBe(true);
	});

	it("the installed dev host is supported", () => {
		expect(checkHost(VERSION).supported).toBe(true);
	});

	it("rejects older hosts with a reason", () => {
		expect(checkHost("1.2.0")).toEqual({
			supported: false,
			version: "1.2.0",
			reason: "Pi 1.2.0 is older than 1.3.0",
		});
		expect(checkHost("0.73.1").supported).toBe(false);
	});

	it("rejects a missing or unreadable version", () => {
		for (const version of [undefined, null, 130, "", "v-next"]) {
			const result = checkHost(version);
			expect(result.supported).toBe(false);
			expect(!result.supported && result.reason).toMatch(/cannot read Pi's version/);
		}
	});
});

describe("guardHost", () => {
	let harness: ScriptedSession | undefined;
	afterEach(async () => {
		vi.restoreAllMocks();
	});

	it("a supported host registers nothing", () => {
		const on = vi.fn();
		expect(guardHost({ on } as never, "pkg", "1.6.0").supported).toBe(true);
		expect(on).not.toHaveBeenCalled();
	});

	it("an unsupported host stays dormant and says why once, on Pi's real session (print mode)", async () => {
		const errors = captureConsole({ streams: ["error"] });
		let registeredTool = false;
		harness = await createScriptedSession({
			extensions: [
				(pi) => {
					if (!guardHost(pi, "demo-ext", "1.2.0").supported) return;
					registeredTool = true;
				},
			],
			responses: [reply("a"), reply("b")],
		});
		await harness.prompt("one");
		await harness.prompt("two");
		expect(registeredTool).toBe(false);
		const lines = errors.lines.error.filter((line) => line.includes("demo-ext"));
		expect(lines).toEqual([
			"demo-ext is inactive: Pi 1.2.0 is older than 1.3.0. It needs Pi 1.3.0 or newer.",
		]);
	});

	it("the dormant message is shown once even if session_start fires again in one runtime", async () => {
		const handlers: ((event: unknown, ctx: unknown) => void)[] = [];
		const on = (_name: string, handler: (event: unknown, ctx: unknown) => void) =>
			void handlers.push(handler);
		guardHost({ on } as never, "demo-ext", "1.0.0");
		const notify = vi.fn();
		const ctx = { hasUI: true, ui: { notify } };
		for (let i = 0; i < 3; i++) for (const handler of handlers) handler({}, ctx);
		expect(handlers).toHaveLength(1);
		expect(notify).toHaveBeenCalledTimes(1);
		expect(notify).toHaveBeenCalledWith(expect.stringContaining("demo-ext is inactive"), "warning");
	});
});
