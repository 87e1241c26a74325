import { isContextOverflow } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import {
	createScriptedSession,
	lengthStop,
	messageText,
	overflowError,
	providerError,
	RECORDED_EVENTS,
	reply,
	toolCalls,
} from "../src/testing/index.js";

describe("scripted steps and readers of the testing entry point", () => {
	it("toolCalls runs several tools from one answer; messageText reads what the model saw", async () => {
		const seen: string[] = [];
		const harness = await createScriptedSession({
			extensions: [
				(pi) =>
					pi.registerTool({
						name: "echo",
						label: "echo",
						description: "echo",
						parameters: Type.Object({ text: Type.String() }),
						execute: async (_id, params) => {
							seen.push(params.text);
							return { content: [{ type: "text", text: params.text }], details: undefined };
						},
					}),
			],
			responses: [
				toolCalls([
					{ name: "echo", args: { text: "one" } },
					{ name: "echo", args: { text: "two" } },
				]),
				reply("done"),
			],
		});
		await harness.prompt("hello there");
		expect(seen).toEqual(["one", "two"]);
		expect(harness.count("tool_execution_end")).toBe(2);
		const first = harness.requests[0]?.messages.find((message) => message.role === "user");
		expect(first && messageText(first)).toBe("hello there");
	});

	it("providerError, overflowError and lengthStop end an answer as Pi sees those failures", () => {
		expect(providerError("boom")).toMatchObject({ stopReason: "error", errorMessage: "boom" });
		expect(isContextOverflow(overflowError(), 4000)).toBe(true);
		expect(lengthStop()).toMatchObject({ stopReason: "length" });
	});

	it("RECORDED_EVENTS lists the lifecycle events the recorder subscribes to", () => {
		for (const type of ["agent_start", "agent_end", "agent_before_settle", "agent_settled", "turn_end"]) {
			expect(RECORDED_EVENTS).toContain(type);
		}
	});
});
