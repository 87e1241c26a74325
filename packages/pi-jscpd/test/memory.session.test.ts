/** jscpd's memory is bounded (issue 17): a check that ran out of memory says so and is never clean. */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { FOOTER, footerText } from "../src/core/presentation.js";
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

let h: JscpdSession | undefined;
const dirs: string[] = [];
afterEach(async () => {
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

describe("the memory bound of the jscpd process group", () => {
	it("a check whose jscpd grows past the bound is killed and reported incomplete (ran out of memory), never clean", async () => {
		const root = tempDir("pi-jscpd-memory-");
		const agentDir = tempDir("pi-jscpd-agent-");
		const gate = tempDir("pi-jscpd-gate-");
		dirs.push(root, agentDir, gate);
		writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
		// With the gate file, the "jscpd" keeps allocating (1 MB every 10 ms) until it is killed.
		const hog = `setInterval(() => { globalThis.kept = [...(globalThis.kept ?? []), Buffer.alloc(1 << 20, 1)]; }, 10)`;
		const executable = writeScript(
			join(gate, "bin", "jscpd"),
			`if [ -f '${gate}/hog' ]; then exec '${process.execPath}' -e '${hog}'; fi
exec '${realJscpd()}' "$@"`,
		);
		const s = await jscpdSession({
			project: root,
			agentDir,
			jscpd: { executable, limits: { maxMemoryBytes: 200 * 1024 * 1024 } },
		});
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		await s.controller.settled();
		writeFileSync(join(gate, "hog"), "");
		s.script(toolCall("write", { path: "src/b.ts", content: "export const b = 1;\n" }), reply("done"));
		await s.prompt("write");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("incomplete"));
		expect(s.controller.status().lastOutcome?.text).toMatch(
			/^jscpd ran out of memory \(limit 200 MB\); nothing was checked \(the project gave jscpd \d+ files/,
		);
		expect(customMessages(s, "pi-jscpd/findings")).toEqual([]);
		expect(existsSync(join(gate, "hog"))).toBe(true);
		const outcome = s.controller.status().lastOutcome;
		expect(
			footerText({ enabled: true, capability: "available", baseline: "accepted", checking: false, outcome }),
		).toBe(FOOTER.incomplete);
	});
});
