/**
 * The real `pi` CLI with pi-reset loaded before a summarising compaction extension (a stand-in for
 * Pi's custom-compaction example): at Pi's threshold compaction the extension's paid summary is
 * kept, pi-reset says so once, and the process exits cleanly (docs/coexistence.md, "Compaction
 * extensions").
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

describe("real pi CLI: pi-reset beside a summarising compaction extension", () => {
	it("loaded first, pi-reset keeps the other extension's summary and says so once", async () => {
		// A 16,000-token window with a 2,000-token reserve: a 60,000-character prompt (15,000 tokens
		// by the faux provider's count) is over Pi's threshold, so Pi compacts after the answer.
		run = await runPi({
			extensions: [install.paths[0] ?? "", peer("compaction-summary.ts")],
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
		// The summarising extension made its call, and its summary is the one Pi kept.
		expect(run.requests).toHaveLength(2);
		expect(JSON.stringify(run.requests[1]?.messages)).toContain("You are a conversation summarizer.");
		const compacted = run.events.find((e) => e.type === "compaction_end") as
			| { result?: { summary?: string } }
			| undefined;
		expect(compacted?.result?.summary).toContain("CLI-PEER-SUMMARY");
		const output = `${run.stdout}\n${run.stderr}`;
		expect(output.split("another extension's compaction replaced the reset").length - 1).toBe(1);
		expect(output).toContain("its summary is kept");
	});
});
