/**
 * No "clean" when a check could not see every change (issue 17, item 2): committed changes, git
 * output over the bound, paths spelled as Pi's tools accept them, commands outside git.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { projectPathOf } from "../src/adapters/paths.js";
import { FOOTER, footerText } from "../src/core/presentation.js";
import {
	customMessages,
	duplicatedFunction,
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	remove,
	tempDir,
	waitFor,
	writeFiles,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
let h: JscpdSession | undefined;
const dirs: string[] = [];
const home = process.env.HOME;
afterEach(async () => {
	await h?.dispose();
	h = undefined;
	process.env.HOME = home;
	remove(...dirs.splice(0));
});

function project(git: boolean) {
	const root = tempDir("pi-jscpd-visible-");
	const agentDir = tempDir("pi-jscpd-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
	const run = (...args: string[]) =>
		execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
			cwd: root,
			stdio: "ignore",
		});
	if (git) {
		run("init", "-q");
		run("add", ".");
		run("commit", "-qm", "init");
	}
	return { root, agentDir };
}

async function start(root: string, agentDir: string): Promise<JscpdSession> {
	const s = await jscpdSession({ project: root, agentDir });
	h = s;
	await waitFor(() => expect(hasBaseline(s)).toBe(true));
	await s.controller.settled();
	return s;
}

describe("a check sees committed changes and says when it cannot see everything", () => {
	it("a duplicate created and committed by the same bash command is reported (compared with the session-start commit)", async () => {
		const { root, agentDir } = project(true);
		const s = await start(root, agentDir);
		s.script(
			toolCall("bash", {
				command:
					"sed s/computeTotals/computeCopy/ src/a.ts > src/copy.ts && git add src/copy.ts && git -c user.email=t@t -c user.name=t commit -qm copy",
			}),
			reply("copied and committed"),
		);
		await s.prompt("copy and commit");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.details)).toContain("src/copy.ts");
	});

	it("outside git, a copy made by a bash command is reported, and the footer counts it", async () => {
		const { root, agentDir } = project(false);
		const s = await start(root, agentDir);
		s.script(
			toolCall("bash", { command: "sed s/computeTotals/computeCopy/ src/a.ts > src/copy.ts" }),
			toolCall("write", { path: "src/other.ts", content: "export const other = 1;\n" }),
			reply("done"),
		);
		await s.prompt("copy with bash, write other.ts");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.details)).toContain("src/copy.ts");
		expect(
			footerText({
				enabled: true,
				capability: "available",
				baseline: "accepted",
				checking: false,
				outcome: s.controller.status().lastOutcome,
			}),
		).toBe(FOOTER.findings(1));
	});

	it("paths spelled as Pi's tools accept them (file://, ~, Unicode spaces) are recorded under the file Pi wrote (no git)", async () => {
		const { root, agentDir } = project(false);
		process.env.HOME = dirname(root);
		const name = root.slice(dirname(root).length + 1);
		const s = await start(root, agentDir);
		mkdirSync(join(root, "src"), { recursive: true });
		s.script(
			toolCall("write", {
				path: pathToFileURL(join(root, "src/by-url.ts")).href,
				content: duplicatedFunction("computeByUrl"),
			}),
			toolCall("write", { path: `~/${name}/src/by-home.ts`, content: "export const home = 1;\n" }),
			toolCall("write", { path: "src/with\u00a0space.ts", content: "export const spaced = 1;\n" }),
			reply("wrote three files"),
		);
		await s.prompt("write files");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.details)).toContain("src/by-url.ts");
		expect([...s.controller.state.mutations.changed].sort()).toEqual([
			"src/by-home.ts",
			"src/by-url.ts",
			"src/with space.ts",
		]);
		expect(projectPathOf(root, root, `@src/a.ts`)).toBe("src/a.ts");
	});
});
