import { describe, expect, it } from "vitest";
import { IdleDispatcher, type IdleIntent, type IdleProbe, selectIntent } from "../src/dispatcher.js";
import { LifecycleIdentity } from "../src/identity.js";
import { deferred, flushMicrotasks } from "../src/testing/index.js";

/** A controllable stand-in for the two ctx methods the dispatcher reads. */
function probe(init: Partial<{ idle: boolean; pending: boolean }> = {}) {
	const state = { idle: true, pending: false, ...init, probes: 0 };
	const ctx: IdleProbe = {
		isIdle() {
			state.probes++;
			return state.idle;
		},
		hasPendingMessages: () => state.pending,
	};
	return { state, ctx };
}

function owner(): LifecycleIdentity {
	const identity = new LifecycleIdentity("n");
	identity.apply({ type: "session_start", sessionId: "s" });
	return identity;
}

function intent(
	key: string,
	identity: LifecycleIdentity,
	send: IdleIntent["send"] = () => undefined,
	extra: Partial<IdleIntent> = {},
): IdleIntent {
	return { key, guard: identity.guard(), send, ...extra };
}

describe("selectIntent (pure)", () => {
	it("blocks while busy", () => {
		const { ctx } = probe({ idle: false });
		expect(selectIntent([intent("a", owner())], new Set(), ctx)).toMatchObject({
			kind: "blocked",
			reason: "busy",
		});
	});

	it("blocks while messages are pending", () => {
		const { ctx } = probe({ pending: true });
		expect(selectIntent([intent("a", owner())], new Set(), ctx)).toMatchObject({
			kind: "blocked",
			reason: "pending-messages",
		});
	});

	it("reports stale intents without probing ctx when none is current", () => {
		const identity = owner();
		const stale = intent("a", identity);
		identity.invalidate();
		const { state, ctx } = probe();
		expect(selectIntent([stale], new Set(), ctx)).toEqual({ kind: "none", stale: ["a"] });
		expect(state.probes).toBe(0);
	});

	it("picks the first current, not-in-flight, eligible intent in insertion order", () => {
		const identity = owner();
		const queue = [
			intent("in-flight", identity),
			intent("ineligible", identity, undefined, { eligible: () => false }),
			intent("throws", identity, undefined, {
				eligible: () => {
					throw new Error("boom");
				},
			}),
			intent("chosen", identity),
			intent("later", identity),
		];
		const selection = selectIntent(queue, new Set(["in-flight"]), probe().ctx);
		expect(selection.kind === "send" && selection.intent.key).toBe("chosen");
	});
});

describe("IdleDispatcher", () => {
	it("sends once when idle with nothing pending", async () => {
		const dispatcher = new IdleDispatcher();
		let sends = 0;
		dispatcher.request(intent("wake", owner(), () => void sends++));
		expect(await dispatcher.flush(probe().ctx)).toEqual({ status: "sent", key: "wake" });
		expect(sends).toBe(1);
		expect(dispatcher.has("wake")).toBe(false);
	});

	it("repeated settles never send an intent twice", async () => {
		const dispatcher = new IdleDispatcher();
		let sends = 0;
		dispatcher.request(intent("wake", owner(), () => void sends++));
		const { ctx } = probe();
		const outcomes = [await dispatcher.flush(ctx), await dispatcher.flush(ctx), await dispatcher.flush(ctx)];
		expect(sends).toBe(1);
		expect(outcomes.map((o) => o.status)).toEqual(["sent", "nothing-eligible", "nothing-eligible"]);
	});

	it("competing callbacks: two flushes racing while a send is pending send once", async () => {
		const dispatcher = new IdleDispatcher();
		const gate = deferred<void>();
		let sends = 0;
		dispatcher.request(
			intent("wake", owner(), async () => {
				sends++;
				await gate.promise;
			}),
		);
		const { ctx } = probe();
		const first = dispatcher.flush(ctx);
		const second = dispatcher.flush(ctx);
		expect(await second).toEqual({ status: "in-flight", key: "wake" });
		expect(dispatcher.isInFlight("wake")).toBe(true);
		gate.resolve();
		expect(await first).toEqual({ status: "sent", key: "wake" });
		expect(sends).toBe(1);
	});

	it("competing callbacks: a second flush during a send does not start another intent", async () => {
		const dispatcher = new IdleDispatcher();
		const identity = owner();
		const gate = deferred<void>();
		const sent: string[] = [];
		dispatcher.request(intent("a", identity, () => gate.promise.then(() => void sent.push("a"))));
		dispatcher.request(intent("b", identity, () => void sent.push("b")));
		const { ctx } = probe();
		const first = dispatcher.flush(ctx);
		expect(await dispatcher.flush(ctx)).toEqual({ status: "in-flight", key: "a" });
		gate.resolve();
		await first;
		expect(await dispatcher.flush(ctx)).toEqual({ status: "sent", key: "b" });
		expect(sent).toEqual(["a", "b"]);
	});

	it("at most one intent per flush", async () => {
		const dispatcher = new IdleDispatcher();
		const identity = owner();
		const sent: string[] = [];
		for (const key of ["a", "b", "c"]) dispatcher.request(intent(key, identity, () => void sent.push(key)));
		await dispatcher.flush(probe().ctx);
		expect(sent).toEqual(["a"]);
		expect(dispatcher.pendingKeys).toEqual(["b", "c"]);
	});

	it("pending messages block the send and keep the intent", async () => {
		const dispatcher = new IdleDispatcher();
		let sends = 0;
		dispatcher.request(intent("wake", owner(), () => void sends++));
		const { state, ctx } = probe({ pending: true });
		expect(await dispatcher.flush(ctx)).toEqual({ status: "idle-blocked", reason: "pending-messages" });
		state.pending = false;
		expect(await dispatcher.flush(ctx)).toEqual({ status: "sent", key: "wake" });
		expect(sends).toBe(1);
	});

	it("a busy session blocks the send and keeps the intent", async () => {
		const dispatcher = new IdleDispatcher();
		let sends = 0;
		dispatcher.request(intent("wake", owner(), () => void sends++));
		const { state, ctx } = probe({ idle: false });
		expect(await dispatcher.flush(ctx)).toEqual({ status: "idle-blocked", reason: "busy" });
		expect(sends).toBe(0);
		state.idle = true;
		expect((await dispatcher.flush(ctx)).status).toBe("sent");
		expect(sends).toBe(1);
	});

	it("a stale owner's intent is dropped, never sent", async () => {
		const dispatcher = new IdleDispatcher();
		const identity = owner();
		let sends = 0;
		dispatcher.request(intent("wake", identity, () => void sends++));
		identity.invalidate();
		expect(await dispatcher.flush(probe().ctx)).toEqual({ status: "nothing-eligible" });
		expect(sends).toBe(0);
		expect(dispatcher.has("wake")).toBe(false);
	});

	it("a stale owner's intent is dropped even while the session is busy", async () => {
		const dispatcher = new IdleDispatcher();
		const identity = owner();
		const live = owner();
		dispatcher.request(intent("stale", identity));
		dispatcher.request(intent("live", live));
		identity.invalidate();
		expect((await dispatcher.flush(probe({ idle: false }).ctx)).status).toBe("idle-blocked");
		expect(dispatcher.pendingKeys).toEqual(["live"]);
	});

	it("a stale ctx (after reload) never makes flush reject", async () => {
		const dispatcher = new IdleDispatcher();
		dispatcher.request(intent("wake", owner()));
		const ctx: IdleProbe = {
			isIdle() {
				throw new Error("This extension ctx is stale after session replacement or reload");
			},
			hasPendingMessages: () => false,
		};
		expect(await dispatcher.flush(ctx)).toEqual({ status: "idle-blocked", reason: "busy" });
		expect(dispatcher.has("wake")).toBe(true);
	});

	it("an ineligible intent stays queued and is sent once eligible", async () => {
		const dispatcher = new IdleDispatcher();
		let ready = false;
		dispatcher.request(intent("wake", owner(), undefined, { eligible: () => ready }));
		const { ctx } = probe();
		expect(await dispatcher.flush(ctx)).toEqual({ status: "nothing-eligible" });
		ready = true;
		expect(await dispatcher.flush(ctx)).toEqual({ status: "sent", key: "wake" });
	});

	it("a failed send restores the intent (throw, reject, or false)", async () => {
		const failures: IdleIntent["send"][] = [
			() => {
				throw new Error("sync");
			},
			() => Promise.reject(new Error("async")),
			() => false,
		];
		for (const send of failures) {
			const dispatcher = new IdleDispatcher();
			dispatcher.request(intent("wake", owner(), send));
			const outcome = await dispatcher.flush(probe().ctx);
			expect(outcome).toMatchObject({ status: "failed", key: "wake", restored: true });
			expect(dispatcher.has("wake")).toBe(true);
		}
	});

	it("a failed send is retried by the next flush and then sent exactly once", async () => {
		const dispatcher = new IdleDispatcher();
		let calls = 0;
		dispatcher.request(intent("wake", owner(), () => ++calls > 1));
		const { ctx } = probe();
		expect((await dispatcher.flush(ctx)).status).toBe("failed");
		expect((await dispatcher.flush(ctx)).status).toBe("sent");
		expect((await dispatcher.flush(ctx)).status).toBe("nothing-eligible");
		expect(calls).toBe(2);
	});

	it("a failed send of a stale owner is not restored", async () => {
		const dispatcher = new IdleDispatcher();
		const identity = owner();
		const gate = deferred<void>();
		dispatcher.request(intent("wake", identity, () => gate.promise.then(() => false)));
		const flushing = dispatcher.flush(probe().ctx);
		identity.invalidate();
		gate.resolve();
		expect(await flushing).toMatchObject({ status: "failed", restored: false });
		expect(dispatcher.has("wake")).toBe(false);
	});

	it("cancel during an in-flight send is not restored", async () => {
		const dispatcher = new IdleDispatcher();
		const gate = deferred<void>();
		dispatcher.request(intent("wake", owner(), () => gate.promise.then(() => false)));
		const flushing = dispatcher.flush(probe().ctx);
		dispatcher.cancel("wake");
		gate.resolve();
		expect(await flushing).toMatchObject({ status: "failed", restored: false });
		expect(dispatcher.has("wake")).toBe(false);
	});

	it("cancelAll during an in-flight send is not restored", async () => {
		const dispatcher = new IdleDispatcher();
		const gate = deferred<void>();
		dispatcher.request(intent("wake", owner(), () => gate.promise.then(() => false)));
		dispatcher.request(intent("other", owner()));
		const flushing = dispatcher.flush(probe().ctx);
		dispatcher.cancelAll();
		gate.resolve();
		expect(await flushing).toMatchObject({ status: "failed", restored: false });
		expect(dispatcher.pendingKeys).toEqual([]);
	});

	it("a cancel mark does not outlive its send", async () => {
		const dispatcher = new IdleDispatcher();
		const identity = owner();
		const gate = deferred<void>();
		dispatcher.request(intent("wake", identity, () => gate.promise));
		const flushing = dispatcher.flush(probe().ctx);
		dispatcher.cancel("wake");
		gate.resolve();
		expect((await flushing).status).toBe("sent");
		// A later intent with the same key that fails is restored as usual.
		dispatcher.request(intent("wake", identity, () => false));
		expect(await dispatcher.flush(probe().ctx)).toMatchObject({ status: "failed", restored: true });
	});

	it("replacement during in-flight: the replacement wins and the failed original is not restored", async () => {
		const dispatcher = new IdleDispatcher();
		const identity = owner();
		const gate = deferred<void>();
		const sent: string[] = [];
		dispatcher.request(intent("wake", identity, () => gate.promise.then(() => false)));
		const flushing = dispatcher.flush(probe().ctx);
		dispatcher.request(intent("wake", identity, () => void sent.push("replacement")));
		gate.resolve();
		expect(await flushing).toMatchObject({ status: "failed", restored: false });
		expect(await dispatcher.flush(probe().ctx)).toEqual({ status: "sent", key: "wake" });
		expect(sent).toEqual(["replacement"]);
	});

	it("replacement during in-flight: after a successful send the replacement is sent by the next flush", async () => {
		const dispatcher = new IdleDispatcher();
		const identity = owner();
		const gate = deferred<void>();
		const sent: string[] = [];
		dispatcher.request(intent("wake", identity, () => gate.promise.then(() => void sent.push("original"))));
		const { ctx } = probe();
		const flushing = dispatcher.flush(ctx);
		dispatcher.request(intent("wake", identity, () => void sent.push("replacement")));
		expect(await dispatcher.flush(ctx)).toEqual({ status: "in-flight", key: "wake" });
		gate.resolve();
		await flushing;
		await dispatcher.flush(ctx);
		expect(sent).toEqual(["original", "replacement"]);
	});

	it("request replaces a queued intent with the same key", async () => {
		const dispatcher = new IdleDispatcher();
		const identity = owner();
		const sent: string[] = [];
		dispatcher.request(intent("wake", identity, () => void sent.push("old")));
		dispatcher.request(intent("wake", identity, () => void sent.push("new")));
		await dispatcher.flush(probe().ctx);
		await dispatcher.flush(probe().ctx);
		expect(sent).toEqual(["new"]);
	});

	it("the send runs synchronously inside flush, right after the idle check", async () => {
		const dispatcher = new IdleDispatcher();
		let sends = 0;
		dispatcher.request(intent("wake", owner(), () => void sends++));
		const flushing = dispatcher.flush(probe().ctx);
		expect(sends).toBe(1);
		await flushing;
		await flushMicrotasks();
		expect(sends).toBe(1);
	});
});
