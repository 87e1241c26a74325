/**
 * No size cliff (issue 31): a jscpd report is read entry by entry, in chunks, and parses to what the
 * whole-text parser gives, wherever the chunks split it (inside strings, escapes, braces in code).
 */
import { describe, expect, it } from "vitest";
import { parseReport } from "../src/core/report.js";
import { ReportStream } from "../src/core/report-stream.js";

const ROOT = "/project";
const entry = (i: number, fragment: string) => ({
	format: "typescript",
	lines: 6,
	tokens: 60,
	fragment,
	firstFile: { name: `/project/src/a${i}.ts`, start: 1, end: 6 },
	secondFile: { name: `/project/src/b${i}.ts`, start: 3, end: 8 },
	...(i % 3 === 1 ? { kind: "renamed", similarity: 1 } : {}),
});
const REPORT = JSON.stringify({
	duplicates: [
		entry(0, 'const s = "a \\"quoted\\" {brace} [bracket] \\\\ end";\nreturn s;'),
		entry(1, "if (x) { return [1, 2, 3]; }\n// ü ✓ emoji 🎉\nreturn y;"),
		{ nope: true },
		entry(2, "}}]]{{[[\nreturn 1;"),
	],
	statistics: { total: { sources: 12, lines: 340, clones: 3 }, formats: { typescript: { sources: 12 } } },
});

function streamed(text: string, chunk: number) {
	const stream = new ReportStream(ROOT);
	for (let i = 0; i < text.length; i += chunk) stream.push(text.slice(i, i + chunk));
	return stream.end();
}

describe("no size cliff: a report is read entry by entry", () => {
	it("no size cliff: a report read in chunks parses as the whole text does, at every chunk size", () => {
		const whole = parseReport(ROOT, REPORT);
		expect(whole.ok).toBe(true);
		for (const size of [1, 2, 3, 7, 16, 61, 500, REPORT.length])
			expect(streamed(REPORT, size)).toEqual(whole);
	});

	it("no size cliff: a broken report is still refused (not JSON, no duplicates list)", () => {
		expect(streamed('{"duplicates": [{"a": 1}', 5)).toEqual({
			ok: false,
			error: "jscpd wrote a report that is not valid JSON",
		});
		expect(streamed('{"statistics": {}}', 4)).toEqual({
			ok: false,
			error: "jscpd wrote a report without a duplicates list",
		});
		expect(streamed("nope", 2).ok).toBe(false);
	});

	it("no size cliff: 20,000 entries stream through without the text being kept", () => {
		const many = JSON.stringify({
			duplicates: Array.from({ length: 20_000 }, (_, i) => entry(i, `const v${i} = ${i};\nreturn v${i};`)),
		});
		const result = streamed(many, 1024 * 1024);
		expect(result.ok && result.report.groups.length).toBe(20_000);
	});
});
