/**
 * The harness's local-fault injections fail as Node does on a read-only or full disk, so a
 * package's test of how it names the fault sees what a real disk would give it.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterEach, describe, expect, it } from "vitest";
import { classifyLocalFault } from "../src/index.js";
import {
	createScriptedSession,
	failSessionWrites,
	type LocalFaultInjection,
	type ScriptedSession,
	withTmpWriteFaults,
} from "../src/testing/index.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

/** An extension whose `/save` appends an entry and records what the write threw. */
function saver(thrown: unknown[]) {
	return (pi: ExtensionAPI) => {
		pi.registerCommand("save", {
			description: "save an entry",
			handler: async () => {
				try {
					pi.appendEntry("t/saved", { n: 1 });
				} catch (error) {
					thrown.push(error);
				}
			},
		});
	};
}

describe("failSessionWrites", () => {
	it("Pi's next session write throws a read-only fault naming the session file", async () => {
		const thrown: unknown[] = [];
		harness = await createScriptedSession({ extensions: [saver(thrown)], session: "file" });
		const file = harness.session.sessionManager.getSessionFile();
		failSessionWrites(harness, "EROFS");
		await harness.prompt("/save");
		expect(thrown).toHaveLength(1);
		expect(thrown[0]).toMatchObject({ code: "EROFS", path: file });
		expect(classifyLocalFault(thrown[0])?.code).toBe("EROFS");
	});
});

describe("withTmpWriteFaults", () => {
	it("fails writes of temporary files while a fault is set, as Node does; other writes pass through", () => {
		const written: string[] = [];
		const faults: { code?: LocalFaultInjection } = {};
		const fs = withTmpWriteFaults({ writeFileSync: (path: string) => void written.push(path) }, faults);
		fs.writeFileSync("/a/settings.json.tmp");
		faults.code = "ENOSPC";
		expect(() => fs.writeFileSync("/a/settings.json.tmp")).toThrow(
			expect.objectContaining({ code: "ENOSPC", path: "/a/settings.json.tmp" }),
		);
		fs.writeFileSync("/a/other.json");
		faults.code = "ENOSPC-write";
		let during: unknown;
		try {
			fs.writeFileSync("/a/b.tmp");
		} catch (error) {
			during = error;
		}
		expect(during).toMatchObject({ code: "ENOSPC", syscall: "write" });
		expect((during as { path?: string }).path).toBeUndefined();
		expect(written).toEqual(["/a/settings.json.tmp", "/a/other.json"]);
	});
});
