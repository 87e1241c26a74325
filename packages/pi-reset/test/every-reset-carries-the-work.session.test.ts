/**
 * Issue 32, "every reset carries the work": whoever asks for a reset (the model with or without a
 * handoff, `/reset` idle or busy, bare or with text, Pi's threshold or overflow compaction,
 * `/compact`), the new window gets the user's latest request and the mechanical digest (files
 * changed and read, last tools, last answer), and its boot note never says "Continue the task from
 * here" when nothing says what the task is. `/reset --fresh` is the user's way to carry nothing.
 */
import {
	overflowError,
	type RecordedRequest,
	reply,
	type ScriptedSession,
	toolCall,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { allText, branchTypes, gate, startSession } from "./helpers.js";

let harness: ScriptedSession | undefined;
afterEach(async () => {
	await harness?.dispose();
	harness = undefined;
});

const LATEST = "LATEST-REQUEST: port every module to the new API";
const ANSWER = "LAST-ANSWER: modules ported so far";
const compactable = { compaction: { enabled: true, keepRecentTokens: 1 } };

/** `turns` tool turns of reads, edits and writes over mod<i>.ts, as a long working window has. */
function work(turns: number): ReturnType<typeof toolCall>[] {
	const steps: ReturnType<typeof toolCall>[] = [];
	for (let i = 0; i < turns; i++) {
		const path = `src/mod${Math.floor(i / 3)}.ts`;
		if (i % 3 === 0) steps.push(toolCall("write", { path, content: `export const v${i} = 0;\n` }));
		else if (i % 3 === 1) steps.push(toolCall("read", { path }));
		else steps.push(toolCall("edit", { path, edits: [{ oldText: " = 0;", newText: " = 1;" }] }));
	}
	return steps;
}

/** One write large enough (about 2,500 tokens) that Pi can compact a window with a small keep-recent budget. */
const BIG_WRITE = toolCall("write", { path: "notes/big.txt", content: "x".repeat(10_000) });

/** The first request that carries a boot note of a new window. */
function firstOfNewWindow(h: ScriptedSession): RecordedRequest | undefined {
	return h.requests.find((request) => allText(request).includes("[pi-reset] Context window"));
}

/** What every new window must carry, checked on its first request. */
function expectCarriedWork(
	request: RecordedRequest | undefined,
	lastModified: string,
	answered: boolean,
): void {
	const text = allText(request);
	expect(text).toContain("[pi-reset] Context window");
	expect(text).toContain(LATEST);
	expect(text).toContain("What the previous window did (a mechanical digest):");
	expect(text).toMatch(
		new RegExp(`Files it modified \\(they already contain that work\\): [^\\n]*${lastModified}`),
	);
	expect(text).toMatch(/Tools it ran last \(newest first\): [^\n]*(edit|read|write)\(src\/mod/);
	if (answered) expect(text).toContain(ANSWER);
	expect(text).not.toContain("Continue the task from here");
}

interface Asker {
	/** Who asks for the reset. */
	readonly name: string;
	/** Runs `turns` turns of work under LATEST, then has the reset happen; returns whether the window answered in text. */
	run(h: ScriptedSession, turns: number): Promise<boolean>;
	/** Pi settings (default: compaction with a keep-recent budget of 1 token, so Pi compacts any window). */
	readonly settings?: Record<string, unknown>;
}

const ASKERS: readonly Asker[] = [
	{
		name: "the model, new_context with a handoff",
		async run(h, turns) {
			h.script(...work(turns), toolCall("new_context", { handoff: "Next action: port mod9" }), reply("on"));
			await h.prompt(LATEST);
			return false;
		},
	},
	{
		name: "the model, new_context without a handoff",
		async run(h, turns) {
			h.script(...work(turns), toolCall("new_context", {}), reply("on"));
			await h.prompt(LATEST);
			return false;
		},
	},
	...[
		["bare", "/reset"],
		["with text", "/reset the parser is next"],
	].map(
		([how, command]): Asker => ({
			name: `/reset typed while the agent works, ${how}`,
			async run(h, turns) {
				const g = gate(`busy-${how}`);
				h.script(
					...work(turns),
					toolCalls([{ name: "slow", args: { gate: `busy-${how}` } }], ANSWER),
					reply("in the new window"),
				);
				const run = h.prompt(LATEST);
				await g.started.promise;
				await h.prompt(command as string);
				g.release.resolve();
				await run;
				return true;
			},
		}),
	),
	...[
		["bare", "/reset", "small"],
		["with text", "/reset the parser is next", "small"],
		["bare", "/reset", "large"],
		["with text", "/reset the parser is next", "large"],
	].map(
		([how, command, size]): Asker => ({
			name: `/reset typed while idle, ${how}, in a window ${size === "large" ? "Pi can compact" : "too small for Pi to compact"}, then "continue"`,
			settings: size === "large" ? compactable : {},
			async run(h, turns) {
				h.script(
					...(size === "large" ? [BIG_WRITE] : []),
					...work(turns),
					reply(ANSWER),
					reply("continuing"),
				);
				await h.prompt(LATEST);
				await h.prompt(command as string);
				await h.prompt("continue");
				return true;
			},
		}),
	),
	{
		name: "Pi's threshold compaction",
		async run(h, turns) {
			h.script(...work(turns), reply(ANSWER), reply("in the new window"));
			h.setUsage((m) => (m.stopReason === "stop" ? { totalTokens: 120_000, input: 120_000 } : undefined));
			await h.prompt(LATEST);
			h.setUsage(undefined);
			await h.prompt("go on");
			return true;
		},
	},
	{
		name: "Pi's overflow recovery",
		async run(h, turns) {
			h.script(...work(turns), toolCall("echo", { text: "x" }, ANSWER), overflowError(), reply("recovered"));
			await h.prompt(LATEST);
			return true;
		},
	},
	{
		name: "/compact",
		async run(h, turns) {
			h.script(...work(turns), reply(ANSWER), reply("in the new window"));
			await h.prompt(LATEST);
			await h.session.compact();
			await h.prompt("go on");
			return true;
		},
	},
];

describe("every reset carries the work: the user's latest request and the digest, whoever asks", () => {
	for (const asker of ASKERS) {
		it(`${asker.name}: the new window has the latest request and the digest of files changed and read, last tools and last answer`, async () => {
			harness = await startSession({ settings: asker.settings ?? compactable });
			const answered = await asker.run(harness, 12);
			expect(harness.errors).toEqual([]);
			expectCarriedWork(firstOfNewWindow(harness), "src/mod3\\.ts", answered);
		});
	}
});

describe("the confirmed defects of issue 32", () => {
	it("new_context without a handoff after 30 turns of reads, edits and writes opens a window with the digest of files changed", async () => {
		harness = await startSession();
		harness.script(...work(30), toolCall("new_context", {}), reply("on"));
		await harness.prompt(LATEST);
		const boot = allText(firstOfNewWindow(harness));
		expectCarriedWork(firstOfNewWindow(harness), "src/mod9\\.ts", false);
		// Every module the window wrote is listed, the first one too: the model does not start again from it.
		expect(/Files it modified[^\n]*/.exec(boot)?.[0]).toContain("src/mod0.ts");
	});

	it('a bare idle /reset, then "continue": the new window has the task, the digest and the earlier request', async () => {
		harness = await startSession();
		harness.script(...work(9), reply(ANSWER), reply("continuing"));
		await harness.prompt(LATEST);
		await harness.prompt("/reset");
		await harness.prompt("continue");
		const first = harness.requests.at(-1);
		expectCarriedWork(first, "src/mod2\\.ts", true);
		const text = allText(first);
		expect(text).toContain("The user's latest request before this reset, verbatim:");
		// The user's new message comes after the boot note, and the old window's messages are gone.
		expect(text.indexOf("user: continue")).toBeGreaterThan(text.indexOf(LATEST));
		expect(first?.messages.filter((m) => m.role === "toolResult")).toEqual([]);
	});
});

describe("a /reset, then a new topic", () => {
	it("the boot note's last line leaves the task to the user's new message: it goes on with the old task only where the new message does", async () => {
		harness = await startSession();
		harness.script(...work(3), reply(ANSWER), reply("docs"));
		await harness.prompt(LATEST);
		await harness.prompt("/reset");
		await harness.prompt("NEW-TOPIC: write the README instead");
		const text = allText(harness.requests.at(-1));
		const boot = text.slice(text.indexOf("[pi-reset] Context window"), text.indexOf("</summary>")).trim();
		expect(boot.split("\n").at(-1)).toMatch(
			/^Where the user's new message goes on with this task, go on from where the previous window stopped\./,
		);
		expect(boot).not.toMatch(/^Go on from/m);
	});
});

describe("/reset --fresh: how a user starts truly fresh", () => {
	it("carries neither the earlier request nor the digest, keeps the note, and never says to continue a task", async () => {
		harness = await startSession();
		harness.script(...work(3), reply(ANSWER), reply("hello"));
		await harness.prompt(LATEST);
		await harness.prompt("/reset --fresh NOTE: we switch to the docs now");
		await harness.prompt("write the README");
		const text = allText(harness.requests.at(-1));
		expect(text).toContain("NOTE: we switch to the docs now");
		expect(text).toContain("The user asked for a fresh start");
		expect(text).not.toContain(LATEST);
		expect(text).not.toContain("mechanical digest");
		expect(text).not.toContain("Continue the task from here");
		expect(text).toContain("write the README");
	});

	it("a bare /reset --fresh in a window with no task says there is no earlier task, not 'continue the task'", async () => {
		harness = await startSession();
		harness.script(reply("hi"));
		await harness.prompt("/reset --fresh");
		await harness.prompt("hello");
		const text = allText(harness.requests.at(-1));
		expect(text).toContain("No earlier task is carried over: start from the user's new message.");
		expect(text).not.toContain("Continue the task from here");
	});

	it("/reset -- --fresh takes --fresh as the handoff, literally", async () => {
		harness = await startSession();
		harness.script(reply(ANSWER), reply("on"));
		await harness.prompt(LATEST);
		await harness.prompt("/reset -- --fresh");
		await harness.prompt("go");
		const text = allText(harness.requests.at(-1));
		expect(text).toContain("Handoff from the previous window:\n--fresh");
		expect(text).toContain(LATEST);
	});
});

describe("an idle /reset opens its window where it was asked for when Pi can compact the window", () => {
	it("in a window Pi can compact, the compaction comes before the user's next message, with no model call", async () => {
		harness = await startSession({ settings: compactable });
		harness.script(BIG_WRITE, ...work(6), reply(ANSWER), reply("continuing"));
		await harness.prompt(LATEST);
		const calls = harness.providerCalls;
		await harness.prompt("/reset HANDOFF-NOW");
		expect(harness.providerCalls).toBe(calls);
		const types = branchTypes(harness);
		expect(types.at(-1)).toBe("compaction");
		await harness.prompt("continue");
		const after = branchTypes(harness).slice(types.length);
		expect(after).toEqual(["message:user", "message:assistant"]);
		const first = allText(harness.requests.at(-1));
		expect(first).toContain("HANDOFF-NOW");
		expect(first).toContain("The user's new message follows");
		expect(harness.events.filter((e) => e.type === "session_before_compact").map((e) => e.info)).toEqual([
			{ reason: "manual", willRetry: false },
		]);
		expect(harness.errors).toEqual([]);
	});

	it("in a window too small for Pi to compact, Pi is not asked (no error), and the next message opens the window", async () => {
		harness = await startSession();
		harness.script(reply(ANSWER), reply("continuing"));
		await harness.prompt(LATEST);
		await harness.prompt("/reset HANDOFF-LATER");
		expect(harness.events.filter((e) => e.type.startsWith("session_compact"))).toEqual([]);
		expect(branchTypes(harness)).not.toContain("compaction");
		await harness.prompt("continue");
		expect(allText(harness.requests.at(-1))).toContain("HANDOFF-LATER");
		expect(branchTypes(harness)).toContain("compaction");
		expect(harness.errors).toEqual([]);
	});
});

describe("/reset twice in a row", () => {
	it("a note given while a reset is pending becomes its handoff (it is not dropped), and the window still carries the request and the digest", async () => {
		harness = await startSession();
		harness.script(...work(3), reply(ANSWER), reply("continuing"));
		await harness.prompt(LATEST);
		await harness.prompt("/reset");
		await harness.prompt("/reset SECOND-NOTE: the parser is next");
		await harness.prompt("continue");
		const first = harness.requests.at(-1);
		expectCarriedWork(first, "src/mod0\\.ts", true);
		expect(allText(first)).toContain("Handoff from the previous window:\nSECOND-NOTE: the parser is next");
	});

	it("alreadyPending keeps the model's handoff: /reset <note> typed while new_context's reset is pending carries the note and the model's handoff", async () => {
		harness = await startSession();
		const g = gate("model-first");
		harness.script(
			toolCalls([
				{
					name: "new_context",
					args: { handoff: "Goal: port the parser.\nNext action: MODEL-NEXT port mod2" },
				},
				{ name: "slow", args: { gate: "model-first" } },
			]),
			reply("on"),
		);
		const run = harness.prompt(LATEST);
		await g.started.promise;
		await harness.prompt("/reset USER-NOTE: also run the tests");
		g.release.resolve();
		await run;
		const text = allText(harness.requests.at(-1));
		expect(text).toContain("USER-NOTE: also run the tests");
		expect(text).toContain("MODEL-NEXT port mod2");
		expect(harness.errors).toEqual([]);
	});

	it("alreadyPending takes --fresh: /reset, then /reset --fresh <note> while the first is pending, starts fresh with the note", async () => {
		harness = await startSession();
		harness.script(...work(3), reply(ANSWER), reply("hello"));
		await harness.prompt(LATEST);
		await harness.prompt("/reset");
		await harness.prompt("/reset --fresh FRESH-NOTE: the docs now");
		await harness.prompt("write the README");
		const text = allText(harness.requests.at(-1));
		expect(text).toContain("FRESH-NOTE: the docs now");
		expect(text).toContain("The user asked for a fresh start");
		expect(text).not.toContain(LATEST);
		expect(text).not.toContain("mechanical digest");
	});

	it("emptyWindowCarriesEarlierWork: a reset of a window that did nothing since its opening note carries that note's handoff and digest on", async () => {
		harness = await startSession({ settings: compactable });
		harness.script(BIG_WRITE, ...work(3), reply(ANSWER), reply("continuing"));
		await harness.prompt(LATEST);
		await harness.prompt("/reset FIRST-NOTE: mod1 is next");
		expect(branchTypes(harness).at(-1)).toBe("compaction");
		await harness.prompt("/reset");
		await harness.prompt("continue");
		const first = harness.requests.at(-1);
		expectCarriedWork(first, "src/mod0\\.ts", true);
		expect(allText(first)).toContain("FIRST-NOTE: mod1 is next");
	});

	it("emptyWindowCarriesEarlierWork: new_context as a window's first call carries the work the window before it did", async () => {
		harness = await startSession();
		harness.script(
			...work(3),
			toolCall("new_context", { handoff: "FIRST-HANDOFF: mod1 is next" }),
			toolCall("new_context", {}),
			reply("on"),
		);
		await harness.prompt(LATEST);
		const last = harness.requests.at(-1);
		expect(allText(last).match(/\[pi-reset\] Context window w2-/g)).toHaveLength(1);
		expectCarriedWork(last, "src/mod0\\.ts", false);
		expect(allText(last)).toContain("FIRST-HANDOFF: mod1 is next");
	});

	it("emptyWindowCarriesEarlierWork stops at a fresh start: /reset --fresh, then /reset, brings nothing from before back", async () => {
		harness = await startSession({ settings: compactable });
		harness.script(BIG_WRITE, ...work(3), reply(ANSWER), reply("continuing"));
		await harness.prompt(LATEST);
		await harness.prompt("/reset --fresh");
		expect(branchTypes(harness).at(-1)).toBe("compaction");
		await harness.prompt("/reset");
		await harness.prompt("write the README");
		const text = allText(harness.requests.at(-1));
		expect(text).not.toContain("mechanical digest");
		expect(text).not.toContain("src/mod0.ts");
	});
});

describe("a window an idle /reset opened", () => {
	it("windowWork reads the kept entries: the digest of the next reset lists what the window's first turn did", async () => {
		harness = await startSession();
		harness.script(
			toolCall("write", { path: "src/first.ts", content: "x" }),
			reply("A1"),
			toolCall("write", { path: "src/second.ts", content: "y" }),
			reply(ANSWER),
			reply("continuing"),
		);
		await harness.prompt(LATEST);
		await harness.prompt("/reset");
		await harness.prompt("continue");
		await harness.prompt("/reset");
		await harness.prompt("continue");
		const text = allText(harness.requests.at(-1));
		expect(text).toMatch(/Files it modified \(they already contain that work\): src\/second\.ts/);
		expect(text).toContain("write(src/second.ts)");
		expect(text).toContain(ANSWER);
	});

	it('requestsBeforeResets: idle /reset and "continue", again and again, keeps the task the user gave before the first reset', async () => {
		harness = await startSession();
		harness.script(
			toolCall("write", { path: "src/first.ts", content: "x" }),
			reply("A1"),
			reply("A2"),
			reply("A3"),
			reply("A4"),
			reply("A5"),
		);
		await harness.prompt(LATEST);
		for (const next of ["continue", "continue", "go on", "keep going"]) {
			await harness.prompt("/reset");
			await harness.prompt(next);
			const text = allText(harness.requests.at(-1));
			expect(text).toContain(LATEST);
			expect(text).toContain("The user's latest request before this reset, verbatim:");
		}
		const last = allText(harness.requests.at(-1));
		// Newest first, each from before a reset: "go on", then "continue" or the task.
		expect(last.indexOf("go on")).toBeLessThan(last.indexOf(LATEST));
		expect(last).toContain("user: keep going");
		// The same words after two resets are quoted once.
		expect(last.split("\ncontinue\n").length - 1).toBe(1);
	});

	it("requestsBeforeResets stops at a fresh start and within one window carries only the newest request", async () => {
		harness = await startSession();
		harness.script(reply("A1"), reply("A2"), reply("A3"), reply("A4"));
		await harness.prompt("OLD-TASK: the parser");
		await harness.prompt("/reset --fresh");
		await harness.prompt("NEW-TASK: the docs");
		await harness.prompt("NEWER-ASK: the README first");
		await harness.prompt("/reset");
		await harness.prompt("continue");
		const text = allText(harness.requests.at(-1));
		expect(text).toContain("NEWER-ASK: the README first");
		expect(text).not.toContain("NEW-TASK");
		expect(text).not.toContain("OLD-TASK");
	});

	it('requestsBeforeResets in a reset Pi starts: /compact after an idle /reset and "continue" keeps the task', async () => {
		harness = await startSession({ settings: compactable });
		harness.script(reply("A1"), BIG_WRITE, reply("A2"), reply("A3"));
		await harness.prompt(LATEST);
		await harness.prompt("/reset");
		await harness.prompt("continue");
		await harness.session.compact();
		await harness.prompt("go on");
		const text = allText(harness.requests.at(-1));
		expect(text).toContain("starts here because the user compacted the session");
		expect(text).toContain(LATEST);
	});

	it('requestsBeforeResets in an autonomous run: windows the model opens with no user message in them keep the task from before "continue"', async () => {
		harness = await startSession();
		harness.script(
			reply("A1"),
			toolCall("write", { path: "src/a.ts", content: "x" }),
			toolCall("new_context", {}),
			toolCall("write", { path: "src/b.ts", content: "y" }),
			toolCall("new_context", {}),
			reply("on"),
		);
		await harness.prompt(LATEST);
		await harness.prompt("/reset");
		await harness.prompt("continue");
		const last = allText(harness.requests.at(-1));
		// The third window of the run: its closing window had no user message, the run's did.
		expect(last.match(/\[pi-reset\] Context window w3-/g)).toHaveLength(1);
		expect(last).toContain("The user's most recent request, verbatim:\ncontinue");
		expect(last).toContain(LATEST);
	});

	it("sinceFreshStart: a fresh start typed while the agent works ends every request before it: /reset --fresh, then new_context, quotes no request from before the fresh start", async () => {
		harness = await startSession();
		const g = gate("fresh-busy");
		harness.script(
			reply("A1"),
			toolCalls([{ name: "slow", args: { gate: "fresh-busy" } }]),
			toolCall("write", { path: "src/b.ts", content: "y" }),
			toolCall("new_context", {}),
			reply("on"),
		);
		await harness.prompt("OLD-TASK: the parser");
		await harness.prompt("/reset");
		const run = harness.prompt("continue");
		await g.started.promise;
		await harness.prompt("/reset --fresh");
		g.release.resolve();
		await run;
		const last = allText(harness.requests.at(-1));
		expect(last).toContain("starts here because you called new_context");
		expect(last).not.toContain("OLD-TASK");
		// The request that started the run is from before the fresh start too.
		expect(last).not.toContain("The user's most recent request");
		expect(last).toContain("Files it modified (they already contain that work): src/b.ts");
	});

	it("requestsBeforeResets after the user changed the task: the boot note says which request is newest and that the newer one wins", async () => {
		harness = await startSession();
		harness.script(
			reply("A1"),
			toolCall("write", { path: "docs/b.md", content: "x" }),
			toolCall("new_context", {}),
			reply("on"),
		);
		await harness.prompt("OLD-TASK: port the parser");
		await harness.prompt("/reset");
		await harness.prompt("NEW-TASK: write the unrelated docs");
		const text = allText(harness.requests.at(-1));
		const newest = text.indexOf("The user's most recent request, verbatim:\nNEW-TASK");
		const older = text.indexOf(
			"The user's older requests, newest first (where they differ, the newer one wins):\nOLD-TASK",
		);
		expect(newest).toBeGreaterThan(-1);
		expect(older).toBeGreaterThan(newest);
	});

	it("requestsBeforeResets cuts a long earlier request instead of dropping it", async () => {
		harness = await startSession();
		harness.script(reply("A1"), reply("A2"), reply("A3"));
		const spec = `SPEC-START ${"the module must do this. ".repeat(400)}`;
		await harness.prompt(spec);
		await harness.prompt("/reset");
		await harness.prompt("continue");
		await harness.prompt("/reset");
		await harness.prompt("go on");
		const text = allText(harness.requests.at(-1));
		expect(text).toContain("SPEC-START the module must do this.");
		expect(text).toContain("more characters are in the session file");
		expect(text.length).toBeLessThan(spec.length);
	});
});
