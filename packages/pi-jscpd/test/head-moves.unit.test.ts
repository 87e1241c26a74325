/** The pure parts of the work-tree move detection (issue 17): refs, the reflog's own commits, the report rebase. */
import { describe, expect, it } from "vitest";
import { ownCommitsOfReflog, parseRefs } from "../src/adapters/head-moves.js";
import { EMPTY_INDEX, isNewLocation, rebaseFromReport } from "../src/core/identity.js";
import type { CloneGroup } from "../src/core/report.js";

const group = (a: string, b: string): CloneGroup => ({
	identity: `${a}|${b}`,
	format: "typescript",
	lines: 3,
	tokens: 30,
	locations: [
		{ path: a, startLine: 1, endLine: 3 },
		{ path: b, startLine: 1, endLine: 3 },
	],
	hashes: [11, 12, 13],
});

describe("head moves", () => {
	it("parseRefs reads HEAD and refs/stash, never a remote's HEAD", () => {
		expect(parseRefs("aaa HEAD\nccc refs/remotes/origin/HEAD\nbbb refs/stash\n")).toEqual({
			head: "aaa",
			stash: "bbb",
		});
		expect(parseRefs(undefined)).toEqual({ head: undefined, stash: undefined });
	});

	it("own commits are reflog commit entries since the session started; checkout, pull, reset and rebase are not", () => {
		const reflog = [
			"HEAD@{200}\tc5\tcommit (amend): fix",
			"HEAD@{200}\tc4\trebase (pick): old work",
			"HEAD@{150}\tc3\tcommit: copy",
			"HEAD@{150}\tc2\tpull: Fast-forward",
			"HEAD@{120}\tc1\tcheckout: moving from main to feature",
			"HEAD@{50}\tc0\tcommit: before the session",
		].join("\n");
		expect([...ownCommitsOfReflog(reflog, 100)].sort()).toEqual(["c3", "c5"]);
	});

	it("rebaseFromReport: a moved file and its partner stop being new, a third copy by the session still is", () => {
		const moved = group("src/a.ts", "src/legacy.ts");
		const copy = group("src/a.ts", "src/copy.ts");
		const base = rebaseFromReport(
			EMPTY_INDEX,
			[moved, copy],
			new Set(["src/legacy.ts"]),
			(p) => p === "src/copy.ts",
		);
		const now = rebaseFromReport(
			EMPTY_INDEX,
			[moved, copy],
			new Set(["src/a.ts", "src/legacy.ts", "src/copy.ts"]),
			() => false,
		);
		expect(isNewLocation(moved, moved.locations[1], now, base)).toBe(false);
		expect(isNewLocation(moved, moved.locations[0], now, base)).toBe(false);
		expect(isNewLocation(copy, copy.locations[1], now, base)).toBe(true);
	});
});
