import { describe, expect, it } from "vitest";
import { createScriptedSession, reply } from "../src/testing/index.js";
import { entriesSince, walkBackFromLeaf } from "../src/walk.js";

interface Entry {
	id: string;
	parentId: string | null;
}

function chain(ids: string[], leaf = ids.at(-1) ?? null) {
	const entries = new Map<string, Entry>();
	for (const [i, id] of ids.entries())
		entries.set(id, { id, parentId: i === 0 ? null : (ids[i - 1] as string) });
	let reads = 0;
	return {
		getLeafId: () => leaf,
		getEntry: (id: string) => {
			reads++;
			return entries.get(id);
		},
		get reads() {
			return reads;
		},
	};
}

describe("walkBackFromLeaf", () => {
	it("visits entries from the leaf to the root, newest first", () => {
		expect([...walkBackFromLeaf(chain(["a", "b", "c"]))].map((e) => e.id)).toEqual(["c", "b", "a"]);
	});

	it("reads only the entries it visits when the caller stops early", () => {
		const session = chain(["a", "b", "c", "d", "e"]);
		for (const entry of walkBackFromLeaf(session)) if (entry.id === "d") break;
		expect(session.reads).toBe(2);
	});

	it("stops after limit entries", () => {
		expect([...walkBackFromLeaf(chain(["a", "b", "c"]), { limit: 2 })].map((e) => e.id)).toEqual(["c", "b"]);
	});

	it("starts from `from` when given, and yields nothing in an empty session or for an unknown id", () => {
		expect([...walkBackFromLeaf(chain(["a", "b", "c"]), { from: "b" })].map((e) => e.id)).toEqual(["b", "a"]);
		expect([...walkBackFromLeaf(chain([], null))]).toEqual([]);
		expect([...walkBackFromLeaf(chain(["a"]), { from: "zz" })]).toEqual([]);
	});
});

describe("entriesSince", () => {
	it("returns the entries after the base, oldest first; null means the whole branch", () => {
		const session = chain(["a", "b", "c", "d"]);
		expect(entriesSince(session, "b").map((e) => e.id)).toEqual(["c", "d"]);
		expect(entriesSince(session, "d")).toEqual([]);
		expect(entriesSince(session, null).map((e) => e.id)).toEqual(["a", "b", "c", "d"]);
	});

	it("stops at limit when the base is not reached", () => {
		expect(entriesSince(chain(["a", "b", "c", "d"]), "x", 2).map((e) => e.id)).toEqual(["c", "d"]);
	});

	it("walks Pi's real session manager", async () => {
		const harness = await createScriptedSession({ responses: [reply("one"), reply("two")] });
		try {
			await harness.prompt("first");
			const base = harness.session.sessionManager.getLeafId();
			await harness.prompt("second");
			const manager = harness.session.sessionManager;
			const run = entriesSince(manager, base).map((e) => (e.type === "message" ? e.message.role : e.type));
			expect(run).toEqual(["user", "assistant"]);
			expect([...walkBackFromLeaf(manager)].map((e) => e.id)).toEqual(
				manager
					.getBranch()
					.map((e) => e.id)
					.reverse(),
			);
		} finally {
			await harness.dispose();
		}
	});
});
