/**
 * pi-goal beside another goal extension that owns the same tool names, with the real `pi` CLI:
 * in either load order Pi reports no load error, the run goes on, pi-goal says once which
 * extension handles goals and how to switch, and `/goal` reaches the other extension.
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installPacked, type PackedInstall } from "../support/packed.js";
import { type PiRun, runPi } from "./run-pi.js";

const PEER = fileURLToPath(new URL("./peer-goal-extension.ts", import.meta.url));
const HELLO = fileURLToPath(new URL("./scripts/hello.mjs", import.meta.url));

let install: PackedInstall;
let run: PiRun | undefined;
beforeAll(() => {
	install = installPacked(["pi-goal"]);
});
afterAll(() => install?.cleanup());
afterEach(() => {
	run?.cleanup();
	run = undefined;
});
const goalDir = () => install.extensions.find((ext) => ext.name === "pi-goal")?.packageDir ?? "";

function expectOneNotice(run: PiRun): void {
	expect(run.stderr).not.toMatch(/Failed to load extension|conflicts with/);
	const notices = run.stderr.split("\n").filter((line) => line.includes("off in this Pi"));
	expect(notices).toHaveLength(1);
	expect(notices[0]).toContain(PEER);
	expect(notices[0]).toMatch(/handles goals and \/goal here\. To use pi-goal instead, remove that extension/);
}

describe("real pi CLI: pi-goal beside another goal extension", () => {
	for (const order of ["peer first", "pi-goal first"] as const) {
		it(`${order}: no load error, one notice naming the extension that handles goals, /goal reaches it`, async () => {
			const extensions = order === "peer first" ? [PEER, goalDir()] : [goalDir(), PEER];
			run = await runPi({ extensions, script: HELLO, prompt: "/goal ship it", mode: "text" });
			expect(run.code, run.stderr).toBe(0);
			expectOneNotice(run);
			expect(run.stderr).toContain("peer-goal handled /goal ship it");
		});
	}

	it("a plain prompt runs normally beside the peer (json mode)", async () => {
		run = await runPi({ extensions: [PEER, goalDir()], script: HELLO, prompt: "hi" });
		expect(run.code, run.stderr).toBe(0);
		expectOneNotice(run);
		expect(run.events.at(-1)).toMatchObject({ type: "agent_settled", aborted: false });
	});
});
