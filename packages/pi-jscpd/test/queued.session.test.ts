/** Seed 004: no automatic scan during queued follow-ups or steering (audit probes on Pi's real loop). */
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	remove,
	tempDir,
	waitFor,
	writeFiles,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
let h: JscpdSession | undefined;
const dirs: string[] = [];
afterEach(async () => {
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

async function start(): Promise<JscpdSession> {
	const root = tempDir("pi-jscpd-queued-");
	const agentDir = tempDir("pi-jscpd-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
	const s = await jscpdSession({ project: root, agentDir });
	h = s;
	await waitFor(() => expect(hasBaseline(s)).toBe(true));
	await s.controller.settled();
	return s;
}

describe("no automatic scan during queued work (seed 004)", () => {
	for (const mode of ["followUp", "steer"] as const) {
		it(`a ${mode} message queued during a run starts no check before the settle; the settle checks once`, async () => {
			const s = await start();
			const seen: { active: boolean; records: number }[] = [];
			const look = () =>
				seen.push({
					active: s.controller.status().scheduler.automaticActive,
					records: s.controller.status().recentChecks.length,
				});
			s.script(
				() => {
					void s.session.prompt(`QUEUED-${mode}`, { streamingBehavior: mode });
					return toolCall("write", { path: "src/copy.ts", content: duplicatedFunction("computeCopy") });
				},
				() => {
					look();
					return reply("first task done");
				},
				() => {
					look();
					return reply("queued task done");
				},
			);
			await s.prompt("copy it");
			await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
			// A follow-up is answered in a third request; a steer is folded into the second.
			expect(seen).toEqual(Array(mode === "followUp" ? 2 : 1).fill({ active: false, records: 0 }));
			expect(s.controller.status().recentChecks).toHaveLength(1);
		});
	}
});
