/**
 * Hostile live payloads on Pi's bus (`pi.events`): what another extension can emit or offer —
 * getters that throw or change between reads, proxies whose traps throw or lie, circular, frozen
 * and revoked payloads, non-objects (support/live-hostile.ts). Each listener is asserted on its
 * own: the pure readers never throw and accept only well-typed values; on a real session with all
 * three extensions, an emit never throws, no extension reports a handler error, and the session
 * is unchanged and keeps working.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
	AGENT_WORKFLOW_GROUP,
	createWorkflowMutex,
	isResetAnnouncement,
	RESET_CHANNEL,
	readResetAnnouncement,
	WORKFLOW_MUTEX_CHANNEL,
	type WorkflowMutex,
} from "@pi-lifecycle/lifecycle-kit";
import { createScriptedSession, reply, type ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { BUS, runs, Tally } from "@pi-lifecycle/seed-plan";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
	CANCEL_CHANNEL,
	readStartRequest,
	START_CHANNEL,
} from "../../packages/pi-goal/src/adapters/managed-run.js";
import { queryUsage } from "../../packages/pi-goal/src/adapters/usage-query.js";
import { selectResetHint } from "../../packages/pi-goal/src/core/usage-reset.js";
import { allExtensions, fakeJscpd, tempDir } from "./support/extensions.js";
import { buildLive, type LiveRecipe, liveRecipes } from "./support/live-hostile.js";

const tally = new Tally();

/** pi-goal's settings file in `agentDir` with managed runs on (they are off by default). */
function managedRunsOn(agentDir: string): void {
	mkdirSync(join(agentDir, "pi-lifecycle"), { recursive: true });
	writeFileSync(join(agentDir, "pi-lifecycle", "pi-goal.json"), JSON.stringify({ managedRuns: true }));
}
afterAll(() => tally.verify("bus.property", BUS));

const SESSION = { id: "session-manager" };
const RESET = { session: SESSION, windowId: "w2-abcd", entryId: "e1" };
const START = { session: SESSION, runId: "run-1", objective: "ship it", tokens: "100k" };
/** A usage report pi-goal accepts (usage-reset.ts): the model's bucket is exhausted until 60 s. */
const REPORT = {
	version: 1,
	status: "ok",
	provider: "p",
	fetchedAt: 1,
	buckets: [{ id: "b", modelKeys: ["m"], used: 10, limit: 10, resetsAt: 60_000 }],
};

describe("bus: pure readers of live payloads", () => {
	it("pi-lifecycle:reset:v1: isResetAnnouncement never throws and accepts only well-typed announcements", () => {
		fc.assert(
			fc.property(liveRecipes(Object.keys(RESET)), (recipe) => {
				const payload = buildLive(RESET, recipe);
				let accepted = false;
				expect(() => {
					accepted = isResetAnnouncement(payload);
				}).not.toThrow();
				if (accepted && recipe.kind !== "shifting-getters" && recipe.kind !== "lying-proxy") {
					const p = payload as typeof RESET;
					expect(typeof p.windowId).toBe("string");
					expect(typeof p.entryId).toBe("string");
				}
				tally.hit("resetAnnouncement");
			}),
			runs(200, BUS.resetAnnouncement),
		);
	});

	// The listeners (pi-goal, pi-jscpd) use this copy, not isResetAnnouncement and the payload.
	it("pi-lifecycle:reset:v1: readResetAnnouncement never throws; its copy is plain, typed and read once", () => {
		fc.assert(
			fc.property(liveRecipes(Object.keys(RESET)), (recipe) => {
				const payload = buildLive(RESET, recipe);
				let read: ReturnType<typeof readResetAnnouncement>;
				expect(() => {
					read = readResetAnnouncement(payload);
				}).not.toThrow();
				if (read) {
					expect(read === payload, "a copy, not the live payload").toBe(false);
					expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
					expect(typeof read.windowId).toBe("string");
					expect(typeof read.entryId).toBe("string");
					expect(typeof read.session).toBe("object");
					// The copy holds the values that were checked: the first reads.
					if (recipe.kind === "shifting-getters") expect(read).toEqual(RESET);
				}
				tally.hit("resetAnnouncementCopy");
			}),
			runs(203, BUS.resetAnnouncementCopy),
		);
	});

	it("pi-goal:start: readStartRequest never throws; an accepted request holds plain values read once", () => {
		fc.assert(
			fc.property(liveRecipes(Object.keys(START)), (recipe) => {
				const payload = buildLive(START, recipe);
				const read = readStartRequest(payload);
				if (typeof read !== "string") {
					expect(typeof read.runId).toBe("string");
					expect(typeof read.objective).toBe("string");
					// `session` is optional on the peer-compatible wire format; an object when given.
					if (read.session !== undefined) expect(typeof read.session).toBe("object");
					expect(read.tokenBudget === null || Number.isSafeInteger(read.tokenBudget)).toBe(true);
					// Validated and used are the same reads: a shifting getter cannot swap a value in.
					if (recipe.kind === "shifting-getters") expect(read.runId).toBe(START.runId);
				}
				tally.hit("goalStart");
			}),
			runs(201, BUS.goalStart),
		);
	});

	it("usage:query:v1: queryUsage resolves (never throws or hangs) whatever a responder offers", async () => {
		const listeners: ((payload: unknown) => void)[] = [];
		const bus = {
			emit: (_channel: string, payload: unknown) => {
				for (const listener of listeners) listener(payload);
			},
		};
		const timers = {
			setTimeout: (fn: () => void) => setTimeout(fn, 0),
			clearTimeout: (t: unknown) => clearTimeout(t as NodeJS.Timeout),
		};
		await fc.assert(
			fc.asyncProperty(liveRecipes(Object.keys(REPORT)), async (recipe) => {
				listeners.length = 0;
				listeners.push((request) => {
					const offer = (request as { offer: (r: unknown) => void }).offer;
					// A lying proxy also answers `then`: a hostile thenable.
					offer(buildLive(REPORT, recipe));
				});
				const result = await queryUsage(
					bus,
					{ provider: "p", modelId: "m" },
					{ now: () => 0, timers: timers as never, signal: new AbortController().signal },
				);
				expect(typeof result.ok).toBe("boolean");
				// The offered report is live too: pi-goal's reader of it never throws, and a hint it
				// accepts is a usable time.
				if (result.ok) {
					const read = () => selectResetHint(result.report, { provider: "p", modelId: "m" }, 0, 1);
					expect(read).not.toThrow();
					const hint = read();
					if (hint.ok) expect(Number.isFinite(hint.resumeAt)).toBe(true);
				}
				tally.hit("usageOffers");
			}),
			runs(202, BUS.usageOffers),
		);
	});
});

describe("bus: live payloads into a real session with all three extensions", () => {
	let h: ScriptedSession;
	let bus: ExtensionAPI["events"];
	let ctx: ExtensionContext;
	let dir: string;
	/** Two participants of workflow:mutex:v1 beside the extensions': a holder reads every attempt. */
	let holder: WorkflowMutex;
	let other: WorkflowMutex;
	const goalFooter = () =>
		JSON.stringify(
			h.session.sessionManager
				.getBranch()
				.filter((e) => e.type === "custom")
				.at(-1),
		);

	beforeAll(async () => {
		dir = tempDir("pi-reliability-bus-");
		// Managed runs on: a start request reaches the request reader and the existing-goal check.
		managedRunsOn(dir);
		const probe = (pi: ExtensionAPI) => {
			bus = pi.events;
			holder = createWorkflowMutex(pi);
			other = createWorkflowMutex(pi);
			pi.on("session_start", (_event, c) => {
				ctx = c;
			});
		};
		h = await createScriptedSession({
			extensions: [
				...allExtensions({
					agentDir: dir,
					jscpd: { executable: fakeJscpd(dir) },
				}),
				{ name: "probe", factory: probe },
			],
		});
		// A paused goal: a start request is refused ("another goal is unfinished"), never started.
		h.script(reply("working"), reply("still working"));
		await h.prompt("/goal objective for the bus test");
		await h.prompt("/goal pause");
		await h.session.waitForIdle();
	});
	afterAll(async () => {
		await h?.dispose();
	});

	/** Emits live payloads built from `valid` on `channel`; asserts each emit separately. */
	function emits(channel: string, valid: Record<string, unknown>, key: keyof typeof BUS, offset: number) {
		const before = goalFooter();
		const calls = h.providerCalls;
		fc.assert(
			fc.property(liveRecipes(Object.keys(valid)), (recipe: LiveRecipe) => {
				const payload = buildLive(valid, recipe);
				const reported = h.errors.length;
				expect(() => bus.emit(channel, payload)).not.toThrow();
				expect(h.errors.slice(reported).map((e) => `${e.extensionPath} ${e.event}: ${e.error}`)).toEqual([]);
				tally.hit(key);
			}),
			runs(offset, BUS[key]),
		);
		expect(goalFooter(), "the goal state did not change").toBe(before);
		expect(h.providerCalls, "no request was started").toBe(calls);
	}

	it("pi-lifecycle:reset:v1 (pi-goal and pi-jscpd listeners): no throw, no handler error, nothing started", () => {
		emits(RESET_CHANNEL, { ...RESET, session: ctx.sessionManager }, "sessionReset", 210);
	});

	it("pi-goal:start: no throw, no handler error, no goal started over the paused one", () => {
		emits(START_CHANNEL, { ...START, session: ctx.sessionManager }, "sessionGoalStart", 211);
	});

	it("pi-goal:cancel: no throw, no handler error, the paused goal is kept", () => {
		emits(CANCEL_CHANNEL, { session: ctx.sessionManager, runId: "run-1" }, "sessionGoalCancel", 212);
	});

	// A participant's listener reads an attempt only while it holds the group: with no holder, the
	// hostile payloads were never read at all (the paused goal released pi-goal's hold).
	it("workflow:mutex:v1 (every participant's listener, one holding the group): no throw, no handler error", () => {
		const hold = holder.tryAcquire();
		expect(hold.acquired, "the paused goal holds nothing: the probe can").toBe(true);
		try {
			emits(
				WORKFLOW_MUTEX_CHANNEL,
				{ session: ctx.sessionManager, group: AGENT_WORKFLOW_GROUP, busy: false },
				"sessionMutex",
				213,
			);
		} finally {
			if (hold.acquired) holder.release(hold.token);
		}
	});

	it("workflow:mutex:v1: after each hostile payload the holder still answers busy, and the group frees on release", () => {
		const hold = holder.tryAcquire();
		if (!hold.acquired) throw new Error(`the probe could not acquire: ${hold.reason}`);
		fc.assert(
			fc.property(liveRecipes(["session", "group", "busy"]), (recipe) => {
				const payload = buildLive(
					{ session: ctx.sessionManager, group: AGENT_WORKFLOW_GROUP, busy: false },
					recipe,
				);
				expect(() => bus.emit(WORKFLOW_MUTEX_CHANNEL, payload)).not.toThrow();
				expect(holder.holds(hold.token)).toBe(true);
				expect(other.tryAcquire()).toEqual({ acquired: false, reason: "busy" });
				tally.hit("workflowMutex");
			}),
			runs(214, BUS.workflowMutex),
		);
		holder.release(hold.token);
		const after = other.tryAcquire();
		expect(after.acquired, "free once the holder released").toBe(true);
		if (after.acquired) other.release(after.token);
	});

	// Regression (seed 20260812, sessionReset): counterexample {"kind":"shifting-getters","keys":["entryId"],
	// "later":{},"throws":true}. pi-goal checked the announcement, then read `payload.entryId` again
	// outside its guard: the second read threw into Pi's bus (an extension error). Fixed by reading
	// the payload once (lifecycle-kit readResetAnnouncement), in pi-goal and pi-jscpd.
	it("pi-lifecycle:reset:v1: an entryId getter that throws on its second read reports no handler error", () => {
		const reported = h.errors.length;
		for (const throws of [true, false])
			bus.emit(
				RESET_CHANNEL,
				buildLive(
					{ ...RESET, session: ctx.sessionManager },
					{ kind: "shifting-getters", keys: ["entryId", "session"], later: {}, throws },
				),
			);
		expect(h.errors.slice(reported)).toEqual([]);
	});

	it("the session still answers a prompt after every hostile payload", async () => {
		h.script(reply("still here"), reply("resumed"), reply("more"));
		const reported = h.errors.length;
		await h.prompt("are you there?");
		expect(h.errors.slice(reported)).toEqual([]);
		expect(JSON.stringify(h.requests.at(-1)?.messages)).toContain("are you there?");
	});
});

describe("bus: a start request read once (managed runs on, no goal)", () => {
	// Regression (found by this audit, same class as the reset announcement read twice): pi-goal's
	// start listener read `runId` to answer on, then read the payload again to validate it. A runId
	// getter answering "run-2" on its second read started the goal as run-2 while the caller heard
	// `active` on run-1: a cancel for run-1 was refused and no terminal state ever came on run-1.
	it("pi-goal:start: a runId getter that answers differently on a second read cannot start the goal under another runId", async () => {
		const dir = tempDir("pi-reliability-bus-start-");
		managedRunsOn(dir);
		const heard: Record<string, { status?: string; error?: { code: string; message: string } }[]> = {
			"run-1": [],
			"run-2": [],
		};
		const said = (runId: string) =>
			heard[runId]?.map((e) => e.status ?? `${e.error?.code}: ${e.error?.message}`);
		let bus: ExtensionAPI["events"] | undefined;
		let ctx: ExtensionContext | undefined;
		const probe = (pi: ExtensionAPI) => {
			bus = pi.events;
			for (const runId of Object.keys(heard))
				pi.events.on(`pi-goal:event:${runId}`, (event) => heard[runId]?.push(event as never));
			pi.on("session_start", (_event, c) => {
				ctx = c;
			});
		};
		const h = await createScriptedSession({
			extensions: [
				...allExtensions({
					agentDir: dir,
					jscpd: { executable: fakeJscpd(dir) },
				}),
				{ name: "probe", factory: probe },
			],
		});
		try {
			h.script(reply("working"), reply("still working"), reply("more"));
			const payload = buildLive(
				{ session: ctx?.sessionManager, runId: "run-1", objective: "managed over the bus" },
				{ kind: "shifting-getters", keys: ["runId"], later: "run-2", throws: false },
			);
			bus?.emit(START_CHANNEL, payload);
			expect(said("run-1")).toEqual(["active"]);
			expect(heard["run-2"]).toEqual([]);
			// The run answered on is the run that was started: its cancel ends it on run-1 (paused, the peer protocol).
			bus?.emit(CANCEL_CHANNEL, { session: ctx?.sessionManager, runId: "run-1" });
			await h.session.waitForIdle();
			await vi.waitFor(() => expect(said("run-1")).toEqual(["active", "paused"]), { timeout: 10_000 });
			expect(h.errors).toEqual([]);
		} finally {
			await h.dispose();
		}
	});
});
