/** Refactors never produce a false "new duplicate" (issue 17, item 1; audit probes on Pi's real loop and jscpd). */
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	gitInit,
	type JscpdSession,
	otherFunction,
	sessionFixtures,
	waitFor,
	writeFiles,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();

async function start(files: Record<string, string>, git: boolean): Promise<JscpdSession> {
	const root = fixtures.dir("pi-jscpd-refactor-");
	writeFiles(root, files);
	if (git) gitInit(root);
	return fixtures.ready({ project: root, agentDir: fixtures.dir("pi-jscpd-agent-") });
}

const legacy = {
	"pkg/one/a.ts": `${duplicatedFunction("totalsA")}\n${otherFunction("countA")}`,
	"pkg/two/b.ts": duplicatedFunction("totalsB"),
	"pkg/three/c.ts": duplicatedFunction("totalsC"),
};

async function settledWithoutFindings(s: JscpdSession): Promise<void> {
	await waitFor(() => expect(s.controller.status().lastRecord).toBeDefined());
	await s.controller.settled();
	expect(customMessages(s, FINDINGS)).toEqual([]);
}

describe("refactors of old duplicates (3 copies across directories) report nothing", () => {
	it("moving a function with old copies to a new file (write + edit) reports no new duplicate", async () => {
		const s = await start(legacy, true);
		s.script(
			toolCall("write", { path: "./pkg/one/totals.ts", content: duplicatedFunction("totalsA") }),
			toolCall("write", {
				path: "pkg/one/a.ts",
				content: `export { totalsA } from "./totals";\n${otherFunction("countA")}`,
			}),
			reply("moved"),
		);
		await s.prompt("move totalsA to its own file");
		await settledWithoutFindings(s);
	});

	it("splitting a file with an old copy into two files reports no new duplicate", async () => {
		const s = await start(legacy, false);
		s.script(
			toolCall("write", { path: "pkg/one/totals.ts", content: duplicatedFunction("totalsA") }),
			toolCall("write", { path: "pkg/one/count.ts", content: otherFunction("countA") }),
			toolCall("write", {
				path: "pkg/one/a.ts",
				content: 'export * from "./totals";\nexport * from "./count";\n',
			}),
			reply("split"),
		);
		await s.prompt("split a.ts");
		await settledWithoutFindings(s);
	});

	it("renaming a file with an old copy by git mv and by bash mv reports no new duplicate", async () => {
		const s = await start(legacy, true);
		s.script(
			toolCall("bash", {
				command: "git mv pkg/two/b.ts pkg/two/renamed.ts && mv pkg/three/c.ts 'pkg/three/c moved é.ts'",
			}),
			toolCall("write", { path: "pkg/two/note.ts", content: "export const note = 1;\n" }),
			reply("renamed"),
		);
		await s.prompt("rename");
		await settledWithoutFindings(s);
	});

	it("editing inside an old block of the alphabetically first copy reports no new duplicate", async () => {
		const s = await start(legacy, true);
		s.script(
			toolCall("edit", {
				path: "pkg/one/a.ts",
				edits: [
					{
						oldText: "const shipping = subtotal > 100 ? 0 : 9.99;",
						newText: "const shipping = ship(subtotal);",
					},
				],
			}),
			reply("edited"),
		);
		await s.prompt("edit a");
		await settledWithoutFindings(s);
	});
});
