import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type RecordedRequest, reply, requestTexts, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { goalLoop } from "./goal-loop.js";
import {
	customMessages,
	duplicatedFunction,
	gatedJscpd,
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	otherFunction,
	processesWith,
	remove,
	tempDir,
	waitFor,
	writeFiles,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const SEEN = "new duplicated block";
let h: JscpdSession | undefined;
const dirs: string[] = [];
afterEach(async () => {
	await h?.controller.shutdown();
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

function project() {
	const root = tempDir("pi-jscpd-project-");
	const agentDir = tempDir("pi-jscpd-agent-");
	const gate = tempDir("pi-jscpd-gate-");
	dirs.push(root, agentDir, gate);
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
	return { root, agentDir, gate };
}

const sees = (request: RecordedRequest | undefined) =>
	request !== undefined && requestTexts(request).some((line) => line.includes(SEEN));

/** Iteration 1 writes a duplicate of src/a.ts. */
function writeDuplicate(s: JscpdSession) {
	s.script(
		toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
		reply("iteration 1: wrote b.ts"),
	);
}

describe("checks at boundary continuations (one long run)", () => {
	it("a duplicate written in one goal iteration reaches the model within the next two iterations", async () => {
		const { root, agentDir } = project();
		const s = await jscpdSession({ project: root, agentDir, extra: [goalLoop({ continuations: 3 })] });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		writeDuplicate(s);
		s.script(
			// Iteration 2: the model takes a while to answer (as real ones do); the check started at this
			// continuation's agent_start finishes meanwhile and is queued into the run.
			async () => {
				await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("findings"));
				return reply("iteration 2");
			},
			reply("iteration 3"),
			reply("iteration 4"),
		);
		await s.prompt("work on the goal");
		// One run: agent_settled (the seed's trigger) fired only at the very end.
		expect(s.count("before_agent_start")).toBe(1);
		expect(s.count("agent_start")).toBe(4);
		expect(s.count("agent_settled")).toBe(1);
		// Requests: 1-2 iteration 1 (write, answer), 3 iteration 2, 4 iteration 3, 5 iteration 4.
		expect(s.providerCalls).toBe(5);
		expect(sees(s.requests[2])).toBe(false);
		expect(sees(s.requests[3])).toBe(true);
		expect(customMessages(s, FINDINGS)).toHaveLength(1);
		// Delivered inside the run, before the settle: later iterations answered after it.
		const branch = s.session.sessionManager.getBranch();
		const at = branch.findIndex((e) => e.type === "custom_message" && e.customType === FINDINGS);
		expect(
			branch.slice(at).filter((e) => e.type === "message" && e.message.role === "assistant"),
		).toHaveLength(2);
		// The settle did not check or deliver the same generation again.
		await s.controller.settled();
		expect(customMessages(s, FINDINGS)).toHaveLength(1);
		expect(s.controller.status().recentChecks.map((r) => r.disposition)).toEqual(["recorded"]);
		expect(s.errors).toEqual([]);
	});

	it("no check ever delays a continuation: a hanging jscpd leaves every continuation and the settle on time", async () => {
		const { root, agentDir, gate } = project();
		const marker = `pijscpdcont${process.pid}${Date.now()}`;
		const gated = gatedJscpd(gate, marker);
		const s = await jscpdSession({
			project: root,
			agentDir,
			jscpd: { executable: gated },
			extra: [goalLoop({ continuations: 3 })],
		});
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		writeFileSync(join(gate, "hold"), "");
		writeDuplicate(s);
		const running: boolean[] = [];
		const checkRunning = () =>
			s.controller.status().scheduler.automaticActive && processesWith(marker).length > 0;
		s.script(
			async () => {
				// The continuation's request happens while its check's jscpd is still blocked.
				await waitFor(() => expect(existsSync(join(gate, "started"))).toBe(true));
				running.push(checkRunning());
				return reply("iteration 2");
			},
			async () => {
				running.push(checkRunning());
				return reply("iteration 3");
			},
			async () => {
				running.push(checkRunning());
				return reply("iteration 4");
			},
		);
		await s.prompt("work on the goal");
		// Every continuation was requested, and the run settled, while the check still hung.
		expect(running).toEqual([true, true, true]);
		expect(s.providerCalls).toBe(5);
		expect(s.count("agent_settled")).toBe(1);
		expect(checkRunning()).toBe(true);
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
		// Released: the same check completes after the settle and delivers once, while idle.
		writeFileSync(join(gate, "release"), "");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(s.session.sessionManager.getLeafEntry()).toMatchObject({
			type: "custom_message",
			customType: FINDINGS,
		});
		expect(s.providerCalls).toBe(5);
	});
});

describe("stale in-run checks", () => {
	it("a write during a check started at a continuation makes it stale; the next continuation checks the newer generation", async () => {
		const { root, agentDir, gate } = project();
		const marker = `pijscpdstale${process.pid}${Date.now()}`;
		const s = await jscpdSession({
			project: root,
			agentDir,
			jscpd: { executable: gatedJscpd(gate, marker) },
			extra: [goalLoop({ continuations: 3 })],
		});
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		writeFileSync(join(gate, "hold"), "");
		writeDuplicate(s);
		s.script(
			// Iteration 2: its check is held; the model writes another file meanwhile.
			async () => {
				await waitFor(() => expect(existsSync(join(gate, "started"))).toBe(true));
				return toolCall("write", { path: "src/c.ts", content: otherFunction("countWords") });
			},
			async () => {
				writeFileSync(join(gate, "release"), "");
				await waitFor(() => expect(s.controller.status().recentChecks).toHaveLength(1));
				return reply("iteration 2");
			},
			// Iteration 3: the continuation checks generation 2.
			async () => {
				await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("findings"));
				return reply("iteration 3");
			},
			reply("iteration 4"),
		);
		await s.prompt("work on the goal");
		expect(s.controller.status().recentChecks.map((r) => [r.generation, r.disposition])).toEqual([
			[1, "stale"],
			[2, "recorded"],
		]);
		expect(sees(s.requests[4])).toBe(false);
		expect(sees(s.requests[5])).toBe(true);
		expect(customMessages(s, FINDINGS)).toHaveLength(1);
	});
});

describe("re-delivery after a reset", () => {
	for (const order of ["pi-jscpd first", "resetter first"] as const) {
		it(`a finding delivered just before a reset that the model never saw is delivered again in the new window (${order})`, async () => {
			const { root, agentDir } = project();
			const loop = goalLoop({ continuations: 3, resetAfter: 2 });
			const s = await jscpdSession({
				project: root,
				agentDir,
				...(order === "pi-jscpd first" ? { extra: [loop] } : { before: [loop] }),
			});
			h = s;
			await waitFor(() => expect(hasBaseline(s)).toBe(true));
			writeDuplicate(s);
			s.script(
				// Iteration 2: the findings are queued into the run and appended when its turn ends; the
				// boundary that ends iteration 2 resets, so no request of the old window includes them.
				async () => {
					await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("findings"));
					return reply("iteration 2");
				},
				// Iteration 3 (new window): the reset was announced; the findings are checked and queued again.
				async () => {
					await waitFor(() => expect(s.controller.status().recentChecks).toHaveLength(2));
					return reply("iteration 3");
				},
				reply("iteration 4"),
			);
			await s.prompt("work on the goal");
			expect(s.providerCalls).toBe(5);
			expect(sees(s.requests[2])).toBe(false);
			expect(sees(s.requests[3])).toBe(false);
			expect(requestTexts(s.requests[3] ?? { index: 0, messages: [] }).join("\n")).toContain("handoff");
			expect(sees(s.requests[4])).toBe(true);
			const types = s.session.sessionManager
				.getBranch()
				.filter((e) => e.type === "compaction" || (e.type === "custom_message" && e.customType === FINDINGS))
				.map((e) => e.type);
			expect(types).toEqual(["custom_message", "compaction", "custom_message"]);
			expect(s.controller.status().redelivered).toBe(1);
			expect(s.controller.status().recentChecks.map((r) => r.disposition)).toEqual(["recorded", "recorded"]);
			expect(s.errors).toEqual([]);
		});
	}

	it("findings the model already saw are not delivered again after a reset", async () => {
		const { root, agentDir } = project();
		const s = await jscpdSession({
			project: root,
			agentDir,
			extra: [goalLoop({ continuations: 3, resetAfter: 3 })],
		});
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		writeDuplicate(s);
		s.script(
			async () => {
				await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("findings"));
				return reply("iteration 2");
			},
			reply("iteration 3"),
			reply("iteration 4"),
		);
		await s.prompt("work on the goal");
		await s.controller.settled();
		// Seen in iteration 3's request, then reset after iteration 3: nothing to re-deliver.
		expect(sees(s.requests[3])).toBe(true);
		expect(sees(s.requests[4])).toBe(false);
		expect(customMessages(s, FINDINGS)).toHaveLength(1);
		expect(s.controller.status().redelivered).toBe(0);
	});
});
