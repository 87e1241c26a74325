/**
 * `/reload` or `/tree` while the automatic check runs (audit a6j): the check is killed, and the
 * session's unchecked changes must not be lost with it. The next settle checks them, so a copy
 * written just before is still reported.
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	type JscpdSession,
	jscpdSession,
	realJscpd,
	sessionFixtures,
	waitFor,
	writeFiles,
	writeScript,
} from "./helpers.js";

const fixtures = sessionFixtures();

/**
 * A session whose automatic check of a copy the model just made (src/b.ts) is running, held by
 * the gate; `before` is the leaf before the write. `bash` copies with `cp` (found by comparing
 * walks of the project) in an untrusted project, the CLI's default, instead of the write tool.
 */
async function checkRunning(prefix: string, options: { bash?: boolean; session?: "file" } = {}) {
	const root = fixtures.dir(prefix);
	const agentDir = fixtures.dir("pi-jscpd-agent-");
	const gate = fixtures.dir("pi-jscpd-gate-");
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
	const executable = heldJscpd(gate);
	const s = await fixtures.ready({
		project: root,
		agentDir,
		jscpd: { executable },
		...(options.bash ? { trusted: false } : {}),
		...(options.session ? { session: options.session } : {}),
	});
	const before = s.session.sessionManager.getLeafId();
	writeFileSync(join(gate, "hold"), "");
	s.script(
		options.bash
			? toolCall("bash", { command: "cp src/a.ts src/b.ts" })
			: toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
		reply("done"),
	);
	await s.prompt("write");
	await waitFor(() => expect(existsSync(join(gate, "started"))).toBe(true));
	return { s, before, root, agentDir, executable };
}

describe("reload in the middle of an automatic check", () => {
	it("a copy whose check a /reload killed is reported at the next settle", async () => {
		const { s } = await checkRunning("pi-jscpd-reload-mid-");
		await s.reload();
		await s.controller.settled();
		expect(customMessages(s, "pi-jscpd/findings")).toHaveLength(0);
		s.script(reply("anything else?"));
		await s.prompt("anything else?");
		await waitFor(() => expect(customMessages(s, "pi-jscpd/findings")).toHaveLength(1));
		expect(JSON.stringify(customMessages(s, "pi-jscpd/findings")[0]?.content)).toContain("src/b.ts");
	});

	it("a bash copy whose check a /reload killed is reported at the next settle (untrusted project)", async () => {
		const { s } = await checkRunning("pi-jscpd-reload-bash-", { bash: true });
		await s.reload();
		await s.controller.settled();
		expect(s.controller.status().changedFiles).toBe(1);
		s.script(reply("anything else?"));
		await s.prompt("anything else?");
		await waitFor(() => expect(customMessages(s, "pi-jscpd/findings")).toHaveLength(1));
		expect(JSON.stringify(customMessages(s, "pi-jscpd/findings")[0]?.content)).toContain("src/b.ts");
		// Saved once, when found: later settles add no entry.
		s.script(reply("still here"));
		await s.prompt("more");
		await s.controller.settled();
		const saved = s.session.sessionManager
			.getBranch()
			.filter((entry) => entry.type === "custom" && entry.customType === "pi-jscpd/outside-changes");
		expect(saved.map((entry) => (entry as { data?: unknown }).data)).toEqual([
			{ version: 1, paths: ["src/b.ts"] },
		]);
	});

	it("a bash copy whose check ended with the process is reported when the session is resumed", async () => {
		const first = await checkRunning("pi-jscpd-resume-bash-", { bash: true, session: "file" });
		const sessionFile = first.s.sessionFile as string;
		await first.s.dispose({ keepFiles: true });
		let s: JscpdSession | undefined;
		try {
			const resumed = await jscpdSession({
				project: first.root,
				agentDir: first.agentDir,
				jscpd: { executable: first.executable },
				trusted: false,
				session: { open: sessionFile },
			});
			s = resumed;
			await resumed.controller.settled();
			expect(resumed.controller.status().changedFiles).toBe(1);
			resumed.script(reply("anything else?"));
			await resumed.prompt("anything else?");
			await waitFor(() => expect(customMessages(resumed, "pi-jscpd/findings")).toHaveLength(1));
			expect(JSON.stringify(customMessages(resumed, "pi-jscpd/findings")[0]?.content)).toContain("src/b.ts");
		} finally {
			await s?.dispose();
			rmSync(join(sessionFile, "..", ".."), { recursive: true, force: true });
		}
	});

	it("a copy whose check /tree navigation killed is reported at the next settle once its branch is back", async () => {
		const { s, before } = await checkRunning("pi-jscpd-tree-mid-");
		const written = s.session.sessionManager.getLeafId();
		await s.session.navigateTree(before ?? "", { summarize: false });
		await s.controller.settled();
		await s.session.navigateTree(written ?? "", { summarize: false });
		expect(s.controller.status().changedFiles).toBe(1);
		s.script(reply("anything else?"));
		await s.prompt("anything else?");
		await waitFor(() => expect(customMessages(s, "pi-jscpd/findings")).toHaveLength(1));
	});
});

/** The real jscpd, held (sleeping) for one scan while `<gate>/hold` exists. */
function heldJscpd(gate: string): string {
	return writeScript(
		join(gate, "bin", "jscpd"),
		`if [ "$1" = "--version" ]; then exec '${realJscpd()}' --version; fi
if [ -f '${gate}/hold' ]; then rm -f '${gate}/hold'; touch '${gate}/started'; sleep 600; fi
exec '${realJscpd()}' "$@"`,
	);
}
