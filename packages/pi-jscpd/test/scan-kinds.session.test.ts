/**
 * `/jscpd scan` and `jscpd_run scan` detect the kinds the session's checks use: in a session whose
 * baseline went exact-only (a project of many alike functions), a scan is exact too, and says so.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createDialogStub, reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import { ALIKE, duplicatedFunction, loggingJscpd, sessionFixtures, writeFiles } from "./helpers.js";

// ALIKE: over the near-copy pairs the session accepts (kinds.session.test.ts).
const fixtures = sessionFixtures();

describe("scan kinds", () => {
	it("a scan in a session that went exact-only scans exact clones and says 'checked: exact'", async () => {
		const root = fixtures.dir("pi-jscpd-scan-kinds-");
		const agentDir = fixtures.dir("pi-jscpd-scan-kinds-agent-");
		writeFiles(root, {
			"src/levels.ts": ALIKE,
			"src/a.ts": duplicatedFunction("computeOrder"),
			"src/b.ts": duplicatedFunction("computeRefund"),
		});
		// The real jscpd, each run's detection arguments logged.
		const log = join(agentDir, "runs.log");
		const jscpd = loggingJscpd(agentDir, log);
		const s = await fixtures.ready({ project: root, agentDir, jscpd: { executable: jscpd } });
		expect(s.controller.status().baseline).toMatchObject({ status: "accepted", kinds: ["exact"] });
		const runs = () => readFileSync(log, "utf8").split("\n").filter(Boolean);
		expect(runs()).toEqual(["near", "exact"]);
		s.script(toolCall("jscpd_run", { command: "scan", args: ["src/a.ts", "src/b.ts"] }), reply("scanned"));
		await s.prompt("scan a and b");
		expect(runs()).toEqual(["near", "exact", "exact"]);
		const result = JSON.stringify(s.requests.at(-1)?.messages.at(-1));
		expect(result).toContain("jscpd: 1 duplicated block (2 files checked; kinds checked: exact).");
	});

	it('"kinds" without "exact" is kept but warned about once at load: verbatim copies are not reported', async () => {
		const root = fixtures.dir("pi-jscpd-scan-kinds-");
		const agentDir = fixtures.dir("pi-jscpd-scan-kinds-agent-");
		writeFiles(root, { "src/a.ts": "export const a = 1;\n" });
		writeFiles(agentDir, { "pi-lifecycle/pi-jscpd.json": JSON.stringify({ kinds: ["renamed"] }) });
		const stub = createDialogStub();
		const s = await fixtures.ready({ project: root, agentDir, ui: stub.ui });
		expect(s.controller.status().settings.kinds).toEqual(["renamed"]);
		const warnings = stub.notices
			.filter((notice) => notice.type === "warning")
			.map((notice) => notice.message);
		expect(warnings).toHaveLength(1);
		expect(warnings[0]).toContain('without "exact": verbatim copies are not reported');
		await s.reload();
		await s.controller.settled();
		expect(stub.notices.filter((notice) => notice.type === "warning")).toHaveLength(2);
	});
});
