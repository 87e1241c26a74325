/**
 * A bash change made while the baseline is captured (git): audit repro (issue 17, items 2 and "first
 * write"), and issue 31: a file a command creates then is not part of the baseline (reported), a file
 * it changes that existed before is named (incomplete), never clean.
 */
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	realJscpd,
	remove,
	tempDir,
	waitFor,
	writeFiles,
	writeScript,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
let h: JscpdSession | undefined;
const dirs: string[] = [];
afterEach(async () => {
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

/** A git project and a session whose baseline scan is held until `release`; `command` runs meanwhile. */
async function duringCapture(command: string): Promise<JscpdSession> {
	const root = tempDir("pi-jscpd-window-");
	const agentDir = tempDir("pi-jscpd-agent-");
	const gate = tempDir("pi-jscpd-gate-");
	dirs.push(root, agentDir, gate);
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals"), "src/w.ts": "export const w = 1;\n" });
	const git = (...args: string[]) =>
		execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
			cwd: root,
			stdio: "ignore",
		});
	git("init", "-q");
	git("add", ".");
	git("commit", "-qm", "init");
	writeFileSync(join(gate, "hold"), "");
	const jscpd = writeScript(
		join(gate, "bin", "jscpd"),
		`REAL='${realJscpd()}'
if [ "$1" = "--version" ]; then exec "$REAL" --version; fi
if [ -f '${gate}/hold' ]; then
	rm -f '${gate}/hold'; touch '${gate}/started'
	while [ ! -f '${gate}/release' ]; do sleep 0.05; done
fi
exec "$REAL" "$@"`,
	);
	const s = await jscpdSession({ project: root, agentDir, jscpd: { executable: jscpd } });
	h = s;
	await waitFor(() => expect(existsSync(join(gate, "started"))).toBe(true));
	s.script(toolCall("bash", { command }), reply("done"));
	await s.prompt("run it");
	writeFileSync(join(gate, "release"), "");
	await waitFor(() => expect(hasBaseline(s)).toBe(true));
	await s.controller.settled();
	s.script(reply("nothing to do"));
	await s.prompt("anything else?");
	await s.controller.settled();
	await waitFor(() => expect(s.controller.status().lastRecord).toBeDefined());
	return s;
}

describe("changes made while the baseline is being captured", () => {
	it("inside git, a duplicate created by bash while the baseline scan runs is reported (the new file is not baseline)", async () => {
		const s = await duringCapture("sed s/computeTotals/computeCopy/ src/a.ts > src/copy.ts");
		expect(s.controller.status().lastOutcome?.kind).toBe("findings");
		expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.details)).toContain("src/copy.ts");
	});

	it("inside git, a duplicate appended by bash to an existing file while the baseline scan runs is never reported clean: the check says incomplete and names it", async () => {
		const s = await duringCapture("sed s/computeTotals/computeCopy/ src/a.ts >> src/w.ts");
		expect(s.controller.status().lastOutcome?.kind).not.toBe("clean");
		expect(s.controller.status().lastOutcome?.kind).toBe("incomplete");
		expect(s.controller.status().lastOutcome?.text).toContain("src/w.ts");
		expect(customMessages(s, FINDINGS)).toEqual([]);
	});
});
