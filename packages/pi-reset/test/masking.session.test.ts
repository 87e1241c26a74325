/**
 * Observation masking and recall in Pi's real session (issue 32): the rules, each a test named
 * after it. Settings come from a pi-reset.json in an isolated agent dir.
 */
import type { ToolResultMessage } from "@earendil-works/pi-ai";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import {
	type DynamicStep,
	providerError,
	reply,
	type ScriptedSession,
	toolCall,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startSession } from "./helpers.js";
import {
	agentDirWith,
	emitTool,
	outputOf,
	refOf,
	resultEntries,
	resultTexts,
	stubs,
	wire,
} from "./masking-helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.unstubAllEnvs();
});

const SIZE = 2000;
let run = 0;

async function open(settings: Record<string, unknown>): Promise<ScriptedSession> {
	vi.stubEnv("PI_CODING_AGENT_DIR", agentDirWith(settings));
	harness = await startSession({ extensions: [{ name: "emit", factory: emitTool }] });
	return harness;
}

/** `turns` emit calls (ids unique per test run, the same across two sessions of one test), then an answer. */
function emits(turns: number, prefix: string, extra: Record<string, unknown> = {}) {
	const id = `${prefix}-${run}`;
	return [
		...Array.from({ length: turns }, (_, t) =>
			toolCalls([{ name: "emit", args: { name: `${id}-${t}`, size: SIZE, ...extra }, id: `${id}-${t}` }]),
		),
		reply(`done ${prefix}`),
	];
}

describe("observation masking (issue 32)", () => {
	it("stubs are stable between steps: each request repeats the previous one byte for byte, except at a step", async () => {
		run++;
		const h = await open({ maskAfterTurns: 3, maskStepTurns: 4 });
		h.script(...emits(16, "a"));
		await h.prompt("work");
		const wires = h.requests.map(wire);
		const breaks: number[] = [];
		for (let i = 1; i < wires.length; i++)
			if (!wires[i]?.startsWith((wires[i - 1] as string).slice(0, -1))) breaks.push(i);
		// 17 requests: the horizon moves at 7, 11 and 15 answered turns, nowhere else.
		expect(breaks).toEqual([7, 11, 15]);
		expect(stubs(h.requests.at(-1))).toHaveLength(12);
		// The same result is the same stub in every request that masks it.
		const first = stubs(h.requests[7])[0];
		for (const request of h.requests.slice(7)) expect(stubs(request)[0]).toBe(first);
		expect(first).toContain(`emit {"name":"a-${run}-0","size":${SIZE}} (${SIZE} characters)`);
	});

	it("nothing the model has not seen is masked: the newest results are whole, each stub has answers after it", async () => {
		run++;
		const h = await open({ maskAfterTurns: 1, maskStepTurns: 1 });
		h.script(...emits(6, "b"));
		await h.prompt("work");
		for (const request of h.requests) {
			const texts = resultTexts(request);
			if (texts.length > 0) expect(texts.at(-1)).toBe(outputOf(`b-${run}-${texts.length - 1}`, SIZE));
			// Every stubbed result was sent whole in an earlier request the model answered.
			for (const stub of stubs(request)) {
				const index = texts.indexOf(stub);
				const earlier = h.requests.find((r) => resultTexts(r)[index] === outputOf(`b-${run}-${index}`, SIZE));
				expect(earlier).toBeDefined();
			}
		}
		expect(stubs(h.requests.at(-1))).toHaveLength(5);
	});

	it("errors and the user's own messages are never masked", async () => {
		run++;
		const h = await open({ maskAfterTurns: 1, maskStepTurns: 1 });
		const userText = outputOf("user", 5000);
		h.script(...emits(1, "err", { fail: true }), ...emits(5, "c"));
		await h.prompt(userText);
		await h.prompt("more");
		const last = h.requests.at(-1);
		const texts = resultTexts(last);
		expect(texts[0]).toContain(outputOf(`err-${run}-0`, SIZE).slice(0, 200));
		expect(stubs(last).length).toBeGreaterThan(0);
		const users = (last?.messages ?? []).filter((m) => m.role === "user");
		expect(JSON.stringify(users[0]?.content)).toContain(JSON.stringify(userText));
	});

	it("masking off restores the exact requests: off equals on with a horizon the session never reaches", async () => {
		run++;
		const requestsWith = async (settings: Record<string, unknown>) => {
			const h = await open(settings);
			h.script(...emits(8, "d"));
			await h.prompt("work");
			const wires = h.requests.map(wire);
			const armed = h.events.length;
			await h.dispose();
			harness = undefined;
			vi.unstubAllEnvs();
			return { wires, armed };
		};
		const off = await requestsWith({ masking: false, maskAfterTurns: 1, maskStepTurns: 1 });
		const far = await requestsWith({ maskAfterTurns: 10_000 });
		const on = await requestsWith({ maskAfterTurns: 1, maskStepTurns: 1 });
		expect(off.wires).toEqual(far.wires);
		expect(off.wires.join("")).not.toContain("[pi-reset] Old output hidden");
		expect(on.wires).not.toEqual(off.wires);
		// Off, the session file holds the same results as what was sent.
		expect(off.wires.at(-1)).toContain(JSON.stringify(outputOf(`d-${run}-0`, SIZE)).slice(1, -1));
	});

	it("a recalled output equals the original, and recall survives /reload", async () => {
		run++;
		const h = await open({ maskAfterTurns: 1, maskStepTurns: 1 });
		let ref = "";
		const recall: DynamicStep = (context) => {
			const stub = (context.messages as ToolResultMessage[])
				.flatMap((m) => (m.role === "toolResult" ? m.content : []))
				.map((b) => (b.type === "text" ? b.text : ""))
				.find((text) => text.startsWith("[pi-reset] Old output hidden"));
			ref = refOf(stub ?? "");
			return toolCall("context_recall", { ref });
		};
		h.script(...emits(3, "e").slice(0, 3), recall, reply("recalled"));
		await h.prompt("work");
		const original = resultEntries(h)[0];
		const recalled = resultEntries(h).at(-1);
		expect(ref).toBe(original?.id);
		expect(recalled?.message.toolName).toBe("context_recall");
		expect(recalled?.message.content).toEqual(original?.message.content);
		const before = stubs(h.requests.at(-1));
		expect(before.length).toBeGreaterThan(0);
		await h.reload();
		h.script(toolCall("context_recall", { ref }), reply("again"));
		await h.prompt("once more");
		expect(resultEntries(h).at(-1)?.message.content).toEqual(original?.message.content);
		// After the reload the same results are masked with the same bytes (rebuilt from the session).
		expect(stubs(h.requests.at(-2)).slice(0, before.length)).toEqual(before);
	});

	it("masking follows window boundaries: a reset starts counting again and the new window's output stays whole", async () => {
		run++;
		const h = await open({ maskAfterTurns: 2, maskStepTurns: 1 });
		h.script(...emits(4, "f").slice(0, 4), toolCall("new_context", { handoff: "Go on." }), ...emits(2, "g"));
		await h.prompt("work");
		const reset = h.requests.findIndex((r) => JSON.stringify(r.messages).includes("Context window w1"));
		expect(reset).toBeGreaterThan(0);
		expect(stubs(h.requests[reset - 1]).length).toBeGreaterThan(0);
		// The first two turns of the new window: its results are whole (fewer than 2 turns old).
		for (const request of h.requests.slice(reset)) expect(stubs(request)).toEqual([]);
		expect(JSON.stringify(h.requests[reset]?.messages)).toContain("Earlier windows can be searched");
	});

	it("recall searches earlier windows by text, and hostile inputs get clear answers", async () => {
		run++;
		const h = await open({ maskAfterTurns: 1, maskStepTurns: 1 });
		h.script(
			...emits(2, "h").slice(0, 2),
			toolCall("new_context", { handoff: "HANDOFF-MARK next step" }),
			toolCall("context_recall", { query: `h-${run}-1` }),
			toolCall("context_recall", { query: "HANDOFF-MARK" }),
			toolCall("context_recall", { query: ".*[(" }),
			toolCall("context_recall", { query: "q".repeat(50_000) }),
			toolCall("context_recall", { ref: "no-such-ref" }),
			toolCall("context_recall", {}),
			reply("searched"),
		);
		await h.prompt("work");
		const answers = resultEntries(h)
			.filter((e) => e.message.toolName === "context_recall")
			.map((e) => (e.message.content[0] as { text: string }).text);
		expect(answers[0]).toMatch(/^\d+ match/);
		expect(answers[0]).toContain(`output of emit {"name":"h-${run}-1"`);
		expect(answers[0]).toContain("window w0");
		expect(answers[1]).toContain("handoff");
		expect(answers[2]).toContain('No match for ".*[("');
		expect(answers[3]).toContain("at most 200");
		expect(answers[3].length).toBeLessThan(300);
		expect(answers[4]).toContain('No output or message with ref "no-such-ref"');
		expect(answers[5]).toContain("Give ref");
		for (const answer of answers) expect(answer.length).toBeLessThanOrEqual(4500);
	});

	it("masking and the checkpoint warning: the warning still comes once, last, after the masked results", async () => {
		run++;
		const h = await open({ maskAfterTurns: 1, maskStepTurns: 1 });
		h.script(...emits(3, "w"));
		await h.prompt("work");
		h.setUsage({ totalTokens: 100_000, input: 100_000 });
		h.script(...emits(2, "x"));
		await h.prompt("more");
		const warned = h.requests.filter((r) => JSON.stringify(r.messages).includes("[pi-reset] Checkpoint"));
		expect(warned.length).toBeGreaterThanOrEqual(1);
		const first = warned[0] as (typeof warned)[number];
		expect(stubs(first).length).toBeGreaterThan(0);
		expect(JSON.stringify(first.messages.at(-1))).toContain("[pi-reset] Checkpoint");
		// Given once: later requests carry the persisted warning, not a second one.
		for (const request of warned)
			expect(JSON.stringify(request.messages).split("[pi-reset] Checkpoint").length - 1).toBe(1);
	});

	// The warning is appended to the request that gives it and written into the session after the
	// model's answer to it (the boundary at the end of that turn); later requests show it where it
	// was sent (warningWhereSent), also after a reload.
	it("the checkpoint warning keeps the cached prefix: the request after it starts with the warned request", async () => {
		run++;
		const h = await open({ maskAfterTurns: 50, maskStepTurns: 50 });
		h.script(...emits(2, "k"));
		await h.prompt("work");
		h.setUsage({ totalTokens: 100_000, input: 100_000 });
		h.script(...emits(3, "l"));
		await h.prompt("more");
		const wires = h.requests.map(wire);
		const warned = wires.findIndex((w) => w.includes("[pi-reset] Checkpoint"));
		expect(warned).toBeGreaterThan(0);
		for (let i = warned + 1; i < wires.length; i++)
			expect((wires[i] as string).startsWith((wires[i - 1] as string).slice(0, -1))).toBe(true);
		await h.reload();
		h.script(reply("after reload"));
		await h.prompt("again");
		const last = wire(h.requests.at(-1));
		expect(last.startsWith((wires.at(-1) as string).slice(0, -1))).toBe(true);
	});

	it("/reset off hides context_recall with new_context and sends old output in full", async () => {
		run++;
		const h = await open({ maskAfterTurns: 1, maskStepTurns: 1 });
		h.script(...emits(3, "o"));
		await h.prompt("work");
		expect(stubs(h.requests.at(-1)).length).toBeGreaterThan(0);
		await h.prompt("/reset off");
		expect(h.session.getActiveToolNames()).not.toContain("context_recall");
		h.script(reply("plain"));
		await h.prompt("again");
		expect(stubs(h.requests.at(-1))).toEqual([]);
		await h.prompt("/reset on");
		expect(h.session.getActiveToolNames()).toContain("context_recall");
	});

	it("a reused tool call id: each stub names its own call and its ref recalls its own output", async () => {
		run++;
		const h = await open({ maskAfterTurns: 1, maskStepTurns: 1 });
		let sent: string[] = [];
		const recall: DynamicStep = (context) => {
			sent = (context.messages as ToolResultMessage[])
				.flatMap((m) => (m.role === "toolResult" ? m.content : []))
				.map((b) => (b.type === "text" ? b.text : ""))
				.filter((text) => text.startsWith("[pi-reset] Old output hidden"));
			return toolCalls(
				sent.map((stub, i) => ({ name: "context_recall", args: { ref: refOf(stub) }, id: `r${i}` })),
			);
		};
		// Some providers number calls per response, so one id comes back in every turn.
		const name = (t: number) => `u-${run}-${t}`;
		h.script(
			...Array.from({ length: 5 }, (_, t) =>
				toolCalls([{ name: "emit", args: { name: name(t), size: SIZE }, id: "call_0" }]),
			),
			recall,
			reply("recalled"),
		);
		await h.prompt("work");
		expect(sent).toHaveLength(4);
		expect(sent.map((stub) => /"name":"([^"]+)"/.exec(stub)?.[1])).toEqual([0, 1, 2, 3].map(name));
		expect(new Set(sent.map(refOf)).size).toBe(4);
		const recalled = resultEntries(h).filter((e) => e.message.toolName === "context_recall");
		expect(recalled.map((entry) => entry.message.content)).toEqual(
			[0, 1, 2, 3].map((t) => [{ type: "text", text: outputOf(name(t), SIZE) }]),
		);
	});

	it("without context_recall among the model's tools nothing is masked and no text offers recall", async () => {
		run++;
		vi.stubEnv("PI_CODING_AGENT_DIR", agentDirWith({ maskAfterTurns: 1, maskStepTurns: 1 }));
		// A tool allowlist (pi --tools) that leaves context_recall out: a stub could not be undone.
		harness = await startSession({
			extensions: [{ name: "emit", factory: emitTool }],
			tools: ["emit", "new_context"],
		});
		const h = harness;
		expect(h.session.getActiveToolNames()).not.toContain("context_recall");
		h.script(...emits(3, "t").slice(0, 3), toolCall("new_context", { handoff: "Go on." }), reply("ok"));
		await h.prompt("work");
		for (const request of h.requests) expect(stubs(request)).toEqual([]);
		expect(JSON.stringify(h.requests.at(-1)?.messages)).toContain("Context window w1");
		expect(JSON.stringify(h.requests.map((r) => r.messages))).not.toContain("context_recall");
		const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
		await h.prompt("/reset status");
		const report = log.mock.calls.map((call) => String(call[0])).join("\n");
		log.mockRestore();
		expect(report).toContain("Old tool output is sent in full: masking needs the context_recall tool");
	});

	it("old output is masked after its turns even when no tool output comes after it", async () => {
		run++;
		const h = await open({ maskAfterTurns: 1, maskStepTurns: 1 });
		// One large output, then a conversation without tools: the output still ages out.
		h.script(...emits(1, "only"));
		await h.prompt("work");
		for (const text of ["a", "b", "c"]) {
			h.script(reply(`answer ${text}`));
			await h.prompt(text);
		}
		expect(stubs(h.requests.at(-1))).toHaveLength(1);
		expect(stubs(h.requests.at(-1))[0]).toContain(`only-${run}-0`);
	});

	it("nothing the model has not seen is masked: an answer that failed does not count as seeing the output", async () => {
		run++;
		const h = await open({ maskAfterTurns: 1, maskStepTurns: 1 });
		// The only request that held the output failed: the provider never answered it.
		h.script(toolCall("emit", { name: `s-${run}`, size: SIZE }), providerError("service unavailable"));
		await h.prompt("work");
		h.script(reply("ok"));
		await h.prompt("again");
		expect(resultTexts(h.requests.at(-1))).toEqual([outputOf(`s-${run}`, SIZE)]);
		h.script(reply("ok again"));
		await h.prompt("and again");
		expect(stubs(h.requests.at(-1))).toHaveLength(1);
	});

	it("stubs are stable when a later extension's context hook edits tool results in place", async () => {
		run++;
		// Pi lets a context hook edit event.messages in place; here every tool result gets a label.
		const labeller = (pi: ExtensionAPI) => {
			pi.on("context", (event) => {
				for (const message of event.messages)
					if (message.role === "toolResult" && message.content[0]?.type === "text")
						message.content[0].text = `(label) ${message.content[0].text}`;
			});
		};
		vi.stubEnv("PI_CODING_AGENT_DIR", agentDirWith({ maskAfterTurns: 1, maskStepTurns: 1 }));
		harness = await startSession({
			extensions: [
				{ name: "emit", factory: emitTool },
				{ name: "labeller", factory: labeller },
			],
		});
		harness.script(...emits(5, "l"));
		await harness.prompt("work");
		const last = resultTexts(harness.requests.at(-1));
		for (const text of last) expect(text.startsWith("(label) (label)")).toBe(false);
		expect(last.filter((text) => text.startsWith("(label) [pi-reset] Old output hidden"))).toHaveLength(4);
	});

	it("recall searches the session, not its own earlier answers: a repeated search finds the same outputs", async () => {
		run++;
		const h = await open({ maskAfterTurns: 1, maskStepTurns: 1 });
		h.script(
			...emits(2, "k").slice(0, 2),
			toolCall("context_recall", { query: `k-${run}-0` }),
			toolCall("context_recall", { ref: "" }),
			toolCall("context_recall", { query: `k-${run}-0` }),
			reply("searched"),
		);
		await h.prompt("work");
		const answers = resultEntries(h)
			.filter((e) => e.message.toolName === "context_recall")
			.map((e) => (e.message.content[0] as { text: string }).text);
		expect(answers[0]).toMatch(/^1 match for/);
		expect(answers[2]).toBe(answers[0]);
	});

	it("large outputs are masked sooner: at the first step after the model answered them, only at steps, never an error", async () => {
		run++;
		const h = await open({ maskAfterTurns: 3, maskStepTurns: 4 });
		const id = (t: number) => `large-${run}-${t}`;
		// Even calls emit 5,000 characters (large), odd ones 2,000; call 5 fails with 5,000 characters.
		const size = (t: number) => (t % 2 === 0 || t === 5 ? 5000 : SIZE);
		h.script(
			...Array.from({ length: 16 }, (_, t) =>
				toolCalls([
					{
						name: "emit",
						args: { name: id(t), size: size(t), ...(t === 5 ? { fail: true } : {}) },
						id: id(t),
					},
				]),
			),
			reply("done large"),
		);
		await h.prompt("work");
		const wires = h.requests.map(wire);
		const breaks: number[] = [];
		for (let i = 1; i < wires.length; i++)
			if (!wires[i]?.startsWith((wires[i - 1] as string).slice(0, -1))) breaks.push(i);
		// The same steps as without large outputs: the horizon moves at 7, 11 and 15 answered turns.
		expect(breaks).toEqual([7, 11, 15]);
		const stubbed = (request: (typeof h.requests)[number] | undefined) =>
			resultTexts(request).flatMap((text, t) => (text.startsWith("[pi-reset] Old output hidden") ? [t] : []));
		// Request 7 (7 answers, horizon 4): small outputs of turns up to 4, large ones up to 6 (3 + 4 − 1).
		expect(stubbed(h.requests[7])).toEqual([0, 1, 2, 3, 4]);
		// Last request (16 answers, horizon 12): small up to turn 12, large up to 14; the error stays whole.
		expect(stubbed(h.requests.at(-1))).toEqual([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12]);
		expect(resultTexts(h.requests.at(-1))[5]).toContain(outputOf(id(5), 5000).slice(0, 200));
		// Every stubbed output was sent whole in an earlier request.
		for (const request of h.requests)
			for (const t of stubbed(request))
				expect(h.requests.some((r) => resultTexts(r)[t] === outputOf(id(t), size(t)))).toBe(true);
	});

	it("/reset status says what masking does and how to switch it off", async () => {
		run++;
		const h = await open({ maskAfterTurns: 7, maskStepTurns: 3 });
		const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
		await h.prompt("/reset status");
		const report = log.mock.calls.map((call) => String(call[0])).join("\n");
		log.mockRestore();
		expect(report).toContain("older than 7 turns");
		expect(report).toContain('"masking": false');
	});
});
