/**
 * Coexistence (audit a6j): another extension may register a tool under a built-in name (Pi lets it
 * replace `write` or `edit` without a warning). A replacement whose input pi-jscpd cannot read as one
 * `path` wrote files pi-jscpd cannot name from its input: like a command's (bash), they are found by
 * the listing of the project's files (issue 31), so the copy is reported, in or outside git.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { duplicatedFunction, jscpdToolResults, sessionFixtures, writeFiles } from "./helpers.js";

const fixtures = sessionFixtures();

/** A `write` replacement that takes `file_path` (as some agents' tools do). */
const writeByFilePath: ExtensionFactory = (pi) => {
	pi.registerTool({
		name: "write",
		label: "write",
		description: "writes a file",
		parameters: Type.Object({ file_path: Type.String(), content: Type.String() }),
		async execute(_id, params, _signal, _onUpdate, ctx) {
			writeFileSync(join(ctx.cwd, params.file_path), params.content);
			return { content: [{ type: "text", text: "written" }], details: {} };
		},
	});
};

/** An `edit` replacement that writes several files in one call. */
const multiFileEdit: ExtensionFactory = (pi) => {
	pi.registerTool({
		name: "edit",
		label: "edit",
		description: "writes files",
		parameters: Type.Object({
			files: Type.Array(Type.Object({ path: Type.String(), content: Type.String() })),
		}),
		async execute(_id, params, _signal, _onUpdate, ctx) {
			for (const file of params.files) writeFileSync(join(ctx.cwd, file.path), file.content);
			return { content: [{ type: "text", text: "edited" }], details: {} };
		},
	});
};

async function run(extension: ExtensionFactory, call: ReturnType<typeof toolCall>): Promise<string> {
	const root = fixtures.dir("pi-jscpd-overridden-");
	const agentDir = fixtures.dir("pi-jscpd-agent-");
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
	const s = await fixtures.ready({ project: root, agentDir, extra: [extension] });
	s.script(call, toolCall("jscpd_run", { command: "changed" }), reply("done"));
	await s.prompt("copy it, then check");
	await s.controller.settled();
	expect(s.controller.state.mutations.changed.has("src/copy.ts")).toBe(true);
	return jscpdToolResults(s);
}

describe("a built-in tool name replaced by another extension never yields a false clean", () => {
	it("outside git, a `write` replacement without a `path` input is seen like a command: `changed` reports the copy", async () => {
		const text = await run(
			writeByFilePath,
			toolCall("write", { file_path: "src/copy.ts", content: duplicatedFunction("computeCopy") }),
		);
		expect(text).toContain("src/copy.ts");
		expect(text).not.toContain("incomplete");
	});

	it("outside git, an `edit` replacement that writes several files is seen like a command: `changed` reports the copy", async () => {
		const text = await run(
			multiFileEdit,
			toolCall("edit", { files: [{ path: "src/copy.ts", content: duplicatedFunction("computeCopy") }] }),
		);
		expect(text).toContain("src/copy.ts");
		expect(text).not.toContain("incomplete");
	});
});
