/**
 * Issue 14, found in audit: project files our packages read themselves (not through jscpd) must not
 * let an untrusted repository stall Pi. A write/edit while the session baseline is pending reads the
 * file's current content synchronously (pi-jscpd `noteEarlyWrite`); a repository can ship that file
 * as a named pipe (FIFO), whose open and read would block Pi's event loop until some process writes
 * to it. Only a regular file may be opened.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { JscpdController } from "../../packages/pi-jscpd/src/adapters/controller.js";
import { DEFAULT_IGNORES, defaultIgnores } from "../../packages/pi-jscpd/src/adapters/ignores.js";
import { allExtensions, fakeJscpd, tempDir } from "../reliability/support/extensions.js";
import { duplicated, put, sandbox } from "./support/hostile.js";

let harness: ScriptedSession | undefined;
let pipeWriter: ChildProcess | undefined;
afterEach(async () => {
	if (pipeWriter?.pid !== undefined && pipeWriter.exitCode === null) process.kill(pipeWriter.pid, "SIGKILL");
	pipeWriter = undefined;
	await harness?.dispose();
	harness = undefined;
});

/** Blocks every write, so only our own tool_call handler could ever open the file. */
const blockWrites: ExtensionFactory = (pi) => {
	pi.on("tool_call", (event) =>
		event.toolName === "write" ? { block: true, reason: "writes are blocked in this test" } : undefined,
	);
};

describe("security: project files pi-jscpd reads itself", () => {
	it("untrusted: a write to a file the repository made a named pipe never opens the pipe (Pi cannot be stalled)", async () => {
		const s = sandbox("pi-security-fifo-");
		put(join(s.root, "src", "a.ts"), duplicated("first"));
		const fifo = join(s.root, "src", "pipe.ts");
		execFileSync("mkfifo", [fifo]);
		// Opening a FIFO for writing blocks until a reader opens it: the marker says someone did. The
		// writer then closes its end, so a reader that did open it gets EOF instead of hanging the test.
		const opened = join(s.markers, "fifo-opened");
		pipeWriter = spawn("sh", ["-c", `exec 3>'${fifo}'; touch '${opened}'`], { stdio: "ignore" });
		const agentDir = tempDir("pi-security-agent-");
		// A jscpd that holds the session baseline pending until the gate file exists.
		const gate = join(agentDir, "gate");
		const jscpd = fakeJscpd(
			agentDir,
			`while [ ! -e '${gate}' ]; do sleep 0.02; done
out=""; while [ $# -gt 0 ]; do if [ "$1" = "--output" ]; then out="$2"; fi; shift; done
printf '{"duplicates":[],"statistics":{"total":{"sources":0}}}' > "$out/jscpd-report.json"`,
		);
		let controller: JscpdController | undefined;
		harness = await createScriptedSession({
			cwd: s.root,
			projectTrusted: false,
			extensions: [
				...allExtensions({
					agentDir,
					order: ["pi-jscpd"],
					jscpd: {
						executable: jscpd,
						onController: (c) => {
							controller = c;
						},
					},
				}),
				{ name: "block-writes", factory: blockWrites },
			],
		});
		const c = controller as JscpdController | undefined;
		if (!c) throw new Error("pi-jscpd did not load");
		await vi.waitFor(() => expect(c.status().baseline.status).toBe("pending"), { timeout: 10_000 });
		harness.script(toolCall("write", { path: "src/pipe.ts", content: duplicated("second") }), reply("done"));
		await harness.prompt("write src/pipe.ts");
		writeFileSync(gate, "");
		await c.settled();
		expect(existsSync(opened)).toBe(false);
	});

	it("trusted: a .jscpd.json that is a named pipe is never opened when choosing default ignores", () => {
		const s = sandbox("pi-security-fifo-config-");
		const fifo = join(s.root, ".jscpd.json");
		execFileSync("mkfifo", [fifo]);
		const opened = join(s.markers, "fifo-opened");
		pipeWriter = spawn("sh", ["-c", `exec 3>'${fifo}'; touch '${opened}'`], { stdio: "ignore" });
		expect(defaultIgnores(s.root, true)).toEqual(DEFAULT_IGNORES);
		expect(existsSync(opened)).toBe(false);
	});
});
