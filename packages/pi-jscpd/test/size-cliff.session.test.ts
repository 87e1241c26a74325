/**
 * No size cliff (issue 31), at small size: a repository built like the confirmed case (the cjs and
 * esm builds of the same modules: one exact clone group per module) where the renamed/near-copy
 * scan cannot finish within `timeoutMs` (a jscpd that sleeps through it, the test seam for a scan
 * that is too slow). The baseline is still accepted (exact copies), the footer and `/jscpd status`
 * say in one sentence that near-copies were dropped and why, and the checkpoint works and reads
 * only the changed files and their partners. In the project state most users are in: a plain
 * directory Pi trusted implicitly (untrusted for us). The full-size case (10,000 files, 9,000
 * groups) is in the bench (`jscpd-scale`).
 */
import { join } from "node:path";
import { createDialogStub, reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	realJscpd,
	sessionFixtures,
	waitFor,
	writeScript,
} from "./helpers.js";

const fixtures = sessionFixtures();
const FINDINGS = "pi-jscpd/findings";
const MODULES = 30;

/** The cjs and esm builds of `MODULES` modules, as a published package ships them. */
function publishedPackage(): Record<string, string> {
	const files: Record<string, string> = {};
	for (let i = 0; i < MODULES; i++) {
		const body = duplicatedFunction(`compute${i}`).replace("export function", "function");
		files[`pkg/cjs/m${i}.js`] =
			`"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n${body}exports.compute${i} = compute${i};\n`;
		files[`pkg/esm/m${i}.js`] = `${body}export { compute${i} };\n`;
	}
	return files;
}

/** The real jscpd, too slow for the renamed/near-copy scan (`--similarity`): it sleeps past the timeout. */
const slowNearJscpd = (agentDir: string) =>
	writeScript(
		join(agentDir, "bin", "jscpd"),
		`for arg in "$@"; do if [ "$arg" = "--similarity" ]; then sleep 60; fi; done
exec '${realJscpd()}' "$@"`,
	);

describe("no size cliff", () => {
	it("no size cliff: a near-copy scan over timeoutMs leaves an accepted exact baseline, says so in the footer and status, and the checkpoint works", async () => {
		const stub = createDialogStub();
		const s = await fixtures.start(publishedPackage(), {
			prefix: "pi-jscpd-cliff-",
			settings: { timeoutMs: 2_000 },
			executable: slowNearJscpd,
			trusted: false,
			ui: stub.ui,
		});
		const status = s.controller.status();
		expect(status.baseline).toMatchObject({ status: "accepted", kinds: ["exact"] });
		expect(status.baseline.groups).toBeGreaterThanOrEqual(MODULES);
		expect(status.baseline.fallback).toContain("timed out");
		await waitFor(() =>
			expect(stub.statuses.get("pi-jscpd")).toBe(
				"jscpd: ready · exact copies only (near-copy check too slow here)",
			),
		);
		s.script(toolCall("jscpd_run", { command: "status" }), reply("read status"));
		await s.prompt("status");
		const text = JSON.stringify(s.session.sessionManager.getBranch().at(-2));
		expect(text).toContain("This session checks exact copies only: jscpd timed out after 2000 ms");

		// The agent copies a module: found by a check that read the copy and its partners only.
		s.script(
			toolCall("write", { path: "src/copy.js", content: duplicatedFunction("computeCopy") }),
			reply("wrote copy"),
		);
		await s.prompt("copy a module");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		await s.controller.settled();
		const last = s.controller.status().lastOutcome;
		expect(last?.kind).toBe("findings");
		expect(last?.scope).toMatch(/^scanned \d+ changed and related files, not the whole project$/);
		expect(Number(/scanned (\d+)/.exec(last?.scope ?? "")?.[1])).toBeLessThan(2 * MODULES);
		expect(stub.statuses.get("pi-jscpd")).toBe(
			"jscpd: 1 new duplicate · exact copies only (near-copy check too slow here)",
		);
	}, 60_000);
});
