import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { walkProject } from "../src/adapters/project-walk.js";
import { diffWalks } from "../src/core/walk-diff.js";

/** A later walk, as if `seconds` had passed: the tree's times are then old, not racy. */
function later(seconds: number) {
	vi.setSystemTime(Date.now() + seconds * 1000);
}

describe("a walk reuses what did not change (walkProject with the previous walk)", () => {
	let root: string;
	beforeEach(() => {
		vi.useFakeTimers({ toFake: ["Date"] });
		root = mkdtempSync(join(tmpdir(), "pi-jscpd-walk-"));
		mkdirSync(join(root, "src", "a"), { recursive: true });
		mkdirSync(join(root, "src", "b"));
		writeFileSync(join(root, "src", "a", "one.ts"), "export const one = 1;\n");
		writeFileSync(join(root, "src", "b", "two.ts"), "export const two = 2;\n");
	});
	afterEach(() => {
		vi.useRealTimers();
		rmSync(root, { recursive: true, force: true });
	});

	it("keeps an unchanged folder's listing and an unchanged file's signature object once both are old", () => {
		later(10);
		const first = walkProject(root, { trusted: false });
		later(10);
		const second = walkProject(root, { trusted: false, previous: first });
		expect(second.folders.get("src/a")).toBe(first.folders.get("src/a"));
		expect(second.files.get("src/a/one.ts")).toBe(first.files.get("src/a/one.ts"));
		expect(diffWalks(first.files, second.files)).toEqual([]);
	});

	it("sees a file created, deleted or rewritten in place although unchanged folders are not read again", () => {
		later(10);
		const first = walkProject(root, { trusted: false });
		writeFileSync(join(root, "src", "a", "new.ts"), "export const created = 3;\n");
		unlinkSync(join(root, "src", "b", "two.ts"));
		writeFileSync(join(root, "src", "a", "one.ts"), "export const one = 11;\n");
		const second = walkProject(root, { trusted: false, previous: first });
		expect(diffWalks(first.files, second.files)).toEqual(["src/a/new.ts", "src/a/one.ts", "src/b/two.ts"]);
		mkdirSync(join(root, "src", "b", "deeper"));
		writeFileSync(join(root, "src", "b", "deeper", "three.ts"), "export const three = 3;\n");
		const third = walkProject(root, { trusted: false, previous: second });
		expect(diffWalks(second.files, third.files)).toEqual(["src/b/deeper/three.ts"]);
	});

	it("reads a folder again while its times are racy (changed within 2 s of the listing)", () => {
		const first = walkProject(root, { trusted: false });
		const second = walkProject(root, { trusted: false, previous: first });
		expect(second.folders.get("src/a")).not.toBe(first.folders.get("src/a"));
	});

	it("still refuses an ignore file in a folder whose listing is reused", () => {
		mkdirSync(join(root, "src", "a", ".ignore"));
		later(10);
		const first = walkProject(root, { trusted: false });
		later(10);
		const second = walkProject(root, { trusted: false, previous: first });
		expect(second.folders.get("src/a")).toBe(first.folders.get("src/a"));
		expect(second.skipped.map((file) => file.path)).toEqual(["src/a/.ignore"]);
	});
});
