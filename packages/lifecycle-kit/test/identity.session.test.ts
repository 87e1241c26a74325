import { describe, expect, it } from "vitest";
import {
	type IdentityEvent,
	type IdentitySnapshot,
	initialIdentity,
	isContinuation,
	isSameScope,
	LifecycleIdentity,
	nextIdentity,
	type StaleGuard,
	trackLifecycle,
} from "../src/identity.js";
import { createScriptedSession, reply, retryableError, type ScriptedSession } from "../src/testing/index.js";

const start: IdentityEvent = { type: "session_start", sessionId: "s1" };

function run(events: IdentityEvent[], nonce = "n1"): IdentitySnapshot {
	return events.reduce(nextIdentity, initialIdentity(nonce));
}

describe("identity reducer", () => {
	it("starts inactive with every counter at zero", () => {
		expect(initialIdentity("n")).toEqual({
			sessionId: "",
			nonce: "n",
			generation: 0,
			run: 0,
			attempt: 0,
			attemptOfRun: 0,
			settle: 0,
			running: false,
			active: false,
		});
	});

	it("session_start binds the session id, activates and moves the generation", () => {
		expect(run([start])).toMatchObject({ sessionId: "s1", generation: 1, active: true, running: false });
	});

	it("session_shutdown deactivates, stops the run and moves the generation", () => {
		const state = run([start, { type: "before_agent_start" }, { type: "session_shutdown" }]);
		expect(state).toMatchObject({ generation: 2, active: false, running: false });
	});

	it("session_tree and invalidate move the generation only", () => {
		const before = run([start, { type: "before_agent_start" }]);
		for (const type of ["session_tree", "invalidate"] as const) {
			const after = nextIdentity(before, { type });
			expect(after).toEqual({ ...before, generation: before.generation + 1 });
		}
	});

	it("before_agent_start counts a run; agent_start within it counts attempts, not runs", () => {
		const state = run([
			start,
			{ type: "before_agent_start" },
			{ type: "agent_start" },
			{ type: "agent_start" },
			{ type: "agent_settled" },
		]);
		expect(state).toMatchObject({ run: 1, attempt: 2, settle: 1, running: false });
	});

	it("agent_start without before_agent_start still counts a run", () => {
		expect(run([start, { type: "agent_start" }])).toMatchObject({ run: 1, attempt: 1, running: true });
	});

	it("attemptOfRun counts the attempts of the current run and restarts with the next run", () => {
		const events: IdentityEvent[] = [
			start,
			{ type: "before_agent_start" },
			{ type: "agent_start" },
			{ type: "agent_start" },
			{ type: "agent_settled" },
			{ type: "before_agent_start" },
			{ type: "agent_start" },
		];
		const states: IdentitySnapshot[] = [];
		for (const event of events) states.push(nextIdentity(states.at(-1) ?? initialIdentity("n"), event));
		expect(states.map((s) => s.attemptOfRun)).toEqual([0, 0, 1, 2, 2, 0, 1]);
		expect(states.map(isContinuation)).toEqual([false, false, false, true, false, false, false]);
	});

	it("attemptOfRun is 1 for an agent_start without before_agent_start and 0 after session changes", () => {
		expect(run([start, { type: "agent_start" }]).attemptOfRun).toBe(1);
		const running = run([
			start,
			{ type: "before_agent_start" },
			{ type: "agent_start" },
			{ type: "agent_start" },
		]);
		expect(nextIdentity(running, { type: "session_shutdown" }).attemptOfRun).toBe(0);
		expect(nextIdentity(running, start).attemptOfRun).toBe(0);
	});

	it("the reducer is pure: it never mutates its input", () => {
		const frozen = Object.freeze(run([start]));
		expect(() => nextIdentity(frozen, { type: "before_agent_start" })).not.toThrow();
		expect(frozen.run).toBe(0);
	});
});

describe("isSameScope", () => {
	const base = run([start, { type: "before_agent_start" }, { type: "agent_start" }]);

	it("a different nonce is never the same scope (reload = new runtime)", () => {
		expect(isSameScope("generation", base, { ...base, nonce: "other" })).toBe(false);
	});

	it("a different session id is never the same scope", () => {
		expect(isSameScope("generation", base, { ...base, sessionId: "s2" })).toBe(false);
	});

	it("an inactive runtime is never current", () => {
		expect(isSameScope("generation", base, { ...base, active: false })).toBe(false);
	});

	it("generation scope survives new runs and attempts", () => {
		expect(isSameScope("generation", base, { ...base, run: 5, attempt: 9 })).toBe(true);
	});

	it("run scope survives new attempts but not new runs", () => {
		expect(isSameScope("run", base, { ...base, attempt: base.attempt + 1 })).toBe(true);
		expect(isSameScope("run", base, { ...base, run: base.run + 1 })).toBe(false);
	});

	it("attempt scope goes stale on the next attempt", () => {
		expect(isSameScope("attempt", base, base)).toBe(true);
		expect(isSameScope("attempt", base, { ...base, attempt: base.attempt + 1 })).toBe(false);
	});
});

describe("guards", () => {
	function started(): LifecycleIdentity {
		const identity = new LifecycleIdentity("nonce1");
		identity.apply(start);
		return identity;
	}

	it("a guard goes stale on session start (a new session)", () => {
		const identity = started();
		const guard = identity.guard();
		identity.apply({ type: "session_start", sessionId: "s2" });
		expect(guard.isCurrent()).toBe(false);
	});

	it("a guard goes stale on session start even for the same session id", () => {
		const identity = started();
		const guard = identity.guard();
		identity.apply(start);
		expect(guard.isCurrent()).toBe(false);
	});

	it("a guard goes stale on shutdown", () => {
		const identity = started();
		const guard = identity.guard();
		identity.apply({ type: "session_shutdown" });
		expect(guard.isCurrent()).toBe(false);
	});

	it("a guard goes stale on tree navigation", () => {
		const identity = started();
		const guard = identity.guard();
		identity.apply({ type: "session_tree" });
		expect(guard.isCurrent()).toBe(false);
	});

	it("a guard goes stale on invalidate", () => {
		const identity = started();
		const guard = identity.guard();
		identity.invalidate();
		expect(guard.isCurrent()).toBe(false);
	});

	it("a guard captured before the first session_start is never current", () => {
		const identity = new LifecycleIdentity("n");
		const guard = identity.guard();
		expect(guard.isCurrent()).toBe(false);
		identity.apply(start);
		expect(guard.isCurrent()).toBe(false);
	});

	it("a generation guard survives runs, attempts and settles", () => {
		const identity = started();
		const guard = identity.guard();
		for (const type of ["before_agent_start", "agent_start", "agent_start", "agent_settled"] as const)
			identity.apply({ type });
		expect(guard.isCurrent()).toBe(true);
	});

	it("a run guard survives a retry attempt and goes stale at the next run", () => {
		const identity = started();
		identity.apply({ type: "before_agent_start" });
		identity.apply({ type: "agent_start" });
		const guard = identity.guard("run");
		identity.apply({ type: "agent_start" });
		expect(guard.isCurrent()).toBe(true);
		identity.apply({ type: "agent_settled" });
		expect(guard.isCurrent()).toBe(true);
		identity.apply({ type: "before_agent_start" });
		expect(guard.isCurrent()).toBe(false);
	});

	it("an attempt guard goes stale at the next attempt", () => {
		const identity = started();
		identity.apply({ type: "before_agent_start" });
		identity.apply({ type: "agent_start" });
		const guard = identity.guard("attempt");
		expect(guard.isCurrent()).toBe(true);
		identity.apply({ type: "agent_start" });
		expect(guard.isCurrent()).toBe(false);
	});

	it("ids are scoped by session, nonce, generation, run and attempt", () => {
		const identity = started();
		identity.apply({ type: "before_agent_start" });
		identity.apply({ type: "agent_start" });
		expect(identity.guard().id).toBe("s1:nonce1:g1");
		expect(identity.guard("run").id).toBe("s1:nonce1:g1:r1");
		expect(identity.guard("attempt").id).toBe("s1:nonce1:g1:r1:a1");
		expect(identity.runId).toBe("s1:nonce1:g1:r1");
		expect(identity.attemptId).toBe("s1:nonce1:g1:r1:a1");
		identity.apply({ type: "agent_settled" });
		expect(identity.settleId).toBe("s1:nonce1:g1:s1");
	});

	it("two runtimes get different random nonces", () => {
		expect(new LifecycleIdentity().snapshot.nonce).not.toBe(new LifecycleIdentity().snapshot.nonce);
	});

	it("onChange listeners see the state after it moved, and can unsubscribe", () => {
		const identity = started();
		const seen: [number, string][] = [];
		const off = identity.onChange((state, event) => seen.push([state.generation, event.type]));
		identity.invalidate();
		off();
		identity.invalidate();
		expect(seen).toEqual([[2, "invalidate"]]);
	});
});

describe("trackLifecycle on Pi's real agent loop", () => {
	let harness: ScriptedSession | undefined;

	it("a retried provider error is one run with two attempts and one settle", async () => {
		const identities: LifecycleIdentity[] = [];
		harness = await createScriptedSession({
			extensions: [(pi) => void identities.push(trackLifecycle(pi))],
			responses: [retryableError(), reply("recovered")],
		});
		await harness.prompt("hi");
		expect(identities).toHaveLength(1);
		expect(identities[0]?.snapshot).toMatchObject({
			run: 1,
			attempt: 2,
			attemptOfRun: 2,
			settle: 1,
			running: false,
			active: true,
		});
		expect(identities[0]?.snapshot.sessionId).toBe(harness.session.sessionManager.getSessionId());
	});

	it("isContinuation is false in a run's first attempt and true in its retry, seen at agent_start", async () => {
		const seen: [number, boolean][] = [];
		harness = await createScriptedSession({
			extensions: [
				(pi) => {
					const identity = trackLifecycle(pi);
					pi.on(
						"agent_start",
						() => void seen.push([identity.snapshot.attemptOfRun, identity.isContinuation]),
					);
				},
			],
			responses: [retryableError(), reply("recovered"), reply("second run")],
		});
		await harness.prompt("hi");
		await harness.prompt("again");
		expect(seen).toEqual([
			[1, false],
			[2, true],
			[1, false],
		]);
	});

	it("guards go stale on reload: the old runtime shuts down and the new one has a new nonce", async () => {
		const identities: LifecycleIdentity[] = [];
		harness = await createScriptedSession({
			extensions: [(pi) => void identities.push(trackLifecycle(pi))],
		});
		const guard: StaleGuard | undefined = identities[0]?.guard();
		expect(guard?.isCurrent()).toBe(true);
		await harness.reload();
		expect(identities).toHaveLength(2);
		expect(guard?.isCurrent()).toBe(false);
		expect(identities[1]?.snapshot.nonce).not.toBe(identities[0]?.snapshot.nonce);
		expect(identities[1]?.guard().isCurrent()).toBe(true);
	});

	it("guards go stale on tree navigation", async () => {
		const identities: LifecycleIdentity[] = [];
		harness = await createScriptedSession({
			extensions: [(pi) => void identities.push(trackLifecycle(pi))],
			responses: [reply("one"), reply("two")],
		});
		await harness.prompt("first");
		const target = harness.session.sessionManager.getLeafId();
		await harness.prompt("second");
		const guard = identities[0]?.guard();
		if (!target) throw new Error("no leaf");
		await harness.session.navigateTree(target, { summarize: false });
		expect(harness.count("session_tree")).toBe(1);
		expect(guard?.isCurrent()).toBe(false);
	});
});
