/**
 * Status honesty outside git (issue 17, item 2, audit): a check that could not see a change never
 * says "clean" — files hidden by the default ignores, files written by tools of other extensions,
 * and a bash command after the last check.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { Type } from "typebox";
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

async function start(
	files: Record<string, string>,
	extra: ExtensionFactory[] = [],
	git = false,
	trusted?: boolean,
): Promise<JscpdSession> {
	const root = tempDir("pi-jscpd-honest-");
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
	const s = await jscpdSession({
		project: root,
		agentDir,
		extra,
		...(trusted === undefined ? {} : { trusted }),
	});
	h = s;
	await waitFor(() => expect(hasBaseline(s)).toBe(true));
	await s.controller.settled();
	return s;
}

/** Another extension's tool that writes a file (as apply_patch-like tools do). */
const patchTool: ExtensionFactory = (pi) => {
	pi.registerTool({
		name: "apply_patch",
		label: "apply_patch",
		description: "writes a file",
		parameters: Type.Object({ path: Type.String(), content: Type.String() }),
		async execute(_id, params, _signal, _onUpdate, ctx) {
			writeFileSync(join(ctx.cwd, params.path), params.content);
			return { content: [{ type: "text", text: "patched" }], details: {} };
		},
	});
};

describe("outside git, a check that could not see a change is never clean", () => {
	it("a file the session wrote inside a default-ignored folder (src/out) makes the check incomplete, naming it", async () => {
		const s = await start({ "src/a.ts": duplicatedFunction("computeTotals") });
		s.script(
			toolCall("write", { path: "src/out/copy.ts", content: duplicatedFunction("computeCopy") }),
			reply("wrote the copy"),
		);
		await s.prompt("write src/out/copy.ts");
		await waitFor(() => expect(s.controller.status().lastRecord).toBeDefined());
		await s.controller.settled();
		expect(customMessages(s, FINDINGS)).toEqual([]);
		expect(s.controller.status().lastOutcome?.kind).toBe("incomplete");
		expect(s.controller.status().lastOutcome?.text).toContain("src/out/copy.ts");
	});

	it("in the default trust state inside git, the incomplete check's words are true: no 'outside git', no advice to set a .jscpd.json it does not read", async () => {
		const s = await start({ "src/a.ts": duplicatedFunction("computeTotals") }, [], true, false);
		s.script(
			toolCall("write", { path: "dist/copy.ts", content: duplicatedFunction("computeCopy") }),
			reply("wrote the copy"),
		);
		await s.prompt("write dist/copy.ts");
		await waitFor(() => expect(s.controller.status().lastRecord).toBeDefined());
		await s.controller.settled();
		const text = s.controller.status().lastOutcome?.text ?? "";
		expect(s.controller.status().lastOutcome?.kind).toBe("incomplete");
		expect(text).toContain("dist/copy.ts");
		expect(text).not.toContain("outside git");
		expect(text).not.toContain('set "ignore" in .jscpd.json');
		expect(text).toContain("/trust");
	});

	it("a file written by another extension's tool makes a clean check incomplete", async () => {
		const s = await start({ "src/a.ts": duplicatedFunction("computeTotals") }, [patchTool]);
		s.script(
			toolCall("apply_patch", { path: "src/copy.ts", content: duplicatedFunction("computeCopy") }),
			toolCall("write", { path: "src/other.ts", content: otherFunction("countWords") }),
			reply("patched"),
		);
		await s.prompt("patch and write");
		await waitFor(() => expect(s.controller.status().lastRecord).toBeDefined());
		await s.controller.settled();
		expect(s.controller.status().lastOutcome?.kind).not.toBe("clean");
	});

	it("a bash command after a clean check leaves no stale clean status", async () => {
		const s = await start({ "src/a.ts": duplicatedFunction("computeTotals") });
		s.script(
			toolCall("write", { path: "src/other.ts", content: otherFunction("countWords") }),
			reply("wrote"),
		);
		await s.prompt("write other.ts");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		s.script(
			toolCall("bash", { command: "sed s/computeTotals/computeCopy/ src/a.ts > src/copy.ts" }),
			reply("copied"),
		);
		await s.prompt("copy with bash");
		await s.controller.settled();
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).not.toBe("clean"));
	});
});

describe("inside git, a check that could not see a change is never clean", () => {
	it("a file the session wrote in a .gitignore'd folder (jscpd honours .gitignore) makes the check incomplete, naming it", async () => {
		const s = await start(
			{ "src/a.ts": duplicatedFunction("computeTotals"), ".gitignore": "generated/\n" },
			[],
			true,
		);
		expect(s.controller.status().externalDetection).toBe("files+git");
		s.script(
			toolCall("write", { path: "generated/copy.ts", content: duplicatedFunction("computeCopy") }),
			reply("wrote the copy"),
		);
		await s.prompt("write generated/copy.ts");
		await waitFor(() => expect(s.controller.status().lastRecord).toBeDefined());
		await s.controller.settled();
		expect(customMessages(s, FINDINGS)).toEqual([]);
		expect(s.controller.status().lastOutcome?.kind).toBe("incomplete");
		expect(s.controller.status().lastOutcome?.text).toContain("generated/copy.ts");
	});
});
