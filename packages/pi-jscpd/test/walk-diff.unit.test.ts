import { describe, expect, it } from "vitest";
import { diffWalks, renamedFiles, type WalkedFile } from "../src/core/walk-diff.js";

const file = (ino: number, size = 100, mtimeMs = 1_000, ctimeMs = 1_000): WalkedFile => ({
	size,
	mtimeMs,
	ctimeMs,
	ino,
});
const walk = (entries: Record<string, WalkedFile>) => new Map(Object.entries(entries));

describe("a renamed file keeps its baseline (renamedFiles)", () => {
	const before = walk({ "src/z.ts": file(7), "src/w.ts": file(8) });
	// A rename keeps inode, size and mtime; only ctime moves.
	const after = walk({ "src/y.ts": file(7, 100, 1_000, 2_000), "src/w.ts": file(8), "src/zz.ts": file(9) });
	const changed = diffWalks(before, after);

	it("pairs the created path with the deleted path of the same inode, size and mtime", () => {
		expect([...renamedFiles(before, after, changed, new Set())]).toEqual([["src/y.ts", "src/z.ts"]]);
	});

	it("is no rename when the session wrote or edited either side", () => {
		expect(renamedFiles(before, after, changed, new Set(["src/z.ts"])).size).toBe(0);
		expect(renamedFiles(before, after, changed, new Set(["src/y.ts"])).size).toBe(0);
	});

	it("is no rename when the content changed (mtime, size or racy hash differs)", () => {
		for (const moved of [file(7, 100, 1_500), file(7, 120)]) {
			const later = walk({ "src/y.ts": moved, "src/w.ts": file(8) });
			expect(renamedFiles(before, later, diffWalks(before, later), new Set()).size).toBe(0);
		}
		const hashed = walk({ "src/z.ts": { ...file(7), hash: "a" } });
		const rehashed = walk({ "src/y.ts": { ...file(7), hash: "b" } });
		expect(renamedFiles(hashed, rehashed, diffWalks(hashed, rehashed), new Set()).size).toBe(0);
	});

	it("a copy (new inode) is not a rename, and one deleted file is renamed at most once", () => {
		const copied = walk({ "src/a.ts": file(7), "src/b.ts": file(7), "src/w.ts": file(8) });
		const renamed = renamedFiles(before, copied, diffWalks(before, copied), new Set());
		expect(renamed.size).toBe(1);
		const kept = walk({ "src/z.ts": file(7), "src/c.ts": file(11) });
		expect(renamedFiles(before, kept, diffWalks(before, kept), new Set()).size).toBe(0);
	});
});
