/** Outside changes saved in the session and replayed with write/edit results (pure). */
import { describe, expect, it } from "vitest";
import { MutationState, type ReplayEntry, replayBranch } from "../src/core/mutations.js";
import {
	MAX_OUTSIDE_PATHS,
	OUTSIDE_CHANGES_ENTRY,
	outsideChangesData,
	outsidePathsOf,
} from "../src/core/outside-entries.js";

const options = { findingsType: "pi-jscpd/findings", canonical: (path: string) => path };

function outside(id: string, data: unknown): ReplayEntry {
	return {
		type: "custom",
		id,
		parentId: null,
		customType: OUTSIDE_CHANGES_ENTRY,
		data,
	} as unknown as ReplayEntry;
}

describe("outside changes saved in the session", () => {
	it("replayed outside changes count as changed this session", () => {
		const state = new MutationState();
		const { mutations } = replayBranch(
			state,
			[
				outside("e1", { version: 1, paths: ["src/b.ts"] }),
				outside("e2", { version: 1, paths: ["src/c.ts"] }),
			],
			options,
		);
		expect([...state.changed].sort()).toEqual(["src/b.ts", "src/c.ts"]);
		expect(mutations).toBe(2);
	});

	it("an unreadable or escaping outside-changes entry records nothing", () => {
		for (const data of [
			null,
			{ version: 2, paths: ["a.ts"] },
			{ version: 1, paths: "a.ts" },
			{ version: 1, paths: ["../outside.ts"] },
			{ version: 1, paths: ["/etc/passwd"] },
			{ version: 1, paths: ["src//a.ts"] },
			{ version: 1, paths: [3] },
		])
			expect(outsidePathsOf(data)).toBeUndefined();
		const state = new MutationState();
		replayBranch(state, [outside("e1", { version: 1, paths: ["../x.ts"] })], options);
		expect(state.changed.size).toBe(0);
	});

	it("a large set is split into bounded entries", () => {
		const paths = Array.from({ length: MAX_OUTSIDE_PATHS + 1 }, (_, i) => `f${i}.ts`);
		const data = outsideChangesData(paths);
		expect(data.map((d) => d.paths.length)).toEqual([MAX_OUTSIDE_PATHS, 1]);
		expect(data.every((d) => outsidePathsOf(d) !== undefined)).toBe(true);
	});
});
