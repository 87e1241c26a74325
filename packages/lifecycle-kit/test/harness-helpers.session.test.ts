import { existsSync } from "node:fs";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterAll, describe, expect, it } from "vitest";
import {
	captureConsole,
	createScriptedSession,
	deferred,
	reply,
	type ScriptedSession,
	setTestCleanup,
} from "../src/testing/index.js";

/** An extension that starts a run from idle when the test releases `wake` (a timer stand-in). */
function wakeLater(wake: Promise<void>) {
	return (pi: ExtensionAPI) => {
		pi.registerCommand("later", {
			description: "wake up later",
			handler: async () => {
				void wake.then(() =>
					pi.sendMessage(
						{ customType: "t/wake", content: "Time to check.", display: true },
						{ triggerTurn: true },
					),
				);
			},
		});
	};
}

describe("waiting for runs the extension starts", () => {
	it("waitForRun resolves when a run the extension starts from idle settles", async () => {
		const wake = deferred();
		const harness = await createScriptedSession({
			extensions: [wakeLater(wake.promise)],
			responses: [reply("ok")],
		});
		await harness.prompt("/later");
		expect(harness.providerCalls).toBe(0);
		const run = harness.waitForRun();
		wake.resolve();
		await expect(run).resolves.toEqual({ aborted: false });
		expect(harness.providerCalls).toBe(1);
		expect(harness.customMessages("t/wake").map((message) => message.text)).toEqual(["Time to check."]);
	});

	it("waitForRun rejects with a clear error when no run settles in time", async () => {
		const harness = await createScriptedSession();
		await expect(harness.waitForRun({ timeoutMs: 20 })).rejects.toThrow(
			/waitForRun: nothing happened within 20 ms/,
		);
	});

	it("waitForIdle resolves at once when idle, and waits for a run an agent_settled handler deferred", async () => {
		let sent = false;
		const harness = await createScriptedSession({
			extensions: [
				(pi) => {
					pi.on("agent_settled", () => {
						if (sent) return;
						sent = true;
						pi.sendMessage(
							{ customType: "t/again", content: "Once more.", display: false },
							{ triggerTurn: true },
						);
					});
				},
			],
		});
		await harness.waitForIdle();
		harness.script(reply("first"), reply("second"));
		void harness.session.prompt("go");
		await harness.waitForIdle();
		expect(harness.providerCalls).toBe(2);
		expect(harness.count("agent_settled")).toBe(2);
	});
});

describe("reading what extensions wrote", () => {
	it("customMessages and customEntries filter the current branch by customType", async () => {
		const harness = await createScriptedSession({
			extensions: [
				(pi) => {
					pi.registerCommand("note", {
						description: "write things",
						handler: async () => {
							pi.appendEntry("t/state", { n: 1 });
							pi.appendEntry("t/other", { n: 2 });
							pi.sendMessage({
								customType: "t/note",
								content: [{ type: "text", text: "a note" }],
								display: true,
							});
						},
					});
				},
			],
		});
		await harness.prompt("/note");
		expect(harness.customEntries<{ n: number }>("t/state").map((entry) => entry.data)).toEqual([{ n: 1 }]);
		expect(harness.customEntries()).toHaveLength(2);
		expect(harness.customMessages("t/note")).toMatchObject([
			{ customType: "t/note", text: "a note", display: true },
		]);
		expect(harness.customMessages("t/none")).toEqual([]);
	});
});

describe("automatic disposal", () => {
	let created: ScriptedSession | undefined;
	let kept: ScriptedSession | undefined;
	const originalError = console.error;
	afterAll(async () => {
		await kept?.dispose();
		setTestCleanup(undefined);
	});

	it("a session created in a test, and a console capture, are registered for cleanup (part 1: create)", async () => {
		created = await createScriptedSession();
		kept = await createScriptedSession({ autoDispose: false });
		const capture = captureConsole({ streams: ["error"] });
		console.error("seen", 2);
		expect(capture.lines.error).toEqual(["seen 2"]);
		expect(console.error).not.toBe(originalError);
	});

	it("a session created in a test, and a console capture, are registered for cleanup (part 2: after the test)", () => {
		expect(created && existsSync(created.cwd)).toBe(false);
		expect(kept && existsSync(kept.cwd)).toBe(true);
		expect(console.error).toBe(originalError);
	});

	it("setTestCleanup replaces the registrar (another runner's hook) and null turns it off", async () => {
		const registered: (() => unknown)[] = [];
		setTestCleanup((cleanup) => registered.push(cleanup));
		const harness = await createScriptedSession();
		expect(registered).toHaveLength(1);
		await registered[0]?.();
		expect(existsSync(harness.cwd)).toBe(false);
		setTestCleanup(null);
		const manual = await createScriptedSession();
		expect(registered).toHaveLength(1);
		await manual.dispose();
		setTestCleanup(undefined);
	});
});

describe("console capture", () => {
	it("captures the chosen streams in order and restores on demand", () => {
		const capture = captureConsole();
		console.warn("careful");
		console.error(new Error("broke"));
		console.log("plain", { a: 1 });
		capture.restore();
		capture.restore();
		expect(capture.text()).toBe("careful\nbroke\nplain { a: 1 }");
		expect(capture.text("error")).toBe("broke");
	});

	it("a captured line reads as the console would print it (format strings, objects, arrays)", () => {
		const capture = captureConsole({ streams: ["log"] });
		console.log("%d files in %s", 3, "src");
		console.log("plain", { a: 1 }, [1, 2]);
		console.log("100%");
		capture.restore();
		expect(capture.lines.log).toEqual(["3 files in src", "plain { a: 1 } [ 1, 2 ]", "100%"]);
	});

	it("captures restored out of order leave the original console, and a restored capture records nothing", () => {
		const original = console.log;
		const outer = captureConsole({ streams: ["log"] });
		const inner = captureConsole({ streams: ["log"] });
		outer.restore(); // the outer one first: the inner one is still installed on top
		console.log("to inner");
		inner.restore();
		expect(console.log).toBe(original);
		const probe = captureConsole({ streams: ["log"] });
		console.log("after");
		probe.restore();
		expect(inner.lines.log).toEqual(["to inner"]);
		expect(outer.lines.log).toEqual([]);
		expect(probe.lines.log).toEqual(["after"]);
	});
});

describe("an extension that fails to load fails the session, not silently", () => {
	it("a wrong extension path rejects with the path and Pi's reason", async () => {
		await expect(createScriptedSession({ extensionPaths: ["/nonexistent/my-extension"] })).rejects.toThrow(
			/failed to load:\n- \/nonexistent\/my-extension: Extension path does not exist/,
		);
	});

	it("a factory that throws rejects with its error", async () => {
		const broken = () => {
			throw new Error("BROKEN-FACTORY");
		};
		await expect(createScriptedSession({ extensions: [broken] })).rejects.toThrow(/BROKEN-FACTORY/);
	});

	it("a tool conflict is Pi's diagnostic, not a failure: both extensions stay loaded", async () => {
		const tool = (pi: ExtensionAPI) =>
			pi.registerTool({
				name: "same_tool",
				label: "Same",
				description: "one name, two owners",
				parameters: { type: "object", properties: {} } as never,
				execute: async () => ({ content: [], details: undefined }),
			});
		const harness = await createScriptedSession({ extensions: [tool, tool] });
		expect(harness.session.getAllTools().filter((found) => found.name === "same_tool")).toHaveLength(1);
	});
});
