/**
 * The user's newest request quoted in a reset's boot message (src/adapters/last-request.ts): found
 * by walking back only over the entries added since the previous lookup, never the whole session
 * again; a branch that no longer passes the previous leaf, or another session, is walked in full.
 */
import { type SessionEntry, SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { EarlierRequests, LastUserRequest, requestsBeforeResets } from "../src/adapters/last-request.js";
import { FRESH_START_LINE } from "../src/core/texts.js";
import { resetDetails } from "../src/core/window.js";

function user(text: string) {
	return { role: "user" as const, content: [{ type: "text" as const, text }], timestamp: Date.now() };
}

function assistant(text: string) {
	return {
		role: "assistant" as const,
		content: [{ type: "text" as const, text }],
		api: "faux",
		provider: "faux",
		model: "faux",
		usage: {
			input: 0,
			output: 0,
			cacheRead: 0,
			cacheWrite: 0,
			totalTokens: 0,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		},
		stopReason: "stop" as const,
		timestamp: Date.now(),
	};
}

/** A session manager whose entry lookups are counted. */
function counted(session: SessionManager) {
	let lookups = 0;
	const view = {
		getLeafId: () => session.getLeafId(),
		getSessionId: () => session.getSessionId(),
		getEntry: (id: string) => {
			lookups++;
			return session.getEntry(id);
		},
	};
	return { view, lookups: () => lookups, reset: () => (lookups = 0) };
}

describe("the user's request for a boot message", () => {
	it("a later lookup walks back only over the entries added since the previous one", () => {
		const session = SessionManager.inMemory("/tmp");
		session.appendMessage(user("Refactor the parser."));
		for (let i = 0; i < 500; i++) session.appendMessage(assistant(`step ${i}`));
		const requests = new LastUserRequest();
		const probe = counted(session);
		expect(requests.find(probe.view)).toBe("Refactor the parser.");
		expect(probe.lookups()).toBeGreaterThan(500);
		for (let i = 0; i < 10; i++) session.appendMessage(assistant(`more ${i}`));
		probe.reset();
		expect(requests.find(probe.view)).toBe("Refactor the parser.");
		expect(probe.lookups()).toBeLessThanOrEqual(11);
	});

	it("a newer user request after the previous lookup is the one quoted", () => {
		const session = SessionManager.inMemory("/tmp");
		session.appendMessage(user("First request."));
		session.appendMessage(assistant("done"));
		const requests = new LastUserRequest();
		expect(requests.find(session)).toBe("First request.");
		session.appendMessage(user("   "));
		session.appendMessage(user("Second request."));
		session.appendMessage(assistant("ok"));
		expect(requests.find(session)).toBe("Second request.");
		session.appendMessage(assistant("still working"));
		expect(requests.find(session)).toBe("Second request.");
	});

	it("a branch that no longer passes the previous leaf is walked in full", () => {
		const session = SessionManager.inMemory("/tmp");
		const first = session.appendMessage(user("Original request."));
		session.appendMessage(assistant("a"));
		session.appendMessage(user("Request on the old branch."));
		session.appendMessage(assistant("b"));
		const requests = new LastUserRequest();
		expect(requests.find(session)).toBe("Request on the old branch.");
		session.branch(first);
		session.appendMessage(assistant("c"));
		expect(requests.find(session)).toBe("Original request.");
	});

	it("a session with no user request yet has none, also on later lookups", () => {
		const session = SessionManager.inMemory("/tmp");
		session.appendMessage(assistant("autonomous"));
		const requests = new LastUserRequest();
		expect(requests.find(session)).toBeUndefined();
		session.appendMessage(assistant("more"));
		expect(requests.find(session)).toBeUndefined();
		session.appendMessage(user("Now a request."));
		expect(requests.find(session)).toBe("Now a request.");
	});

	it("another session is walked in full, even when it reuses the cached leaf id", () => {
		const a = SessionManager.inMemory("/tmp");
		a.appendMessage(user("Request in A."));
		const requests = new LastUserRequest();
		expect(requests.find(a)).toBe("Request in A.");
		const b = SessionManager.inMemory("/tmp");
		b.appendMessage(user("Request in B."));
		const leafOfA = a.getLeafId() as string;
		const entryOfB = b.getEntry(b.getLeafId() as string) as SessionEntry;
		const lookalike = {
			getSessionId: () => b.getSessionId(),
			getLeafId: () => leafOfA,
			getEntry: (id: string): SessionEntry | undefined =>
				id === leafOfA ? { ...entryOfB, id: leafOfA, parentId: null } : undefined,
		};
		expect(requests.find(lookalike)).toBe("Request in B.");
	});
});

describe("the user's earlier requests for a boot message (requestsBeforeResets, cached)", () => {
	/** A pi-reset reset that keeps nothing of the window it closes. */
	const reset = (session: SessionManager, summary = "[pi-reset] Context window") =>
		session.appendCompaction(
			summary,
			null,
			1000,
			resetDetails(`w${session.getEntries().length}`, 1, "new_context"),
		);

	it("an autonomous run's later resets walk back only over the entries added since the previous reset", () => {
		const session = SessionManager.inMemory("/tmp");
		session.appendMessage(user("Port the parser to Rust."));
		session.appendMessage(assistant("on it"));
		reset(session);
		session.appendMessage(user("continue"));
		for (let i = 0; i < 500; i++) session.appendMessage(assistant(`step ${i}`));
		const earlier = new EarlierRequests();
		const probe = counted(session);
		expect(earlier.find(probe.view, 4000)).toEqual(["Port the parser to Rust."]);
		expect(probe.lookups()).toBeGreaterThan(500);
		for (let round = 0; round < 3; round++) {
			reset(session);
			for (let i = 0; i < 10; i++) session.appendMessage(assistant(`round ${round} step ${i}`));
			probe.reset();
			expect(earlier.find(probe.view, 4000)).toEqual(["Port the parser to Rust."]);
			expect(probe.lookups()).toBeLessThanOrEqual(12);
			expect(requestsBeforeResets(session, 4000)).toEqual(["Port the parser to Rust."]);
		}
	});

	it("the cached answer gives way to what was added since: a new request, a fresh start, another extension's compaction", () => {
		const session = SessionManager.inMemory("/tmp");
		session.appendMessage(user("Port the parser to Rust."));
		reset(session);
		session.appendMessage(user("continue"));
		session.appendMessage(assistant("working"));
		const earlier = new EarlierRequests();
		expect(earlier.find(session, 4000)).toEqual(["Port the parser to Rust."]);
		reset(session);
		session.appendMessage(user("Now write the docs."));
		expect(earlier.find(session, 4000)).toEqual(requestsBeforeResets(session, 4000));
		expect(earlier.find(session, 4000)).toEqual(["continue", "Port the parser to Rust."]);
		reset(session, `[pi-reset] Context window\n${FRESH_START_LINE}`);
		session.appendMessage(assistant("fresh window"));
		expect(earlier.find(session, 4000)).toEqual(requestsBeforeResets(session, 4000));
		session.appendCompaction("another extension's summary", null, 1000, { theirs: true });
		session.appendMessage(assistant("after their compaction"));
		expect(earlier.find(session, 4000)).toEqual([]);
		expect(requestsBeforeResets(session, 4000)).toEqual([]);
	});
});
