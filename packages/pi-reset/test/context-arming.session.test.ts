/**
 * The `context` hook is subscribed only while it is needed (Pi pays for a context handler on
 * every provider request). These sessions run without the harness recorder (which subscribes
 * `context` itself), so `hasExtensionHandlers("context")` at each provider call tells whether
 * pi-reset's hook was armed for that request.
 */
import type { Usage } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { type DynamicStep, reply, type ScriptedSession, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import { allText, outsideBoot, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const WARNING = "[pi-reset] Checkpoint";

/** Usage the next answers report (set by the test), applied at message_end before pi-reset sees it. */
let nextUsage: Partial<Usage> | undefined;

const usagePatcher: ExtensionFactory = (pi: ExtensionAPI) => {
	pi.on("message_end", (event) => {
		if (event.message.role !== "assistant" || !nextUsage) return undefined;
		return { message: { ...event.message, usage: { ...event.message.usage, ...nextUsage } } };
	});
};

/** A tool whose result is `tokens` estimated tokens long (Pi estimates 4 characters per token). */
const bigTool: ExtensionFactory = (pi: ExtensionAPI) => {
	pi.registerTool({
		name: "big",
		label: "Big",
		description: "Returns a large text",
		parameters: Type.Object({ tokens: Type.Number() }),
		async execute(_id, params) {
			return { content: [{ type: "text", text: "x".repeat(params.tokens * 4) }], details: undefined };
		},
	});
};

/** Whether pi-reset's context hook was subscribed when each request was made. */
const armedAt: boolean[] = [];

function observed(step: ReturnType<typeof reply>): DynamicStep {
	return () => {
		armedAt.push(harness?.session.hasExtensionHandlers("context") ?? false);
		return step;
	};
}

async function start(): Promise<ScriptedSession> {
	armedAt.length = 0;
	nextUsage = undefined;
	harness = await startSession({ recorder: false, extensions: [bigTool] }, [usagePatcher]);
	return harness;
}

function usage(tokens: number): Partial<Usage> {
	return { input: tokens, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: tokens };
}

const warned = (h: ScriptedSession) => h.requests.map((r) => allText(r).split(WARNING).length - 1);

describe("context hook arming", () => {
	it("is not subscribed far from the warning point once the window is measured", async () => {
		const h = await start();
		nextUsage = usage(2_000);
		h.script(
			observed(reply("one")),
			observed(reply("two")),
			observed(toolCall("echo", { text: "hi" })),
			observed(reply("three")),
		);
		await h.prompt("one");
		await h.prompt("two");
		await h.prompt("three");
		// The first request of a session is checked exactly (the window is not measured yet).
		expect(armedAt).toEqual([true, false, false, false]);
		expect(h.session.hasExtensionHandlers("context")).toBe(false);
		expect(warned(h)).toEqual([0, 0, 0, 0]);
		expect(h.errors).toEqual([]);
	});

	it("is armed within the safety margin of the warning point and warns at the same request as before", async () => {
		// 128k window, reserve 16384 + margin 12288: the warning fires at 99328 tokens used; the hook is
		// armed from 99328 - 8192 = 91136.
		const h = await start();
		h.script(
			observed(reply("a")),
			observed(reply("b")),
			observed(reply("c")),
			observed(reply("d")),
			observed(reply("e")),
		);
		nextUsage = usage(60_000);
		await h.prompt("a");
		nextUsage = usage(95_000);
		await h.prompt("b");
		nextUsage = usage(100_000);
		await h.prompt("c");
		await h.prompt("d");
		await h.prompt("e");
		// Armed after the warning too: later requests of the warned window show the warning where it
		// was sent (warningWhereSent), so they repeat the warned request as their prefix.
		expect(armedAt).toEqual([true, false, true, true, true]);
		expect(warned(h)).toEqual([0, 0, 0, 1, 1]);
		expect(h.errors).toEqual([]);
	});

	it("a single large tool result arms the hook at its message_end, so the next request is warned", async () => {
		const h = await start();
		nextUsage = usage(60_000);
		h.script(
			observed(reply("measured")),
			observed(toolCall("big", { tokens: 45_000 })),
			observed(reply("done")),
		);
		await h.prompt("measure");
		await h.prompt("read the big file");
		expect(armedAt).toEqual([true, false, true]);
		expect(warned(h)).toEqual([0, 0, 1]);
		expect(h.errors).toEqual([]);
	});

	it("/reset while idle arms the hook for the fresh-window run; the new window is checked until measured", async () => {
		const h = await start();
		nextUsage = usage(2_000);
		h.script(
			observed(reply("one")),
			observed(reply("two")),
			observed(reply("fresh")),
			observed(reply("four")),
			observed(reply("five")),
		);
		await h.prompt("one");
		await h.prompt("two");
		await h.prompt("/reset HANDOFF-IDLE");
		await h.prompt("three");
		await h.prompt("four");
		await h.prompt("five");
		expect(armedAt).toEqual([true, false, true, true, false]);
		expect(allText(h.requests[2])).toContain("HANDOFF-IDLE");
		expect(outsideBoot(allText(h.requests[2]))).not.toContain("two");
		expect(h.errors).toEqual([]);
	});

	it("is never subscribed while pi-reset is off", async () => {
		const h = await start();
		await h.prompt("/reset off");
		nextUsage = usage(110_000);
		h.script(observed(reply("one")), observed(reply("two")));
		await h.prompt("one");
		await h.prompt("two");
		expect(armedAt).toEqual([false, false]);
		expect(warned(h)).toEqual([0, 0]);
	});
});
