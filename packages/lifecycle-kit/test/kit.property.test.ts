/**
 * Property tests of the kit's lifecycle primitives under random interleavings: idle dispatch with
 * attempt identity (settles, reloads, tree navigation, session replacement, aborted sends), the
 * boundary merge of several owners (goal continuation, reset, checkpoint findings, third parties)
 * and the workflow mutex under contention. Seeded (the shared plan, @pi-lifecycle/seed-plan); fast-check prints the seed and
 * the shrunk schedule on failure.
 */
import { createEventBus } from "@earendil-works/pi-coding-agent";
import { runs, SCHEDULES, Tally } from "@pi-lifecycle/seed-plan";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
	applyProposal,
	IdleDispatcher,
	type IdleProbe,
	isResetDraft,
	LifecycleIdentity,
	WINDOW_KEY,
	WORKFLOW_MUTEX_CHANNEL,
	WorkflowMutex,
} from "../src/index.js";
import { type Deferred, deferred } from "../src/testing/index.js";

const tally = new Tally();
/** Coverage counters: the properties must exercise what they claim to check. */
const seen = { sends: 0, restores: 0, staleFlushes: 0, resetsMerged: 0, contended: 0 };
afterAll(() => {
	tally.covered("kit.property", seen);
	tally.verify("kit.property", {
		kitDispatcher: SCHEDULES.kitDispatcher,
		kitBoundaryMerge: SCHEDULES.kitBoundaryMerge,
		kitMutex: SCHEDULES.kitMutex,
	});
});

// ---------------------------------------------------------------------------------------------
// Idle dispatch + identity
// ---------------------------------------------------------------------------------------------

const KEYS = ["goal:wake", "goal:resume", "other"] as const;
type Key = (typeof KEYS)[number];

type DispatchCommand =
	| { readonly t: "request"; readonly key: Key; readonly eligible: boolean }
	| { readonly t: "cancel"; readonly key: Key }
	| { readonly t: "eligible"; readonly key: Key; readonly value: boolean }
	| { readonly t: "idle"; readonly value: boolean }
	| { readonly t: "pending"; readonly value: boolean }
	| { readonly t: "flush"; readonly stale: boolean }
	| { readonly t: "settle"; readonly result: "ok" | "false" | "reject" }
	| { readonly t: "run"; readonly step: "before_agent_start" | "agent_start" | "agent_settled" }
	| { readonly t: "tree" | "reload" | "replace" | "invalidate" };

const dispatchCommand: fc.Arbitrary<DispatchCommand> = fc.oneof(
	{
		weight: 4,
		arbitrary: fc.record({
			t: fc.constant("request" as const),
			key: fc.constantFrom(...KEYS),
			eligible: fc.boolean(),
		}),
	},
	{ weight: 1, arbitrary: fc.record({ t: fc.constant("cancel" as const), key: fc.constantFrom(...KEYS) }) },
	{
		weight: 1,
		arbitrary: fc.record({
			t: fc.constant("eligible" as const),
			key: fc.constantFrom(...KEYS),
			value: fc.boolean(),
		}),
	},
	{ weight: 2, arbitrary: fc.record({ t: fc.constant("idle" as const), value: fc.boolean() }) },
	{ weight: 1, arbitrary: fc.record({ t: fc.constant("pending" as const), value: fc.boolean() }) },
	{ weight: 5, arbitrary: fc.record({ t: fc.constant("flush" as const), stale: fc.boolean() }) },
	{
		weight: 3,
		arbitrary: fc.record({
			t: fc.constant("settle" as const),
			result: fc.constantFrom("ok" as const, "false" as const, "reject" as const),
		}),
	},
	{
		weight: 2,
		arbitrary: fc.record({
			t: fc.constant("run" as const),
			step: fc.constantFrom("before_agent_start" as const, "agent_start" as const, "agent_settled" as const),
		}),
	},
	{
		weight: 1,
		arbitrary: fc.record({
			t: fc.constantFrom("tree" as const, "reload" as const, "replace" as const, "invalidate" as const),
		}),
	},
);

interface Runtime {
	readonly identity: LifecycleIdentity;
	readonly dispatcher: IdleDispatcher<IdleProbe>;
	alive: boolean;
}

interface InFlight {
	readonly runtime: Runtime;
	readonly key: Key;
	readonly answer: Deferred<boolean>;
	/** The model's view: whether the intent must come back if this send fails. */
	restorable: boolean;
}

async function runDispatchSchedule(commands: readonly DispatchCommand[]): Promise<void> {
	let sessionCounter = 1;
	let idle = true;
	let pending = false;
	const eligible: Record<Key, boolean> = { "goal:wake": true, "goal:resume": true, other: true };
	const runtimes: Runtime[] = [];
	const inFlight: InFlight[] = [];
	/** Model: keys of the current runtime that are queued, current and not in flight. */
	const model = new Set<Key>();
	let sentDuringFlush = false;

	const startRuntime = (sessionId: string): Runtime => {
		const runtime: Runtime = {
			identity: new LifecycleIdentity(`n${runtimes.length}`),
			dispatcher: new IdleDispatcher(),
			alive: true,
		};
		runtime.identity.apply({ type: "session_start", sessionId });
		runtimes.push(runtime);
		return runtime;
	};
	const endRuntime = (runtime: Runtime) => {
		runtime.identity.apply({ type: "session_shutdown" });
		runtime.alive = false;
		model.clear();
		for (const flight of inFlight) if (flight.runtime === runtime) flight.restorable = false;
	};
	let current = startRuntime("s1");
	const probeOf = (runtime: Runtime): IdleProbe => ({
		isIdle() {
			// Pi's ctx of a replaced or reloaded runtime throws.
			if (!runtime.alive) throw new Error("stale ctx");
			return idle;
		},
		hasPendingMessages() {
			if (!runtime.alive) throw new Error("stale ctx");
			return pending;
		},
	});

	for (const command of commands) {
		switch (command.t) {
			case "request": {
				const runtime = current;
				const guard = runtime.identity.guard("generation");
				eligible[command.key] = command.eligible;
				const key = command.key;
				runtime.dispatcher.request({
					key,
					guard,
					eligible: () => eligible[key],
					send: () => {
						// Invariants at the moment a run would start.
						expect(runtime.alive, "a stale runtime sent").toBe(true);
						expect(guard.isCurrent(), "a stale intent was sent").toBe(true);
						expect(idle && !pending, "sent while busy or with queued user messages").toBe(true);
						expect(eligible[key], "an ineligible intent was sent").toBe(true);
						expect(
							inFlight.filter((f) => f.runtime === runtime),
							"two sends in flight in one runtime",
						).toHaveLength(0);
						expect(model.has(key), `sent ${key}, which the model does not hold`).toBe(true);
						model.delete(key);
						const answer = deferred<boolean>();
						inFlight.push({ runtime, key, answer, restorable: true });
						sentDuringFlush = true;
						seen.sends++;
						return answer.promise;
					},
				});
				model.add(key);
				// A newer request replaces an in-flight one's restore.
				for (const flight of inFlight)
					if (flight.runtime === runtime && flight.key === key) flight.restorable = false;
				break;
			}
			case "cancel":
				current.dispatcher.cancel(command.key);
				model.delete(command.key);
				for (const flight of inFlight)
					if (flight.runtime === current && flight.key === command.key) flight.restorable = false;
				break;
			case "eligible":
				eligible[command.key] = command.value;
				break;
			case "idle":
				idle = command.value;
				break;
			case "pending":
				pending = command.value;
				break;
			case "flush": {
				const target = command.stale && runtimes.length > 1 ? (runtimes[0] as Runtime) : current;
				if (target !== current) seen.staleFlushes++;
				const busyHere = inFlight.some((f) => f.runtime === target);
				const shouldSend =
					target.alive &&
					target === current &&
					idle &&
					!pending &&
					!busyHere &&
					[...model].some((key) => eligible[key]);
				sentDuringFlush = false;
				const outcome = target.dispatcher.flush(probeOf(target));
				// The selection and the send happen synchronously inside flush().
				expect(sentDuringFlush, "an eligible intent was not sent (lost or delayed)").toBe(shouldSend);
				void outcome;
				break;
			}
			case "settle": {
				const flight = inFlight.shift();
				if (!flight) break;
				if (command.result === "ok") flight.answer.resolve(true);
				else if (command.result === "false") flight.answer.resolve(false);
				else flight.answer.reject(new Error("send failed"));
				for (let i = 0; i < 4; i++) await Promise.resolve();
				const restore =
					command.result !== "ok" && flight.restorable && flight.runtime === current && current.alive;
				if (restore) {
					model.add(flight.key);
					seen.restores++;
				}
				break;
			}
			case "run":
				current.identity.apply({ type: command.step });
				break;
			case "tree":
				current.identity.apply({ type: "session_tree" });
				model.clear();
				for (const flight of inFlight) if (flight.runtime === current) flight.restorable = false;
				break;
			case "invalidate":
				current.identity.invalidate();
				model.clear();
				for (const flight of inFlight) if (flight.runtime === current) flight.restorable = false;
				break;
			case "reload": {
				const sessionId = current.identity.snapshot.sessionId;
				endRuntime(current);
				current = startRuntime(sessionId);
				break;
			}
			case "replace":
				endRuntime(current);
				current = startRuntime(`s${++sessionCounter}`);
				break;
		}
		// Never lost: every intent the model holds is queued in the current dispatcher.
		for (const key of model) expect(current.dispatcher.has(key), `intent ${key} was lost`).toBe(true);
	}
	// Drain: every outstanding send completes, no flush ever rejects.
	for (const flight of inFlight.splice(0)) flight.answer.resolve(true);
	await Promise.resolve();
}

describe("kit: idle dispatch under random lifecycle interleavings", () => {
	it("never sends for a stale, replaced or reloaded owner, never twice at once, never loses an eligible intent", async () => {
		await fc.assert(
			fc.asyncProperty(
				fc.array(dispatchCommand, { minLength: 1, maxLength: 40, size: "max" }),
				async (commands) => {
					await runDispatchSchedule(commands);
					tally.hit("kitDispatcher");
				},
			),
			runs(1, SCHEDULES.kitDispatcher),
		);
	});
});

// ---------------------------------------------------------------------------------------------
// Boundary merge across owners
// ---------------------------------------------------------------------------------------------

type Draft = Parameters<typeof applyProposal>[0]["entries"][number];

interface OwnerProposal {
	readonly owner: string;
	readonly drafts: Draft[];
	readonly continue: boolean;
}

function message(owner: string, tag: string, closing = false): Draft {
	return {
		type: "custom_message",
		customType: `${owner}/${tag}`,
		content: `${owner} ${tag}`,
		display: false,
		details: closing ? { [WINDOW_KEY]: "closing", tag } : { tag },
	} as Draft;
}

function resetCompaction(owner: string): Draft {
	return {
		type: "compaction",
		summary: `${owner} reset`,
		firstKeptEntryId: null,
		details: { owner },
	} as Draft;
}

/** The proposals each owner can make at one boundary. */
const ownerProposal = fc.oneof(
	// pi-goal: a contract revision and one continuation, continue: true.
	fc.record({
		owner: fc.constant("pi-goal"),
		drafts: fc
			.boolean()
			.map((contract) => [
				...(contract ? [message("pi-goal", "contract")] : []),
				message("pi-goal", "continuation"),
			]),
		continue: fc.constant(true),
	}),
	// pi-reset: an optional closing warning, the retain-none compaction and its boot message.
	fc.record({
		owner: fc.constant("pi-reset"),
		drafts: fc
			.boolean()
			.map((warning) => [
				...(warning ? [message("pi-reset", "warning", true)] : []),
				resetCompaction("pi-reset"),
				message("pi-reset", "boot"),
			]),
		continue: fc.boolean(),
	}),
	// pi-jscpd: findings for the next request.
	fc.record({
		owner: fc.constant("pi-jscpd"),
		drafts: fc.constant([message("pi-jscpd", "findings")]),
		continue: fc.boolean(),
	}),
	// A third party: state for the closing window and a reset of its own (a second reset is dropped).
	fc.record({
		owner: fc.constant("third"),
		drafts: fc
			.tuple(fc.boolean(), fc.boolean())
			.map(([closing, reset]) => [
				...(closing ? [message("third", "state", true)] : []),
				...(reset ? [resetCompaction("third"), message("third", "boot")] : []),
			]),
		continue: fc.boolean(),
	}),
) as fc.Arbitrary<OwnerProposal>;

function tagOf(draft: Draft): string {
	return draft.type === "custom_message"
		? draft.customType
		: `compaction:${(draft as { summary: string }).summary}`;
}

describe("kit: boundary merge of several owners in any handler order", () => {
	it("one reset at most, its boot after it, new-window drafts after it, closing drafts before, continue is an OR", () => {
		fc.assert(
			fc.property(
				fc.uniqueArray(ownerProposal, { minLength: 1, maxLength: 4, selector: (p) => p.owner }),
				fc.boolean(),
				(proposals, initialContinue) => {
					let state: { entries: Draft[]; continue: boolean } = { entries: [], continue: initialContinue };
					for (const proposal of proposals) {
						const result = applyProposal(state, { drafts: proposal.drafts, continue: proposal.continue });
						if (result)
							state = {
								entries: [...(result.entries ?? state.entries)],
								continue: result.continue ?? state.continue,
							};
					}
					const entries = state.entries;
					const resets = entries.filter(isResetDraft);
					const firstReset = proposals.find((p) => p.drafts.some(isResetDraft));
					// One boundary, one new window.
					expect(resets.length).toBe(firstReset ? 1 : 0);
					// continue is an OR across owners: never withdrawn, never invented.
					expect(state.continue).toBe(initialContinue || proposals.some((p) => p.continue));
					// Nothing is lost except a second owner's reset and nothing is duplicated.
					const expected = proposals
						.flatMap((p) => (p === firstReset ? p.drafts : p.drafts.filter((d) => !isResetDraft(d))))
						.map(tagOf)
						.sort();
					expect(entries.map(tagOf).sort()).toEqual(expected);
					// The boot text of the second owner's dropped reset would be orphaned: only ever the
					// winning owner's boot may announce the new window.
					if (firstReset) {
						const resetAt = entries.findIndex(isResetDraft);
						seen.resetsMerged++;
						const bootAt = entries.findIndex((d) => tagOf(d) === `${firstReset.owner}/boot`);
						expect(bootAt, "a reset was committed without its boot message").toBeGreaterThan(resetAt);
						entries.forEach((draft, index) => {
							const closing =
								(draft as { details?: Record<string, unknown> }).details?.[WINDOW_KEY] === "closing";
							if (isResetDraft(draft)) return;
							if (closing) expect(index, `${tagOf(draft)} left its window`).toBeLessThan(resetAt);
							else expect(index, `${tagOf(draft)} would be erased by the reset`).toBeGreaterThan(resetAt);
						});
					}
					// Exactly one goal continuation per boundary, whatever the order.
					expect(entries.filter((d) => tagOf(d) === "pi-goal/continuation").length).toBeLessThanOrEqual(1);
					// Each owner's drafts keep their relative order.
					for (const proposal of proposals) {
						const own = entries.map(tagOf).filter((tag) => proposal.drafts.map(tagOf).includes(tag));
						const kept = proposal.drafts.map(tagOf).filter((tag) => own.includes(tag));
						expect(own).toEqual(kept);
					}
					tally.hit("kitBoundaryMerge");
				},
			),
			runs(2, SCHEDULES.kitBoundaryMerge),
		);
	});
});

// ---------------------------------------------------------------------------------------------
// Mutex contention
// ---------------------------------------------------------------------------------------------

type MutexCommand =
	| { readonly t: "bind"; readonly p: number; readonly s: number }
	| { readonly t: "unbind" | "acquire" | "dispose" | "probe"; readonly p: number }
	| { readonly t: "release"; readonly p: number; readonly stale: boolean }
	| { readonly t: "hostile"; readonly mode: "throw" | "busy-string" | "rewrite-session" | "freeze" };

const P = 4;
const mutexCommand: fc.Arbitrary<MutexCommand> = fc.oneof(
	fc.record({ t: fc.constant("bind" as const), p: fc.nat(P - 1), s: fc.nat(1) }),
	fc.record({
		t: fc.constantFrom(
			"unbind" as const,
			"acquire" as const,
			"acquire" as const,
			"dispose" as const,
			"probe" as const,
		),
		p: fc.nat(P - 1),
	}),
	fc.record({ t: fc.constant("release" as const), p: fc.nat(P - 1), stale: fc.boolean() }),
	fc.record({
		t: fc.constant("hostile" as const),
		mode: fc.constantFrom(
			"throw" as const,
			"busy-string" as const,
			"rewrite-session" as const,
			"freeze" as const,
		),
	}),
);

describe("kit: workflow mutex under contention", () => {
	it("never two holders of agent-workflow in one session, stale releases never free a newer owner", () => {
		fc.assert(
			fc.property(fc.array(mutexCommand, { minLength: 1, maxLength: 50, size: "max" }), (commands) => {
				const bus = createEventBus();
				const sessions = [{ name: "s0" }, { name: "s1" }];
				const participants = Array.from({ length: P }, () => new WorkflowMutex(bus));
				const tokens: (symbol | undefined)[] = Array.from({ length: P }, () => undefined);
				const oldTokens: symbol[] = [];
				// Everyone starts bound to the same session: contention from the first command.
				for (const p of participants) p.bind(sessions[0] as object);
				const quiet = console.error;
				for (const command of commands) {
					switch (command.t) {
						case "bind": {
							const p = participants[command.p] as WorkflowMutex;
							p.bind(sessions[command.s] as object);
							break;
						}
						case "unbind":
							(participants[command.p] as WorkflowMutex).unbind();
							break;
						case "dispose":
							(participants[command.p] as WorkflowMutex).dispose();
							break;
						case "probe":
							(participants[command.p] as WorkflowMutex).isBusy();
							break;
						case "acquire": {
							const result = (participants[command.p] as WorkflowMutex).tryAcquire();
							if (!result.acquired && result.reason === "busy") seen.contended++;
							if (result.acquired) {
								const previous = tokens[command.p];
								if (previous && previous !== result.token) oldTokens.push(previous);
								tokens[command.p] = result.token;
							}
							break;
						}
						case "release": {
							const p = participants[command.p] as WorkflowMutex;
							const stale = command.stale ? oldTokens.at(-1) : undefined;
							if (stale) {
								const heldBefore = p.held;
								p.release(stale);
								expect(p.held, "a stale release freed a newer owner").toBe(heldBefore);
							} else {
								const token = tokens[command.p];
								if (token) p.release(token);
							}
							break;
						}
						case "hostile": {
							// A hostile participant tampers with attempts; holders must fail closed, never throw.
							console.error = () => {};
							const off = bus.on(WORKFLOW_MUTEX_CHANNEL, (payload: unknown) => {
								const attempt = payload as Record<string, unknown>;
								if (command.mode === "throw") throw new Error("hostile");
								if (command.mode === "busy-string") attempt.busy = "no";
								if (command.mode === "rewrite-session") attempt.session = {};
								if (command.mode === "freeze") Object.freeze(attempt);
							});
							participants.forEach((p, index) => {
								let result: ReturnType<WorkflowMutex["tryAcquire"]> | undefined;
								expect(() => {
									result = p.tryAcquire();
								}).not.toThrow();
								if (result?.acquired) tokens[index] = result.token;
							});
							off();
							console.error = quiet;
							break;
						}
					}
					for (const session of sessions) {
						const holders = participants.filter((p) => p.held && p.session === session);
						expect(holders.length, `two holders in ${session.name}`).toBeLessThanOrEqual(1);
					}
				}
				for (const p of participants) p.dispose();
				tally.hit("kitMutex");
			}),
			runs(3, SCHEDULES.kitMutex),
		);
	});
});
