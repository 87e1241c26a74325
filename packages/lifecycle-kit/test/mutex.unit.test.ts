import { createEventBus } from "@earendil-works/pi-coding-agent";
import { describe, expect, it, vi } from "vitest";
import {
	AGENT_WORKFLOW_GROUP,
	type MutexBus,
	WORKFLOW_MUTEX_CHANNEL,
	WorkflowMutex,
	type WorkflowMutexAttempt,
} from "../src/mutex.js";
import { flushMicrotasks } from "../src/testing/index.js";

/**
 * A synchronous bus that lets a listener's exception reach the emitter. Pi's own bus swallows
 * listener errors, which would hide a throwing responder; this one makes it visible.
 */
function strictBus(): MutexBus {
	const listeners = new Map<string, Set<(data: unknown) => void>>();
	return {
		emit(channel, data) {
			for (const listener of [...(listeners.get(channel) ?? [])]) listener(data);
		},
		on(channel, handler) {
			const set = listeners.get(channel) ?? new Set();
			listeners.set(channel, set);
			const wrapped = (data: unknown) => void handler(data);
			set.add(wrapped);
			return () => set.delete(wrapped);
		},
	};
}

function attempt(session: object, group = AGENT_WORKFLOW_GROUP): WorkflowMutexAttempt {
	return { session, group, busy: false };
}

/** A bound participant that holds the group. */
function holder(bus: MutexBus, session: object): WorkflowMutex & { readonly token: symbol } {
	const mutex = new WorkflowMutex(bus);
	mutex.bind(session);
	const result = mutex.tryAcquire();
	if (!result.acquired) throw new Error(`not acquired: ${result.reason}`);
	return Object.assign(mutex, { token: result.token });
}

describe("workflow:mutex:v1 names", () => {
	it("uses the channel and group exactly", () => {
		expect(WORKFLOW_MUTEX_CHANNEL).toBe("workflow:mutex:v1");
		expect(AGENT_WORKFLOW_GROUP).toBe("agent-workflow");
		expect(new WorkflowMutex(strictBus()).group).toBe("agent-workflow");
	});
});

describe("acquire", () => {
	it("acquires a free group with a fresh symbol token, and a second participant then sees it busy", () => {
		const bus = createEventBus();
		const session = {};
		const first = new WorkflowMutex(bus);
		const second = new WorkflowMutex(bus);
		first.bind(session);
		second.bind(session);
		const result = first.tryAcquire();
		expect(result).toMatchObject({ acquired: true, reentrant: false });
		expect(result.acquired && typeof result.token).toBe("symbol");
		expect(second.tryAcquire()).toEqual({ acquired: false, reason: "busy" });
		expect(second.isBusy()).toBe(true);
		expect(first.held).toBe(true);
		expect(second.held).toBe(false);
	});

	it("emits a fresh payload object per attempt, { session, group, busy: false }", () => {
		const bus = createEventBus();
		const seen: unknown[] = [];
		bus.on(WORKFLOW_MUTEX_CHANNEL, (payload) => void seen.push({ ...(payload as object), ref: payload }));
		const session = {};
		const mutex = new WorkflowMutex(bus);
		mutex.bind(session);
		mutex.isBusy();
		mutex.tryAcquire();
		expect(seen).toHaveLength(2);
		const [a, b] = seen as { session: object; group: string; busy: boolean; ref: object }[];
		expect(a).toMatchObject({ session, group: "agent-workflow", busy: false });
		expect(b).toMatchObject({ session, group: "agent-workflow", busy: false });
		expect(a?.ref).not.toBe(b?.ref);
	});

	it("a second acquisition while holding fails with held and emits nothing (re-entrancy only when asked)", () => {
		const bus = createEventBus();
		const emits = vi.fn();
		bus.on(WORKFLOW_MUTEX_CHANNEL, emits);
		const mutex = new WorkflowMutex(bus);
		mutex.bind({});
		const first = mutex.tryAcquire();
		expect(first).toMatchObject({ acquired: true, reentrant: false });
		expect(mutex.tryAcquire()).toEqual({ acquired: false, reason: "held" });
		expect(mutex.tryAcquire({ reentrant: false })).toEqual({ acquired: false, reason: "held" });
		expect(emits).toHaveBeenCalledTimes(1);
	});

	it("a re-entrant acquisition gets its own token, and the group stays held until every token is released", () => {
		const bus = createEventBus();
		const session = {};
		const mutex = new WorkflowMutex(bus);
		mutex.bind(session);
		const outer = mutex.tryAcquire();
		const inner = mutex.tryAcquire({ reentrant: true });
		if (!outer.acquired || !inner.acquired) throw new Error("not acquired");
		expect(inner.reentrant).toBe(true);
		expect(inner.token).not.toBe(outer.token);
		// The first caller finishes while the nested one still works: the group stays held.
		expect(mutex.release(outer.token)).toBe(true);
		expect(mutex.held).toBe(true);
		const probe = attempt(session);
		bus.emit(WORKFLOW_MUTEX_CHANNEL, probe);
		expect(probe.busy).toBe(true);
		expect(mutex.release(inner.token)).toBe(true);
		expect(mutex.held).toBe(false);
	});

	it("fails with unbound before bind and after unbind", () => {
		const mutex = new WorkflowMutex(createEventBus());
		expect(mutex.tryAcquire()).toEqual({ acquired: false, reason: "unbound" });
		mutex.bind({});
		mutex.unbind();
		expect(mutex.tryAcquire()).toEqual({ acquired: false, reason: "unbound" });
	});

	it("a bus that throws on emit (a stale runtime) fails as unbound, without side effects", () => {
		const mutex = new WorkflowMutex({
			on: () => () => undefined,
			emit() {
				throw new Error("This extension ctx is stale");
			},
		});
		mutex.bind({});
		expect(mutex.tryAcquire()).toEqual({ acquired: false, reason: "unbound" });
		expect(mutex.held).toBe(false);
		expect(mutex.isBusy()).toBe(false);
	});

	it("participants bound to different sessions do not block each other", () => {
		const bus = createEventBus();
		holder(bus, {});
		const other = new WorkflowMutex(bus);
		other.bind({});
		expect(other.tryAcquire().acquired).toBe(true);
	});

	it("participants of different groups do not block each other", () => {
		const bus = createEventBus();
		const session = {};
		holder(bus, session);
		const other = new WorkflowMutex(bus, { group: "review" });
		other.bind(session);
		expect(other.tryAcquire().acquired).toBe(true);
	});

	it("two participants on one bus: exactly one holder, whichever acquires first", () => {
		for (const order of [
			[0, 1],
			[1, 0],
		]) {
			const bus = createEventBus();
			const session = {};
			const participants = [new WorkflowMutex(bus), new WorkflowMutex(bus)];
			for (const participant of participants) participant.bind(session);
			const results = order.map((index) => participants[index]?.tryAcquire().acquired);
			expect(results).toEqual([true, false]);
			expect(participants.filter((participant) => participant.held)).toHaveLength(1);
		}
	});
});

describe("responder", () => {
	const hostile = (): unknown[] => {
		const throwingProxy = new Proxy(
			{},
			{
				get() {
					throw new Error("hostile getter");
				},
				set() {
					throw new Error("hostile setter");
				},
			},
		);
		const revocable = Proxy.revocable({}, {});
		revocable.revoke();
		const getterBomb = Object.defineProperty({}, "session", {
			get() {
				throw new Error("boom");
			},
		});
		return [
			undefined,
			null,
			"workflow",
			1,
			true,
			Symbol("x"),
			() => undefined,
			[],
			{},
			{ session: {} },
			{ group: AGENT_WORKFLOW_GROUP },
			throwingProxy,
			revocable.proxy,
			getterBomb,
		];
	};

	it("malformed payloads, including a throwing Proxy, never make the listener throw", () => {
		const bus = strictBus();
		holder(bus, {});
		for (const payload of hostile()) expect(() => bus.emit(WORKFLOW_MUTEX_CHANNEL, payload)).not.toThrow();
	});

	it("a Proxy that matches the held session but throws on set does not make the listener throw", () => {
		const bus = strictBus();
		const session = {};
		holder(bus, session);
		const target = attempt(session);
		const proxy = new Proxy(target, {
			set() {
				throw new Error("no writes");
			},
		});
		expect(() => bus.emit(WORKFLOW_MUTEX_CHANNEL, proxy)).not.toThrow();
		expect(target.busy).toBe(false);
	});

	it("a frozen payload for the held session does not make the listener throw", () => {
		const bus = strictBus();
		const session = {};
		holder(bus, session);
		const frozen = Object.freeze(attempt(session));
		expect(() => bus.emit(WORKFLOW_MUTEX_CHANNEL, frozen)).not.toThrow();
		expect(frozen.busy).toBe(false);
	});

	it("an array carrying the fields is not an attempt", () => {
		const bus = strictBus();
		const session = {};
		holder(bus, session);
		const array = Object.assign([], attempt(session));
		bus.emit(WORKFLOW_MUTEX_CHANNEL, array);
		expect(array.busy).toBe(false);
	});

	it("a well-formed attempt for the bound session and held group is marked busy", () => {
		const bus = strictBus();
		const session = {};
		holder(bus, session);
		const payload = attempt(session);
		bus.emit(WORKFLOW_MUTEX_CHANNEL, payload);
		expect(payload.busy).toBe(true);
	});

	it("a foreign session is left untouched", () => {
		const bus = strictBus();
		holder(bus, {});
		const payload = attempt({});
		bus.emit(WORKFLOW_MUTEX_CHANNEL, payload);
		expect(payload.busy).toBe(false);
	});

	it("a foreign group is left untouched", () => {
		const bus = strictBus();
		const session = {};
		holder(bus, session);
		const payload = attempt(session, "other-group");
		bus.emit(WORKFLOW_MUTEX_CHANNEL, payload);
		expect(payload.busy).toBe(false);
	});

	it("busy that is not exactly false is left untouched (busy only ever goes to true)", () => {
		const bus = strictBus();
		const session = {};
		holder(bus, session);
		for (const busy of ["false", 0, undefined, true]) {
			const payload = { session, group: AGENT_WORKFLOW_GROUP, busy };
			bus.emit(WORKFLOW_MUTEX_CHANNEL, payload);
			expect(payload.busy).toBe(busy);
		}
	});

	it("a participant that does not hold the group touches nothing", () => {
		const bus = strictBus();
		const session = {};
		const idle = new WorkflowMutex(bus);
		idle.bind(session);
		const payload = attempt(session);
		bus.emit(WORKFLOW_MUTEX_CHANNEL, payload);
		expect(payload.busy).toBe(false);
	});
});

describe("recheck after emit (fail closed)", () => {
	it("a listener that rebinds the session during emit makes the attempt fail, with no ownership", () => {
		const bus = createEventBus();
		const mutex = new WorkflowMutex(bus);
		bus.on(WORKFLOW_MUTEX_CHANNEL, () => mutex.bind({}));
		mutex.bind({});
		expect(mutex.tryAcquire()).toEqual({ acquired: false, reason: "rebound" });
		expect(mutex.held).toBe(false);
	});

	it("a listener that rebinds to the same session during emit still fails (the generation moved)", () => {
		const bus = createEventBus();
		const mutex = new WorkflowMutex(bus);
		const session = {};
		bus.on(WORKFLOW_MUTEX_CHANNEL, () => mutex.bind(session));
		mutex.bind(session);
		expect(mutex.tryAcquire()).toEqual({ acquired: false, reason: "rebound" });
		expect(mutex.held).toBe(false);
	});

	it("a listener that unbinds during emit makes the attempt fail", () => {
		const bus = createEventBus();
		const mutex = new WorkflowMutex(bus);
		bus.on(WORKFLOW_MUTEX_CHANNEL, () => mutex.unbind());
		mutex.bind({});
		expect(mutex.tryAcquire()).toEqual({ acquired: false, reason: "rebound" });
	});

	it("a listener that disposes the participant during emit makes the attempt fail", () => {
		const bus = createEventBus();
		const mutex = new WorkflowMutex(bus);
		bus.on(WORKFLOW_MUTEX_CHANNEL, () => mutex.dispose());
		mutex.bind({});
		expect(mutex.tryAcquire()).toEqual({ acquired: false, reason: "disposed" });
		expect(mutex.held).toBe(false);
	});

	it("a listener that rewrites session or group makes the attempt fail closed", () => {
		for (const tamper of [
			(payload: Record<string, unknown>) => {
				payload.session = {};
			},
			(payload: Record<string, unknown>) => {
				payload.group = "changed";
			},
			(payload: Record<string, unknown>) => {
				payload.busy = "yes";
			},
			(payload: Record<string, unknown>) => {
				Object.defineProperty(payload, "busy", {
					get() {
						throw new Error("boom");
					},
				});
			},
		]) {
			const bus = createEventBus();
			bus.on(WORKFLOW_MUTEX_CHANNEL, (payload) => tamper(payload as Record<string, unknown>));
			const mutex = new WorkflowMutex(bus);
			mutex.bind({});
			expect(mutex.tryAcquire()).toEqual({ acquired: false, reason: "busy" });
			expect(mutex.held).toBe(false);
		}
	});

	it("an async listener's post-await part does not count", async () => {
		const bus = createEventBus();
		const payloads: WorkflowMutexAttempt[] = [];
		bus.on(WORKFLOW_MUTEX_CHANNEL, async (payload) => {
			await Promise.resolve();
			(payload as WorkflowMutexAttempt).busy = true;
			payloads.push(payload as WorkflowMutexAttempt);
		});
		const mutex = new WorkflowMutex(bus);
		mutex.bind({});
		const result = mutex.tryAcquire();
		expect(result.acquired).toBe(true);
		await flushMicrotasks();
		// The late write landed on the old payload, but ownership was decided synchronously.
		expect(payloads[0]?.busy).toBe(true);
		expect(mutex.held).toBe(true);
	});

	it("an async listener's synchronous part (before its first await) does count", () => {
		const bus = createEventBus();
		bus.on(WORKFLOW_MUTEX_CHANNEL, async (payload) => {
			(payload as WorkflowMutexAttempt).busy = true;
			await Promise.resolve();
		});
		const mutex = new WorkflowMutex(bus);
		mutex.bind({});
		expect(mutex.tryAcquire()).toEqual({ acquired: false, reason: "busy" });
	});
});

describe("release, binding and dispose", () => {
	it("a stale release after a re-acquire cannot clear the newer owner", () => {
		const bus = createEventBus();
		const mutex = new WorkflowMutex(bus);
		mutex.bind({});
		const old = mutex.tryAcquire();
		if (!old.acquired) throw new Error("not acquired");
		expect(mutex.release(old.token)).toBe(true);
		const current = mutex.tryAcquire();
		if (!current.acquired) throw new Error("not acquired");
		expect(current.token).not.toBe(old.token);
		expect(mutex.release(old.token)).toBe(false);
		expect(mutex.held).toBe(true);
		expect(mutex.release(current.token)).toBe(true);
		expect(mutex.held).toBe(false);
	});

	it("release needs the acquisition's token: no token, a released one, another participant's or a foreign symbol does nothing", () => {
		const bus = createEventBus();
		const session = {};
		const mutex = new WorkflowMutex(bus);
		mutex.bind(session);
		const other = new WorkflowMutex(bus);
		other.bind({});
		const foreign = other.tryAcquire();
		const mine = mutex.tryAcquire();
		if (!mine.acquired || !foreign.acquired) throw new Error("not acquired");
		expect(mutex.release(undefined as unknown as symbol)).toBe(false);
		expect(mutex.release(Symbol("agent-workflow-owner"))).toBe(false);
		expect(mutex.release(foreign.token)).toBe(false);
		expect(mutex.held).toBe(true);
		expect(other.held).toBe(true);
		expect(mutex.holds(mine.token)).toBe(true);
		expect(mutex.release(mine.token)).toBe(true);
		expect(mutex.holds(mine.token)).toBe(false);
		expect(mutex.release(mine.token)).toBe(false);
	});

	it("a token from before a rebind does nothing: binding another session drops every acquisition", () => {
		const mutex = new WorkflowMutex(createEventBus());
		mutex.bind({});
		const before = mutex.tryAcquire();
		if (!before.acquired) throw new Error("not acquired");
		mutex.bind({});
		const after = mutex.tryAcquire();
		if (!after.acquired) throw new Error("not acquired");
		expect(mutex.release(before.token)).toBe(false);
		expect(mutex.holds(after.token)).toBe(true);
	});

	it("after release the group is free for another participant", () => {
		const bus = createEventBus();
		const session = {};
		const first = holder(bus, session);
		const second = new WorkflowMutex(bus);
		second.bind(session);
		expect(second.tryAcquire().acquired).toBe(false);
		first.release(first.token);
		expect(second.tryAcquire().acquired).toBe(true);
	});

	it("every bind and unbind moves the generation", () => {
		const mutex = new WorkflowMutex(createEventBus());
		const start = mutex.generation;
		mutex.bind({});
		mutex.unbind();
		mutex.bind({});
		expect(mutex.generation).toBe(start + 3);
	});

	it("binding another session drops ownership of the old one", () => {
		const bus = createEventBus();
		const first = {};
		const mutex = holder(bus, first);
		mutex.bind({});
		expect(mutex.held).toBe(false);
		const probe = attempt(first);
		bus.emit(WORKFLOW_MUTEX_CHANNEL, probe);
		expect(probe.busy).toBe(false);
	});

	it("unbind releases: the old session's group is free", () => {
		const bus = createEventBus();
		const session = {};
		const mutex = holder(bus, session);
		mutex.unbind();
		expect(mutex.held).toBe(false);
		const probe = attempt(session);
		bus.emit(WORKFLOW_MUTEX_CHANNEL, probe);
		expect(probe.busy).toBe(false);
	});

	it("dispose releases, stops answering, refuses to acquire and is idempotent", () => {
		const bus = createEventBus();
		const session = {};
		const mutex = holder(bus, session);
		mutex.dispose();
		mutex.dispose();
		expect(mutex.held).toBe(false);
		expect(mutex.session).toBeUndefined();
		mutex.bind(session);
		expect(mutex.tryAcquire()).toEqual({ acquired: false, reason: "disposed" });
		const probe = attempt(session);
		bus.emit(WORKFLOW_MUTEX_CHANNEL, probe);
		expect(probe.busy).toBe(false);
		expect(mutex.isBusy()).toBe(false);
	});

	it("dispose tolerates an unsubscribe that throws (an invalidated runtime)", () => {
		const mutex = new WorkflowMutex({
			emit: () => undefined,
			on: () => () => {
				throw new Error("stale");
			},
		});
		expect(() => mutex.dispose()).not.toThrow();
	});

	it("isBusy probes without acquiring", () => {
		const bus = createEventBus();
		const session = {};
		const other = new WorkflowMutex(bus);
		other.bind(session);
		expect(other.isBusy()).toBe(false);
		const owner = holder(bus, session);
		expect(other.isBusy()).toBe(true);
		expect(other.held).toBe(false);
		expect(owner.isBusy()).toBe(true);
	});
});
