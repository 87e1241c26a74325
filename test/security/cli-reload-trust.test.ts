/**
 * Issue 33, with the real interactive `pi` (tmux): a hostile repository Pi trusted implicitly (no Pi
 * resources, nobody asked) gains a Pi resource during the session (what a `git pull` or the agent's
 * `write` leaves), and the user runs `/reload`. Pi itself then loads the new resource and saves
 * `"<project>": true` in `trust.json` without asking ("…; saved project trust"). Our extensions keep
 * the decision of the session start: none of the repository's git programs (fsmonitor, hooks,
 * filters, …) and not its `node_modules/.bin/jscpd` run, and change detection stays `files` (listings, no git).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { runPi } from "../cli/run-pi.js";
import { command, type PiTui, startPi } from "../tui/driver.js";
import { hostileGitRepo, markersIn, put, sandbox } from "./support/hostile.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const jscpdScript = fileURLToPath(new URL("../cli/scripts/jscpd.mjs", import.meta.url));

let tui: PiTui | undefined;
afterEach(() => {
	tui?.close();
	tui = undefined;
});

// The driver always starts the dev-pinned pi: run once, in the dev-pin pass.
describe.skipIf(process.env.PI_LIFECYCLE_HOST === "1.3.0")(
	"security: /reload in the real interactive pi",
	() => {
		it("a Pi resource appears, /reload, Pi saves trust by itself: still no git vector and no project jscpd runs", async () => {
			const s = sandbox("pi-security-cli-reload-");
			hostileGitRepo(s);
			put(
				join(s.root, "node_modules", ".bin", "jscpd"),
				`#!/bin/sh\ntouch '${join(s.markers, "project-jscpd")}'\nexit 1\n`,
				0o755,
			);
			tui = await startPi({ cwd: s.root });
			await tui.waitForScreen(/jscpd: ready/, 60_000);
			expect(markersIn(s.markers)).toEqual([]);

			put(join(s.root, ".pi", "prompts", "review.md"), "Review the change.\n");
			await command(tui, "/reload");
			// Pi's own step after the reload: it saves the implicit answer, without asking.
			await tui.waitForScreen(/saved project trust/, 60_000);
			expect(JSON.parse(readFileSync(join(tui.dirs.agentDir, "trust.json"), "utf8"))).toEqual({
				[s.root]: true,
			});
			await tui.waitForScreen(/jscpd: ready/, 60_000);

			await command(tui, "/jscpd status --verbose");
			// Listings only: no git ("files+git" in a trusted repository).
			await tui.waitForScreen(/change detection: files(?!\+git)/, 30_000);
			expect(markersIn(s.markers)).toEqual([]);

			// The next pi start (print mode, the same agent dir's files): Pi trusts the project from its own
			// entry without asking; for us it is still not the user's decision, so nothing runs.
			const agentFiles = {
				"trust.json": readFileSync(join(tui.dirs.agentDir, "trust.json"), "utf8"),
				"pi-lifecycle/trust-saved-by-pi.json": readFileSync(
					join(tui.dirs.agentDir, "pi-lifecycle", "trust-saved-by-pi.json"),
					"utf8",
				),
			};
			tui.close();
			tui = undefined;
			const next = () =>
				runPi({
					extensions: [join(repoRoot, "packages", "pi-jscpd")],
					script: jscpdScript,
					prompt: "write two modules",
					cwd: s.root,
					agentFiles,
					timeoutMs: 90_000,
				});
			const started = await next();
			started.cleanup();
			expect(started.code, started.stderr).toBe(0);
			expect(markersIn(s.markers)).toEqual([]);
			// Control: the same entry without our record of it counts (as the user's /trust does).
			delete (agentFiles as Record<string, string>)["pi-lifecycle/trust-saved-by-pi.json"];
			const control = await next();
			control.cleanup();
			expect(markersIn(s.markers)).toContain("project-jscpd");
		}, 360_000);
	},
);
