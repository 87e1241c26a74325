/** Refactors never produce a false "new duplicate" (issue 17, item 1; audit probes on Pi's real loop and jscpd). */
import { execFileSync } from "node:child_process";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	otherFunction,
	remove,
	tempDir,
	waitFor,
	writeFiles,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
let h: JscpdSession | undefined;
const dirs: string[] = [];
afterEach(async () => {
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

async function start(files: Record<string, string>, git: boolean): Promise<JscpdSession> {
	const root = tempDir("pi-jscpd-refactor-");
	const agentDir = tempDir("pi-jscpd-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, files);
	if (git) {
		const run = (...args: string[]) =>
			execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
				cwd: root,
				stdio: "ignore",
			});
		run("init", "-q");
		run("add", ".");
		run("commit", "-qm", "init");
	}
	const s = await jscpdSession({ project: root, agentDir });
	h = s;
	await waitFor(() => expect(hasBaseline(s)).toBe(true));
	await s.controller.settled();
	return s;
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
