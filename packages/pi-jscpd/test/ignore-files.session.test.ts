/**
 * Ignore files jscpd honours by itself (audit a6j): jscpd 5 walks the project with `.gitignore`
 * (inside git), `.git/info/exclude` and `.ignore` files (everywhere). A repository that is not
 * trusted must not steer the scan with them, and a changed file one of them hides must never pass as
 * a "clean" check.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	gitInit,
	otherFunction,
	sessionFixtures,
	waitFor,
	writeFiles,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();

async function writeCopy(files: Record<string, string>, options: { git?: boolean; trusted?: boolean }) {
	const root = fixtures.dir("pi-jscpd-ignores-");
	const agentDir = fixtures.dir("pi-jscpd-agent-");
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals"), ...files });
	if (options.git) gitInit(root);
	const s = await fixtures.ready({ project: root, agentDir, trusted: options.trusted });
	s.script(
		toolCall("write", { path: "generated/copy.ts", content: duplicatedFunction("computeCopy") }),
		toolCall("write", { path: "src/other.ts", content: otherFunction("countWords") }),
		reply("wrote the copy"),
	);
	await s.prompt("write generated/copy.ts");
	await waitFor(() => expect(s.controller.status().lastRecord).toBeDefined());
	await s.controller.settled();
	return s;
}

function findingsText(s: Awaited<ReturnType<typeof writeCopy>>): string {
	return JSON.stringify(customMessages(s, FINDINGS).map((m) => m.content));
}

describe("an untrusted repository's ignore files do not steer the scan", () => {
	it("an untrusted git project's .gitignore does not hide a copy the agent wrote: it is reported", async () => {
		const s = await writeCopy({ ".gitignore": "generated/\n" }, { git: true, trusted: false });
		expect(findingsText(s)).toContain("generated/copy.ts");
	});

	it("an untrusted git project's .git/info/exclude (jscpd honours it even with --no-gitignore) makes the check incomplete, naming it", async () => {
		const s = await writeCopy({ ".git/info/exclude": "generated/\n" }, { git: true, trusted: false });
		expect(s.controller.status().lastOutcome?.kind).toBe("incomplete");
		expect(s.controller.status().lastOutcome?.text).toContain("generated/copy.ts");
	});
});

describe("a check that a .ignore file kept from a changed file is never clean", () => {
	it("outside git, a changed file under a .ignore that hides it makes the check incomplete, naming it", async () => {
		const s = await writeCopy({ ".ignore": "generated/\n" }, {});
		expect(s.controller.status().lastOutcome?.kind).toBe("incomplete");
		expect(s.controller.status().lastOutcome?.text).toContain("generated/copy.ts");
	});

	it("in a trusted git project, a changed file under a .ignore that hides it makes the check incomplete", async () => {
		const s = await writeCopy({ ".ignore": "generated/\n" }, { git: true });
		expect(s.controller.status().lastOutcome?.kind).toBe("incomplete");
		expect(s.controller.status().lastOutcome?.text).toContain("generated/copy.ts");
	});

	it("in an untrusted project, a changed file under a .ignore that hides it makes the check incomplete", async () => {
		const s = await writeCopy({ "generated/.ignore": "*.ts\n" }, { git: true, trusted: false });
		expect(s.controller.status().lastOutcome?.kind).toBe("incomplete");
		expect(s.controller.status().lastOutcome?.text).toContain("generated/copy.ts");
	});
});

describe("a changed file jscpd skips for its size is never checked clean", () => {
	it("a changed file over jscpd's 1 MB size limit makes the check incomplete, naming it", async () => {
		const filler = Array.from({ length: 60_000 }, (_, i) => `// filler line ${i}`).join("\n");
		const root = fixtures.dir("pi-jscpd-large-");
		const agentDir = fixtures.dir("pi-jscpd-agent-");
		writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
		const s = await fixtures.ready({ project: root, agentDir });
		s.script(
			toolCall("write", { path: "src/large.ts", content: `${duplicatedFunction("computeCopy")}${filler}\n` }),
			reply("wrote it"),
		);
		await s.prompt("write src/large.ts");
		await waitFor(() => expect(s.controller.status().lastRecord).toBeDefined());
		await s.controller.settled();
		expect(s.controller.status().lastOutcome?.kind).toBe("incomplete");
		expect(s.controller.status().lastOutcome?.text).toContain("src/large.ts");
	});

	for (const where of [".git/info", "src/.ignore"])
		it(`untrusted: an ignore file linked outside the project (${where}) is not followed: its patterns do not hide a bash copy, and status names it`, async () => {
			const outside = fixtures.dir("pi-jscpd-outside-");
			mkdirSync(join(outside, "info"), { recursive: true });
			writeFileSync(join(outside, "info/exclude"), "src/e.ts\n");
			const root = fixtures.dir("pi-jscpd-ignores-");
			const agentDir = fixtures.dir("pi-jscpd-agent-");
			writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals"), "src/w.ts": otherFunction("w") });
			gitInit(root);
			if (where === ".git/info") {
				rmSync(join(root, ".git/info"), { recursive: true, force: true });
				symlinkSync(join(outside, "info"), join(root, ".git/info"));
			} else symlinkSync(join(outside, "info/exclude"), join(root, "src/.ignore"));
			const s = await fixtures.ready({ project: root, agentDir, trusted: false });
			s.script(toolCall("bash", { command: "cp src/a.ts src/e.ts" }), reply("copied"));
			await s.prompt("copy a.ts");
			await waitFor(() => expect(s.controller.status().lastOutcome).toBeDefined());
			await s.controller.settled();
			expect(s.controller.status().lastOutcome?.kind).toBe("findings");
			expect(findingsText(s)).toContain("src/e.ts");
			expect(JSON.stringify(s.controller.status().skippedIgnoreFiles)).toContain("outside the project");
		});
});

describe("a .gitignore hides a command's change only where jscpd honours it (inside git)", () => {
	async function bashCopy(git: boolean) {
		const root = fixtures.dir("pi-jscpd-gitignore-");
		writeFiles(root, {
			"src/a.ts": duplicatedFunction("computeTotals"),
			"src/w.ts": otherFunction("countWords"),
			".gitignore": "gen/\n",
		});
		if (git) gitInit(root);
		const s = await fixtures.ready({
			project: root,
			agentDir: fixtures.dir("pi-jscpd-agent-"),
			trusted: true,
		});
		s.script(
			toolCall("bash", { command: "mkdir gen && cp src/a.ts gen/copy.ts" }),
			toolCall("write", { path: "src/n.ts", content: "export const n = 1;\n" }),
			reply("copied"),
		);
		await s.prompt("copy into gen");
		await waitFor(() => expect(s.controller.status().lastOutcome).toBeDefined());
		await s.controller.settled();
		return s;
	}

	it("a trusted project outside git: a .gitignore (which jscpd does not honour there) does not hide a bash copy: it is reported", async () => {
		const s = await bashCopy(false);
		expect(customMessages(s, FINDINGS)).toHaveLength(1);
		expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.content)).toContain(
			"gen/copy.ts:1-22 ≈ src/a.ts:1-22",
		);
	}, 120_000);

	it("a trusted git repository: the .gitignore'd bash copy is not the project's code (jscpd skips it too): the check is clean", async () => {
		const s = await bashCopy(true);
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
		expect(s.controller.status().lastOutcome?.kind).toBe("clean");
	}, 120_000);
});
