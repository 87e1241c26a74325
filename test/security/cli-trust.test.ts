/**
 * Issue 14, found in audit: what `ctx.isProjectTrusted()` means in the real `pi` CLI. Pi asks about
 * trust only when the project has Pi resources of its own (`.pi/settings.json`, `.pi/extensions`,
 * `.agents/skills`, …); for any other directory with no stored decision it answers `true` without
 * asking (Pi's main.js: `trustStore.get(cwd) ?? !hasTrustRequiringResources`). A freshly cloned
 * hostile repository has no such resources, so the user is never asked and our extensions treat it
 * as trusted: pi-jscpd runs git there, and the repository's `core.fsmonitor` and filters run.
 *
 * OPEN HOLE, not fixed yet (docs/security.md "Known hole: Pi's implicit trust"): this test is
 * marked `it.fails` so the suite stays green while it documents the hole; it starts failing the
 * day the hole is closed, and must then become a plain `it`.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type PiRun, runPi } from "../cli/run-pi.js";
import { hostileGitRepo, markersIn, sandbox } from "./support/hostile.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const script = fileURLToPath(new URL("../cli/scripts/jscpd.mjs", import.meta.url));

let run: PiRun | undefined;
afterEach(() => {
	run?.cleanup();
	run = undefined;
});

describe("security: the real pi CLI in a freshly cloned hostile repository", () => {
	it.fails("a repository the user was never asked about runs none of its git programs (Pi auto-trusts it)", async () => {
		const s = sandbox("pi-security-cli-trust-");
		hostileGitRepo(s);
		run = await runPi({
			extensions: [join(repoRoot, "packages", "pi-jscpd")],
			script,
			prompt: "write two modules",
			cwd: s.root,
			timeoutMs: 90_000,
		});
		expect(run.code, run.stderr).toBe(0);
		expect(markersIn(s.markers)).toEqual([]);
	}, 120_000);
});
