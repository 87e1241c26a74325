/**
 * A dismissal Pi cannot save because the session file cannot be written (a read-only or full session
 * folder) says so, with the next step, instead of only "could not be saved".
 */
import { describe, expect, it } from "vitest";
import { triageCommand } from "../src/adapters/triage-command.js";
import type { Finding } from "../src/core/compare.js";
import { groupKey } from "../src/core/findings-store.js";
import type { CloneGroup } from "../src/core/report.js";
import { Triage } from "../src/core/triage.js";

const group: CloneGroup = {
	identity: "a.ts|b.ts",
	format: "typescript",
	lines: 10,
	tokens: 80,
	locations: [
		{ path: "a.ts", startLine: 1, endLine: 10 },
		{ path: "b.ts", startLine: 5, endLine: 14 },
	],
	hashes: [1, 2, 3],
};
const finding: Finding = { identity: groupKey(group), group, label: "new" };

describe("a dismissal on a local fault", () => {
	it.each([
		[
			"EROFS",
			"read-only file system, open '/s/x.jsonl'",
			/read-only \(EROFS: \/s\/x\.jsonl\); make it writable/,
		],
		["ENOSPC", "no space left on device, write", /is full \(ENOSPC\); free disk space/],
	])("%s: the notice names the fault and the next step; nothing changes", (code, text, expected) => {
		const t = new Triage({ acknowledged: () => false, changed: () => {} });
		t.recordNew("changed", [finding]);
		const pi = {
			appendEntry: () => {
				throw Object.assign(new Error(`${code}: ${text}`), { code });
			},
		};
		const result = triageCommand(t, pi, "dismiss", ["1"]);
		expect(result.status).toBe("error");
		expect(result.message).toMatch(/the dismissal could not be saved in the session/);
		expect(result.message).toMatch(expected);
		expect(t.items()[0]?.dismissed).toBe(false);
	});
});
