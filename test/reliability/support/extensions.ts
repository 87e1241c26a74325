/**
 * The three extensions from source, with an isolated agent dir and a fake jscpd executable, plus
 * small process helpers (fake executables, the process table).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { createPiGoal, type PiGoalOptions } from "../../../packages/pi-goal/src/index.js";
import { createJscpdExtension, type JscpdOptions } from "../../../packages/pi-jscpd/src/index.js";
import piReset from "../../../packages/pi-reset/src/index.js";

/** A fresh temp dir. */
export function tempDir(prefix: string): string {
	return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes an executable `#!/bin/sh` script. */
export function writeScript(path: string, body: string): string {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, `#!/bin/sh\n${body}\n`);
	chmodSync(path, 0o755);
	return path;
}

/** A fake jscpd 5.3.2: answers --version, then runs `scan` (default: an empty report). */
export function fakeJscpd(dir: string, scan?: string): string {
	const body =
		scan ??
		`out=""; while [ $# -gt 0 ]; do if [ "$1" = "--output" ]; then out="$2"; fi; shift; done
printf '{"duplicates":[],"statistics":{"total":{"sources":0}}}' > "$out/jscpd-report.json"`;
	return writeScript(
		join(dir, "bin", "jscpd"),
		`if [ "$1" = "--version" ]; then echo "5.3.2"; exit 0; fi\n${body}`,
	);
}

/** Process-table lines whose command line contains `marker`. */
export function processesWith(marker: string): string[] {
	const out = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" });
	return out.split("\n").filter((line) => line.includes(marker) && !line.includes("ps -eo"));
}

/** The three extensions, in load order, sharing one agent dir. */
export function allExtensions(options: {
	agentDir: string;
	jscpd?: Omit<JscpdOptions, "agentDir">;
	goal?: Omit<PiGoalOptions, "agentDir">;
	order?: readonly ("pi-reset" | "pi-goal" | "pi-jscpd")[];
}): { name: string; factory: ExtensionFactory }[] {
	// pi-reset reads Pi's agent dir itself.
	process.env.PI_CODING_AGENT_DIR = options.agentDir;
	const all = {
		"pi-reset": { name: "pi-reset", factory: piReset },
		"pi-goal": { name: "pi-goal", factory: createPiGoal({ agentDir: options.agentDir, ...options.goal }) },
		"pi-jscpd": {
			name: "pi-jscpd",
			factory: createJscpdExtension({ agentDir: () => options.agentDir, ...options.jscpd }),
		},
	};
	return (options.order ?? ["pi-reset", "pi-goal", "pi-jscpd"]).map((name) => all[name]);
}
