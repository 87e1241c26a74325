/**
 * Focused checks on varied trees (issue 31): each case scans the same tree whole and focused with the
 * real pinned jscpd and expects the same findings, in the untrusted default and in a trusted git
 * repository whose whole scan reads folders the default ignores list (a committed `dist/`).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Detection } from "../src/core/kinds.js";
import { findingLine } from "../src/core/presentation.js";
import {
	duplicatedFunction,
	gitInit,
	remove,
	tempDir,
	wholeAndFocusedFinder,
	writeFiles,
} from "./helpers.js";

const DEFAULT: Detection = { kinds: ["exact", "renamed", "similar"], similarity: 0.7 };
const EXACT: Detection = { kinds: ["exact"], similarity: 0.7 };
const dirs: string[] = [];
afterEach(() => remove(...dirs.splice(0)));

async function setup(
	files: Record<string, string>,
	opts: { trusted?: boolean; git?: boolean; detection?: Detection } = {},
) {
	const detection = opts.detection ?? DEFAULT;
	const root = tempDir("pi-jscpd-auditfocus-");
	dirs.push(root);
	writeFiles(root, files);
	if (opts.git) gitInit(root);
	const find = await wholeAndFocusedFinder(root, detection, Boolean(opts.trusted));
	const both = async (changed: string[]) => {
		const whole = await find(changed, false);
		const focused = await find(changed, true);
		return {
			whole: whole.current.map(findingLine),
			focused: focused.current.map(findingLine),
			scanned: focused.scanned,
			full: focused.full,
		};
	};
	return { root, both };
}

const LINES = Array.from(
	{ length: 12 },
	(_, i) => `\tconst value${i} = compute${i}(input, ${i * 7}, "k${i}");`,
);
function target(): string {
	return `export function target(input: number) {\n${LINES.join("\n")}\n\treturn value0 + value11;\n}\n`;
}
/** Every consecutive pair of target's lines, in 2-line fragments (too short to be a clone). */
function fragments(k: number): string {
	const parts: string[] = [];
	for (let i = 0; i + 1 < LINES.length; i++)
		parts.push(
			`export function f${k}_${i}(input: number) {\n${LINES[i]}\n${LINES[i + 1]}\n\treturn ${k + i};\n}\n`,
		);
	return parts.join("\n");
}

function unrelated(i: number): string {
	const keys = Array.from({ length: 6 }, (_, k) => `\tkey${i}_${k}: "${(i * 31 + k * 7).toString(36)}",`);
	return `export const table${i} = {\n${keys.join("\n")}\n};\nexport const size${i} = ${i} * ${i + 1};\n`;
}
function filler(n: number): Record<string, string> {
	const all: Record<string, string> = {};
	for (let i = 0; i < n; i++) all[`src/lib/u${i}.ts`] = unrelated(i);
	return all;
}

describe("a focused check finds what a whole scan finds", () => {
	it("common line pairs held by many files do not hide the one original", async () => {
		const files: Record<string, string> = { ...filler(60), "src/zz/original.ts": target() };
		for (let k = 0; k < 20; k++) files[`src/a/frag${k}.ts`] = fragments(k);
		const { root, both } = await setup(files, { detection: EXACT });
		writeFiles(root, { "src/new.ts": target().replace("target", "copied") });
		const r = await both(["src/new.ts"]);
		expect(r.whole.length).toBeGreaterThan(0);
		expect(r.focused).toEqual(r.whole);
	}, 120_000);

	it("the index lists what the scan reads: a trusted git repository's committed dist/ is a partner", async () => {
		const { root, both } = await setup(
			{ ...filler(40), "dist/lib.js": duplicatedFunction("libTotals").replace(/: \{[^)]*\}\[\]/, "") },
			{ trusted: true, git: true, detection: EXACT },
		);
		writeFiles(root, { "src/copy.js": duplicatedFunction("copyTotals").replace(/: \{[^)]*\}\[\]/, "") });
		const r = await both(["src/copy.js"]);
		expect(r.whole.length).toBeGreaterThan(0);
		expect(r.focused).toEqual(r.whole);
	}, 120_000);

	it("a copy appended to a file that already had a clone elsewhere", async () => {
		const { root, both } = await setup({
			...filler(40),
			"src/a.ts": duplicatedFunction("aT"),
			"src/b.ts": `${duplicatedFunction("bT")}\nexport const q = 1;\n`,
			"src/other.ts": target(),
		});
		writeFiles(root, {
			"src/b.ts": `${duplicatedFunction("bT")}\nexport const q = 1;\n${target().replace("target", "t2")}`,
		});
		const r = await both(["src/b.ts"]);
		expect(r.whole.length).toBe(1);
		expect(r.focused).toEqual(r.whole);
	}, 120_000);

	it("odd paths: spaces and unicode", async () => {
		const { root, both } = await setup({ ...filler(40), "src/my dir/ørig inal.ts": target() });
		writeFiles(root, { "src/new dir/cöpy ü.ts": target().replace("target", "copied") });
		const r = await both(["src/new dir/cöpy ü.ts"]);
		expect(r.whole.length).toBe(1);
		expect(r.focused).toEqual(r.whole);
	}, 120_000);
});
