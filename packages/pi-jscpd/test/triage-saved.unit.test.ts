/**
 * `/jscpd undismiss` without findings lists the dismissals in force from live state: the ones
 * replayed at the reload and the ones made or undone since (findings themselves are not saved).
 */
import { describe, expect, it } from "vitest";
import { triageCommand } from "../src/adapters/triage-command.js";
import type { Finding } from "../src/core/compare.js";
import { groupKey } from "../src/core/findings-store.js";
import type { CloneGroup } from "../src/core/report.js";
import { Triage } from "../src/core/triage.js";

const group = (a: string, b: string, seed: number): CloneGroup => ({
	identity: `${a}|${b}`,
	format: "typescript",
	lines: 10,
	tokens: 80,
	locations: [
		{ path: a, startLine: 1, endLine: 10 },
		{ path: b, startLine: 5, endLine: 14 },
	],
	hashes: [seed, seed + 1, seed + 2],
});
const finding = (g: CloneGroup): Finding => ({ identity: groupKey(g), group: g, label: "new" });

function triage() {
	const appended: { type: string; data: unknown }[] = [];
	const t = new Triage({ acknowledged: () => false, changed: () => {} });
	return { t, pi: { appendEntry: (type: string, data: unknown) => appended.push({ type, data }) }, appended };
}

describe("saved dismissals after a reload", () => {
	it("a dismissal made after the reload is listed once its finding is gone, next to the replayed one", () => {
		const first = triage();
		first.t.recordNew("changed", [finding(group("a.ts", "b.ts", 1))]);
		triageCommand(first.t, first.pi, "dismiss", ["1"]);
		const { t, pi } = triage();
		t.replay(
			first.appended.map((e) => ({ type: "custom", customType: e.type, data: e.data })),
			true,
		);
		t.recordNew("changed", [finding(group("c.ts", "d.ts", 100))]);
		triageCommand(t, pi, "dismiss", ["1"]);
		t.recordNew("changed", []);
		const listed = triageCommand(t, pi, "undismiss", []).message;
		expect(listed).toContain("2 dismissal(s) saved");
		expect(listed).toContain("dismissed: a.ts:1-10 ≈ b.ts:5-14");
		expect(listed).toContain("dismissed: c.ts:1-10 ≈ d.ts:5-14");
	});
});

it("after a reload, a dismissal undone since is not listed as saved", () => {
	const first = triage();
	first.t.recordNew("changed", [finding(group("a.ts", "b.ts", 1))]);
	triageCommand(first.t, first.pi, "dismiss", ["1"]);
	const { t, pi } = triage();
	t.replay(
		first.appended.map((e) => ({ type: "custom", customType: e.type, data: e.data })),
		true,
	);
	t.recordNew("changed", [finding(group("a.ts", "b.ts", 1))]);
	triageCommand(t, pi, "undismiss", []);
	triageCommand(t, pi, "undismiss", ["1"]);
	t.recordNew("changed", []);
	const listed = triageCommand(t, pi, "undismiss", []).message;
	expect(listed).not.toMatch(/dismissal\(s\) saved/);
});
