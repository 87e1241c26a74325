/**
 * The real `pi` CLI with pi-reset beside a summarising compaction extension (a stand-in for Pi's
 * custom-compaction example), in both load orders: at Pi's threshold pi-reset resets at the answer's
 * boundary, so Pi starts no compaction and the extension makes no summarisation request; the
 * process exits cleanly (docs/coexistence.md, "Compaction extensions").
 */
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { installPacked, type PackedInstall } from "../support/packed.js";
import { type PiRun, runPi } from "./run-pi.js";

const script = (name: string) => fileURLToPath(new URL(`./scripts/${name}`, import.meta.url));
const peer = (file: string) => fileURLToPath(new URL(`../fixtures/peers/${file}`, import.meta.url));

let install: PackedInstall;
let run: PiRun | undefined;
beforeAll(() => {
	install = installPacked(["pi-reset"]);
});
afterAll(() => install?.cleanup());
afterEach(() => {
	run?.cleanup();
	run = undefined;
});

describe.each([
	["before a summarising compaction extension", true],
	["after a summarising compaction extension", false],
] as const)("real pi CLI: pi-reset loaded %s", (_where, resetFirst) => {
	it("at Pi's threshold pi-reset resets at the boundary: the summarising extension makes no request and nothing is replaced", async () => {
		// A 16,000-token window with a 2,000-token reserve: a 60,000-character prompt (15,000 tokens
		// by the faux provider's count) puts the answer over Pi's threshold.
		const ours = install.paths[0] ?? "";
		const summary = peer("compaction-summary.ts");
		run = await runPi({
			extensions: resetFirst ? [ours, summary] : [summary, ours],
			script: script("compaction-peer.mjs"),
			prompt: `Start the parser work. ${"context ".repeat(7_500)}`,
			env: { PI_LIFECYCLE_FAUX_CONTEXT_WINDOW: "16000" },
			agentFiles: {
				"settings.json": JSON.stringify({
					compaction: { enabled: true, reserveTokens: 2_000, keepRecentTokens: 1 },
				}),
			},
		});
		expect(run.code, run.stderr).toBe(0);
		// One request: the answer. No summarisation request, no compaction Pi ran.
		expect(run.requests).toHaveLength(1);
		expect(JSON.stringify(run.requests)).not.toContain("You are a conversation summarizer.");
		expect(run.events.some((e) => e.type === "compaction_start")).toBe(false);
		const output = `${run.stdout}\n${run.stderr}`;
		expect(output).not.toContain("another extension's compaction replaced the reset");
	});
});
