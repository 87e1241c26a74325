import { reply, type ScriptedSession, toolCall, toolCalls } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, it, vi } from "vitest";
import { startSession } from "./helpers.js";
import { agentDirWith, emitTool, stubs, wire } from "./masking-helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
	vi.unstubAllEnvs();
});
const emitsFrom = (from: number, to: number, p: string) =>
	Array.from({ length: to - from }, (_, i) =>
		toolCalls([{ name: "emit", args: { name: `${p}-${from + i}`, size: 2000 }, id: `${p}-${from + i}` }]),
	);
function breaks(h: ScriptedSession) {
	const all = h.requests.map(wire);
	const out: number[] = [];
	for (let i = 1; i < all.length; i++)
		if (!all[i]?.startsWith((all[i - 1] as string).slice(0, -1))) out.push(i);
	return out;
}
function firstDiff(a: string, b: string) {
	let i = 0;
	while (i < a.length && a[i] === b[i]) i++;
	return `${i}: ...${a.slice(Math.max(0, i - 100), i + 150)}\n   VS ...${b.slice(Math.max(0, i - 100), i + 150)}`;
}

describe("probe3", () => {
	it("idle reset small then long run", async () => {
		vi.stubEnv("PI_CODING_AGENT_DIR", agentDirWith({ maskAfterTurns: 2, maskStepTurns: 3 }));
		harness = await startSession({ extensions: [{ name: "emit", factory: emitTool }] });
		harness.script(...emitsFrom(0, 2, "a"), reply("first"));
		await harness.prompt("work");
		await harness.prompt("/reset NOTE");
		harness.script(...emitsFrom(2, 12, "a"), reply("done"));
		await harness.prompt("go on");
		const b = breaks(harness);
		const all = harness.requests.map(wire);
		console.log("breaks", b, "n", all.length);
		for (const i of b) console.log(i, firstDiff(all[i - 1] as string, all[i] as string));
	});
	it("busy reset mid-run then continue", async () => {
		vi.stubEnv("PI_CODING_AGENT_DIR", agentDirWith({ maskAfterTurns: 2, maskStepTurns: 3 }));
		harness = await startSession({ extensions: [{ name: "emit", factory: emitTool }] });
		harness.script(
			...emitsFrom(0, 4, "b"),
			toolCall("new_context", { handoff: "H" }),
			...emitsFrom(4, 14, "b"),
			reply("done"),
		);
		await harness.prompt("work");
		const b = breaks(harness);
		const all = harness.requests.map(wire);
		console.log("breaks", b, "n", all.length);
		for (const i of b) console.log(i, firstDiff(all[i - 1] as string, all[i] as string));
	});
	it("warning mid-run", async () => {
		vi.stubEnv("PI_CODING_AGENT_DIR", agentDirWith({ maskAfterTurns: 2, maskStepTurns: 3 }));
		harness = await startSession({ extensions: [{ name: "emit", factory: emitTool }] });
		harness.script(...emitsFrom(0, 3, "c"), reply("x"));
		await harness.prompt("work");
		harness.setUsage({ totalTokens: 100_000, input: 100_000 });
		harness.script(...emitsFrom(3, 12, "c"), reply("done"));
		await harness.prompt("more");
		const b = breaks(harness);
		const all = harness.requests.map(wire);
		console.log("breaks", b, "n", all.length);
		for (const i of b) console.log(i, firstDiff(all[i - 1] as string, all[i] as string));
		for (const i of [5, 6, 7])
			console.log(
				i,
				harness.requests[i]?.messages
					.map((m) => `${m.role}:${JSON.stringify(m.content).slice(0, 60)}`)
					.join("\n  "),
			);
		console.log(
			harness.session.sessionManager
				.getBranch()
				.map(
					(e) =>
						e.type +
						(e.type === "message"
							? `:${e.message.role}`
							: e.type === "custom_message"
								? `:${e.customType}`
								: ""),
				)
				.join(" "),
		);
	});
});
