/**
 * Change detection that needs neither git nor trust (issue 31): the project's files are walked with
 * the baseline and compared with a fresh walk at each settle. Tests run in the CLI's default trust
 * state (a plain directory Pi trusts implicitly counts as untrusted: `trusted: false`), in and
 * outside git, plus a trusted project outside git.
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDialogStub, reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import { statusText } from "../src/core/status-text.js";
import {
	customMessages,
	duplicatedFunction,
	gitInit,
	otherFunction,
	realJscpd,
	sessionFixtures,
	waitFor,
	writeScript,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();

function findingsText(s: { session: unknown }): string {
	return JSON.stringify(customMessages(s as never, FINDINGS).map((m) => m.details));
}

async function project(options: { git: boolean; trusted: boolean }) {
	const { root, agentDir } = fixtures.sandbox({
		"src/a.ts": duplicatedFunction("computeTotals"),
		"src/w.ts": otherFunction("countWords"),
	});
	if (options.git) gitInit(root);
	const s = await fixtures.ready({ project: root, agentDir, trusted: options.trusted });
	return { s, root };
}

describe("a command's changes are seen without git and without trust", () => {
	for (const git of [true, false]) {
		const where = git ? "an untrusted git project" : "an untrusted plain directory";
		it(`${where}: a copy made with cp through bash is reported, and status counts the file`, async () => {
			const { s } = await project({ git, trusted: false });
			expect(s.controller.status().externalDetection).toBe("files");
			s.script(toolCall("bash", { command: "cp src/a.ts src/e.ts" }), reply("copied"));
			await s.prompt("copy a.ts");
			await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
			expect(findingsText(s)).toContain("src/e.ts");
			expect(s.controller.status().changedFiles).toBe(1);
			expect(s.controller.changeSet()).toMatchObject({ mode: "files" });
			expect([...s.controller.changeSet().paths]).toEqual(["src/e.ts"]);
			expect(statusText(s.controller.status())).toContain("1 file changed this session");
		});

		it(`${where}: a renamed copy appended with sed >> to a file the session never touched is reported`, async () => {
			const { s } = await project({ git, trusted: false });
			s.script(
				toolCall("bash", { command: "sed s/computeTotals/computeWords/ src/a.ts >> src/w.ts" }),
				reply("appended"),
			);
			await s.prompt("append a variant to w.ts");
			await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
			expect(findingsText(s)).toContain("src/w.ts");
		});
	}

	it("a trusted project outside git: a file created by bash is seen", async () => {
		const { s } = await project({ git: false, trusted: true });
		s.script(
			toolCall("bash", { command: "sed s/computeTotals/computeCopy/ src/a.ts > src/copy.ts" }),
			reply("copied"),
		);
		await s.prompt("copy with bash");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(findingsText(s)).toContain("src/copy.ts");
	});

	it("an edit by another process (an editor) to an untouched file is seen at the next settle", async () => {
		const { s, root } = await project({ git: false, trusted: false });
		writeFileSync(
			join(root, "src/w.ts"),
			`${otherFunction("countWords")}\n${duplicatedFunction("computeEdited")}`,
		);
		s.script(reply("nothing to do"));
		await s.prompt("hello");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(findingsText(s)).toContain("src/w.ts");
	});
});

describe("a check never says clean for a change made while the baseline was captured", () => {
	for (const git of [false, true]) {
		it(`untrusted${git ? " git" : ""}: a bash copy made while the baseline scan runs is reported after it, never clean`, async () => {
			const { root, agentDir } = fixtures.sandbox({ "src/a.ts": duplicatedFunction("computeTotals") });
			if (git) gitInit(root);
			const gate = fixtures.dir("pi-jscpd-gate-");
			writeFileSync(join(gate, "hold"), "");
			// The baseline scan waits until the test removes `hold` (a slow baseline, deterministically).
			const executable = writeScript(
				join(gate, "bin", "jscpd"),
				`if [ "$1" = "--version" ]; then exec '${realJscpd()}' --version; fi
while [ -f '${gate}/hold' ]; do touch '${gate}/waiting'; sleep 0.05; done
exec '${realJscpd()}' "$@"`,
			);
			const ui = createDialogStub();
			const s = await fixtures.open({
				project: root,
				agentDir,
				trusted: false,
				ui: ui.ui,
				jscpd: { executable },
			});
			await waitFor(() => expect(existsSync(join(gate, "waiting"))).toBe(true));
			const footers: string[] = [];
			const timer = setInterval(() => footers.push(ui.statuses.get("pi-jscpd") ?? ""), 5);
			try {
				s.script(toolCall("bash", { command: "cp src/a.ts src/e.ts" }), reply("copied"));
				await s.prompt("copy a.ts while the baseline runs");
				rmSync(join(gate, "hold"));
				await waitFor(() => expect(s.controller.status().lastOutcome).toBeDefined());
				await s.controller.settled();
			} finally {
				clearInterval(timer);
			}
			footers.push(ui.statuses.get("pi-jscpd") ?? "");
			expect(footers.filter((footer) => footer.startsWith("jscpd: clean"))).toEqual([]);
			expect(s.controller.status().lastOutcome?.kind).toBe("findings");
			expect(findingsText(s)).toContain("src/e.ts");
		});
	}
});

describe("/jscpd status in users' words", () => {
	it("status says what is checked and how changes are found, without internals; --verbose adds them", async () => {
		const { s } = await project({ git: false, trusted: false });
		const plain = statusText(s.controller.status());
		expect(plain).toContain("Automatic jscpd checks are on");
		expect(plain).toContain("comparing the project's files");
		expect(plain).toContain("not trusted");
		for (const internal of ["mutation generation", "last automatic attempt", "outside-Pi", "(s)", "stat"])
			expect(plain).not.toContain(internal);
		const verbose = statusText(s.controller.status(), true);
		expect(verbose).toContain("mutation generation");
		expect(verbose).toContain("change detection: files");
	});

	it("status is true when jscpd cannot run: it does not say checks are on, nor suggest a timeout", async () => {
		const { root, agentDir } = fixtures.sandbox({ "src/a.ts": duplicatedFunction("computeTotals") });
		const s = await fixtures.open({
			project: root,
			agentDir,
			trusted: false,
			jscpd: { executable: join(root, "missing-jscpd") },
		});
		await waitFor(() => expect(s.controller.status().baseline.status).toBe("unavailable"));
		const plain = statusText(s.controller.status());
		expect(plain).toContain("jscpd cannot run");
		expect(plain).not.toContain("checks are on");
		expect(plain).not.toContain("timeoutMs");
		expect(plain.split("missing-jscpd").length - 1).toBe(1);
	});
});
