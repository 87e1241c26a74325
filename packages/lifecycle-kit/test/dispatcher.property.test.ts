/**
 * Property tests for the idle dispatcher over random event orders. fast-check prints the seed and
 * the shrunk counterexample on failure; the seed is fixed so a run is reproducible.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FlushOutcome, IdleDispatcher, type IdleIntent, type IdleProbe } from "../src/dispatcher.js";
import { LifecycleIdentity } from "../src/identity.js";
import { type Deferred, deferred, flushMicrotasks } from "../src/testing/index.js";

const SEED = 20_260_611;
const KEYS = ["a", "b", "c"] as const;

type Command =
	| { type: "request"; key: (typeof KEYS)[number]; owner: 0 | 1; throwsSync: boolean }
	| { type: "cancel"; key: (typeof KEYS)[number] }
	| { type: "invalidate"; owner: 0 | 1 }
	| { type: "idle"; value: boolean }
	| { type: "pending"; value: boolean }
	| { type: "flush" }
	| { type: "resolve"; result: "ok" | "false" | "reject" }
	| { type: "tick" };

const command: fc.Arbitrary<Command> = fc.oneof(
	fc.record({
		type: fc.constant("request" as const),
		key: fc.constantFrom(...KEYS),
		owner: fc.constantFrom(0 as const, 1 as const),
		throwsSync: fc.boolean(),
	}),
	fc.record({ type: fc.constant("cancel" as const), key: fc.constantFrom(...KEYS) }),
	fc.record({ type: fc.constant("invalidate" as const), owner: fc.constantFrom(0 as const, 1 as const) }),
	fc.record({ type: fc.constant("idle" as const), value: fc.boolean() }),
	fc.record({ type: fc.constant("pending" as const), value: fc.boolean() }),
	fc.constant({ type: "flush" as const }),
	fc.constant({ type: "flush" as const }),
	fc.record({ type: fc.constantFrom("resolve" as const), result: fc.constantFrom("ok", "false", "reject") }),
	fc.constant({ type: "tick" as const }),
);

/** The part of the dispatcher the model drives. */
type DispatcherLike = Pick<IdleDispatcher, "request" | "cancel" | "flush">;

/** A deliberately broken dispatcher: sends the first queued intent without any check. */
class NaiveDispatcher implements DispatcherLike {
	readonly #queue = new Map<string, IdleIntent>();
	request(intent: IdleIntent): void {
		this.#queue.set(intent.key, intent);
	}
	cancel(key: string): boolean {
		return this.#queue.delete(key);
	}
	async flush(ctx: IdleProbe): Promise<FlushOutcome> {
		const first = this.#queue.values().next();
		if (first.done) return { status: "nothing-eligible" };
		try {
			await first.value.send(ctx);
		} catch {
			// ignored
		}
		return { status: "sent", key: first.value.key };
	}
}

function property(makeDispatcher: () => DispatcherLike, onFinal: (count: number) => void = () => {}) {
	return fc.asyncProperty(fc.array(command, { minLength: 4, maxLength: 50, size: "max" }), async (steps) => {
		const world = new World(makeDispatcher());
		for (const step of steps) await world.apply(step);
		onFinal((await world.idleReturns()).length);
		for (const [id, count] of world.successes)
			if (count > 1) world.violations.push(`#${id} sent successfully ${count} times`);
		expect(world.violations).toEqual([]);
	});
}

interface Send {
	readonly id: number;
	readonly key: string;
	readonly gate: Deferred<boolean>;
}

/** The world the dispatcher runs in, and the bookkeeping the invariants are checked against. */
class World {
	idle = true;
	pending = false;
	/** Set in the final phase: sends succeed at once. */
	autoSucceed = false;
	readonly owners = [new LifecycleIdentity("o0"), new LifecycleIdentity("o1")];
	readonly dispatcher: DispatcherLike;
	readonly ctx: IdleProbe = { isIdle: () => this.idle, hasPendingMessages: () => this.pending };
	/** The intent id each key should deliver, if any (cleared by cancel and by a successful send). */
	readonly outstanding = new Map<string, { id: number; owner: number; generation: number }>();
	readonly successes = new Map<number, number>();
	readonly inFlight: Send[] = [];
	readonly flushes: Promise<FlushOutcome>[] = [];
	readonly violations: string[] = [];
	nextId = 0;

	constructor(dispatcher: DispatcherLike) {
		this.dispatcher = dispatcher;
		for (const owner of this.owners) owner.apply({ type: "session_start", sessionId: "s" });
	}

	ownerCurrent(owner: number, generation: number): boolean {
		return this.owners[owner]?.snapshot.generation === generation;
	}

	request(key: string, owner: 0 | 1, throwsSync: boolean): void {
		const id = ++this.nextId;
		const identity = this.owners[owner] as LifecycleIdentity;
		const generation = identity.snapshot.generation;
		let thrown = false;
		this.outstanding.set(key, { id, owner, generation });
		this.dispatcher.request({
			key,
			guard: identity.guard(),
			send: () => {
				this.checkSend(id, key);
				if (throwsSync && !thrown && !this.autoSucceed) {
					thrown = true;
					throw new Error("sync failure");
				}
				const gate = deferred<boolean>();
				const send: Send = { id, key, gate };
				this.inFlight.push(send);
				if (this.autoSucceed) this.settle(send, "ok");
				return gate.promise;
			},
		});
	}

	checkSend(id: number, key: string): void {
		const expected = this.outstanding.get(key);
		if (!this.idle) this.violations.push(`send of #${id} while busy`);
		if (this.pending) this.violations.push(`send of #${id} with pending messages`);
		if (!expected || expected.id !== id) this.violations.push(`send of #${id}, which is not outstanding`);
		else if (!this.ownerCurrent(expected.owner, expected.generation))
			this.violations.push(`send of #${id} for a stale owner`);
		if ((this.successes.get(id) ?? 0) > 0) this.violations.push(`second send of #${id} after a success`);
		if (this.inFlight.length > 0) this.violations.push(`send of #${id} while another send is in flight`);
	}

	settle(send: Send, result: "ok" | "false" | "reject"): void {
		this.inFlight.splice(this.inFlight.indexOf(send), 1);
		if (result === "ok") {
			this.successes.set(send.id, (this.successes.get(send.id) ?? 0) + 1);
			if (this.outstanding.get(send.key)?.id === send.id) this.outstanding.delete(send.key);
			send.gate.resolve(true);
		} else if (result === "false") send.gate.resolve(false);
		else send.gate.reject(new Error("async failure"));
	}

	async apply(step: Command): Promise<void> {
		switch (step.type) {
			case "request":
				return this.request(step.key, step.owner, step.throwsSync);
			case "cancel":
				this.outstanding.delete(step.key);
				this.dispatcher.cancel(step.key);
				return;
			case "invalidate":
				this.owners[step.owner]?.invalidate();
				return;
			case "idle":
				this.idle = step.value;
				return;
			case "pending":
				this.pending = step.value;
				return;
			case "flush":
				this.flushes.push(this.dispatcher.flush(this.ctx));
				return;
			case "resolve": {
				const oldest = this.inFlight[0];
				if (oldest) this.settle(oldest, step.result);
				return;
			}
			case "tick":
				return flushMicrotasks();
		}
	}

	/** Idle returns: every send under way completes, then flushes run until nothing is eligible. */
	async idleReturns(): Promise<number[]> {
		this.autoSucceed = true;
		while (this.inFlight[0]) this.settle(this.inFlight[0], "ok");
		await Promise.all(this.flushes);
		this.idle = true;
		this.pending = false;
		const expected = [...this.outstanding.values()]
			.filter((entry) => this.ownerCurrent(entry.owner, entry.generation))
			.map((entry) => entry.id);
		const before = new Map(this.successes);
		for (let round = 0; round < KEYS.length + 2; round++) {
			const outcome = await this.dispatcher.flush(this.ctx);
			if (outcome.status === "nothing-eligible") break;
		}
		for (const id of expected) {
			const sentNow = (this.successes.get(id) ?? 0) - (before.get(id) ?? 0);
			if (sentNow !== 1)
				this.violations.push(`eligible intent #${id} sent ${sentNow} times when idle returned`);
		}
		return expected;
	}
}

describe("IdleDispatcher properties (fast-check, random event orders)", () => {
	it("never two sends for one intent, never stale, never busy or pending, and every eligible intent sent exactly once when idle returns", async () => {
		let checkedFinalSends = 0;
		await fc.assert(
			property(
				() => new IdleDispatcher(),
				(count) => {
					checkedFinalSends += count;
				},
			),
			{ seed: SEED, numRuns: 400 },
		);
		// The property must actually exercise the final phase, or it proves nothing.
		expect(checkedFinalSends).toBeGreaterThan(100);
	});

	it("the same property fails for a dispatcher that skips the checks (the test can fail)", async () => {
		const result = await fc.check(
			property(() => new NaiveDispatcher()),
			{ seed: SEED, numRuns: 200 },
		);
		expect(result.failed).toBe(true);
	});
});
