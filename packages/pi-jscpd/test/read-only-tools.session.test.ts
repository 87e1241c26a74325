/**
 * Which tools count as read-only (issue 19): no sibling package's tool names are hard-coded; a tool
 * opts in with `annotations: { readOnlyHint: true }`, and every other tool is treated like bash: it
 * waits for the session's first file listing, and what it changed is found by the next listing
 * (issue 31), so a check after it is clean only when it changed nothing.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { readOnlyTools } from "../src/adapters/read-only-tools.js";
import { duplicatedFunction, otherFunction, sessionFixtures, waitFor, writeFiles } from "./helpers.js";

const fixtures = sessionFixtures();

/** Another extension's tool, annotated read-only or not; `copies` writes a copy of src/a.ts. */
function lookupTool(name: string, readOnly: boolean, copies = false): ExtensionFactory {
	return (pi) => {
		pi.registerTool({
			name,
			label: name,
			description: "looks something up",
			parameters: Type.Object({}),
			...(readOnly ? { annotations: { readOnlyHint: true } } : {}),
			async execute(_id, _params, _signal, _onUpdate, ctx) {
				if (copies) writeFileSync(join(ctx.cwd, "src/copy.ts"), duplicatedFunction("computeCopy"));
				return { content: [{ type: "text", text: "looked up" }], details: {} };
			},
		});
	};
}

async function afterTool(name: string, readOnly: boolean, copies = false) {
	const root = fixtures.dir("pi-jscpd-readonly-");
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
	const s = await fixtures.ready({
		project: root,
		agentDir: fixtures.dir("pi-jscpd-agent-"),
		extra: [lookupTool(name, readOnly, copies)],
	});
	s.script(
		toolCall(name, {}),
		toolCall("write", { path: "src/other.ts", content: otherFunction("countWords") }),
		reply("done"),
	);
	await s.prompt("look up and write");
	await waitFor(() => expect(s.controller.status().lastRecord).toBeDefined());
	await s.controller.settled();
	return s.controller.status().lastOutcome?.kind;
}

describe("read-only tools (outside git)", () => {
	it("a tool registered with readOnlyHint keeps a clean check clean", async () => {
		expect(await afterTool("lookup_docs", true)).toBe("clean");
	});

	it("a tool without the annotation is treated like bash: a copy it writes is found and reported", async () => {
		expect(await afterTool("lookup_docs", false, true)).toBe("findings");
		expect(await afterTool("lookup_docs", false)).toBe("clean");
	});

	it("an extension's tool named like a read-only built-in is treated like bash unless it says it is read-only", async () => {
		expect(await afterTool("read", false, true)).toBe("findings");
		expect(await afterTool("grep", true)).toBe("clean");
	});

	it("Pi's own read tool keeps a clean check clean", async () => {
		const root = fixtures.dir("pi-jscpd-readonly-");
		writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
		const s = await fixtures.ready({ project: root, agentDir: fixtures.dir("pi-jscpd-agent-") });
		s.script(
			toolCall("read", { path: "src/a.ts" }),
			toolCall("write", { path: "src/other.ts", content: otherFunction("countWords") }),
			reply("done"),
		);
		await s.prompt("read and write");
		await waitFor(() => expect(s.controller.status().lastRecord).toBeDefined());
		await s.controller.settled();
		expect(s.controller.status().lastOutcome?.kind).toBe("clean");
	});

	it("the lookup knows Pi's read-only built-ins and its own tool, and treats unknown tools conservatively", () => {
		const builtin = { source: "builtin" };
		const tools = [
			...["read", "grep", "find", "ls"].map((name) => ({ name, sourceInfo: builtin })),
			{ name: "goal_complete", annotations: { readOnlyHint: true } },
			{ name: "apply_patch", annotations: { readOnlyHint: false } },
		];
		let calls = 0;
		const readOnly = readOnlyTools(
			{
				getAllTools: () => {
					calls++;
					return tools as never;
				},
			},
			"jscpd_run",
		);
		expect(readOnly("jscpd_run")).toBe(true);
		expect(calls).toBe(0);
		expect(["read", "grep", "find", "ls"].map(readOnly)).toEqual([true, true, true, true]);
		expect(calls).toBe(1);
		expect(readOnly("goal_complete")).toBe(true);
		expect(readOnly("apply_patch")).toBe(false);
		expect(readOnly("bash")).toBe(false);
		expect(readOnly("not_registered")).toBe(false);
		// Known names are answered without asking Pi again.
		const before = calls;
		expect(readOnly("goal_complete")).toBe(true);
		expect(calls).toBe(before);
	});
});
