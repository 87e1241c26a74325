/** The pure parts of the findings triage: store order, dismissal replay, counts, texts, footer, completions. */
import { describe, expect, it } from "vitest";
import { findingCompletions, triageCommand } from "../src/adapters/triage-command.js";
import type { Finding } from "../src/core/compare.js";
import {
	applyDismissal,
	DISMISSAL_ENTRY,
	isDismissalData,
	replayDismissals,
} from "../src/core/dismissals.js";
import { FindingsStore, groupKey } from "../src/core/findings-store.js";
import { FOOTER, footerText } from "../src/core/presentation.js";
import { commandCompletions, helpText } from "../src/core/registry.js";
import type { CloneGroup } from "../src/core/report.js";
import { Triage } from "../src/core/triage.js";
import { fixRequest, itemLine, SNIPPET_LINES, snippetText } from "../src/core/triage-text.js";

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

const finding = (g: CloneGroup, label: Finding["label"] = "new"): Finding => ({
	identity: label === "new" ? groupKey(g) : `fresh-${g.identity}`,
	group: g,
	label,
});

function triage(acked: ReadonlySet<string> = new Set()) {
	const appended: { type: string; data: unknown }[] = [];
	let changes = 0;
	const t = new Triage({ acknowledged: (id) => acked.has(id), changed: () => changes++ });
	const pi = { appendEntry: (type: string, data: unknown) => appended.push({ type, data }) };
	return { t, pi, appended, changes: () => changes };
}

describe("the findings store", () => {
	it("lists newest first; a finding found again keeps its place; a new result replaces the set", () => {
		const store = new FindingsStore();
		const [g1, g2, g3] = [group("a.ts", "b.ts", 1), group("c.ts", "d.ts", 10), group("e.ts", "f.ts", 20)];
		store.recordNew("checkpoint", [finding(g1)]);
		store.recordNew("changed", [finding(g2), finding(g1)]);
		expect(store.list().map((f) => f.locations[0].path)).toEqual(["c.ts", "a.ts"]);
		store.recordScan([g3, g1], false);
		// The scan's g1 is the new duplicate already listed: listed once.
		expect(store.list().map((f) => [f.locations[0].path, f.kind])).toEqual([
			["e.ts", "existing"],
			["c.ts", "new"],
			["a.ts", "new"],
		]);
		const version = store.version;
		store.recordNew("checkpoint", [finding(g1)]);
		expect(store.version).toBe(version + 1);
		expect(store.list().map((f) => f.locations[0].path)).toEqual(["e.ts", "a.ts"]);
	});
});

describe("dismissals", () => {
	it("replay applies dismissals and undos in branch order and counts malformed entries", () => {
		const entry = (data: unknown) => ({ type: "custom", customType: DISMISSAL_ENTRY, data });
		const { dismissed, malformed } = replayDismissals([
			entry({ action: "dismiss", keys: ["k1", "k2"], where: "a ≈ b" }),
			entry({ action: "dismiss", keys: ["k3"], where: "c ≈ d" }),
			{ type: "custom", customType: "other", data: { action: "dismiss", keys: ["k9"], where: "" } },
			entry({ action: "undismiss", keys: ["k3"], where: "c ≈ d" }),
			entry({ action: "dismiss", keys: [], where: "" }),
			entry({ action: "delete", keys: ["k4"], where: "" }),
			entry(null),
		]);
		expect([...dismissed]).toEqual(["k1", "k2"]);
		expect(malformed).toBe(3);
		expect(isDismissalData({ action: "dismiss", keys: ["x".repeat(129)], where: "" })).toBe(false);
		expect([...applyDismissal(new Set(["a"]), { action: "undismiss", keys: ["a"], where: "" })]).toEqual([]);
	});

	it("a dismissal is recorded as one session entry before it takes effect; an unrecorded one changes nothing", () => {
		const { t, pi, appended } = triage();
		t.recordNew("checkpoint", [finding(group("a.ts", "b.ts", 1), "matches-existing")]);
		const [item] = t.items();
		if (!item) throw new Error("no item");
		expect(t.set(pi, item, true)).toMatchObject({ ok: true, item: { dismissed: true } });
		expect(appended).toEqual([
			{
				type: DISMISSAL_ENTRY,
				data: { action: "dismiss", keys: item.finding.keys, where: "a.ts:1-10 ≈ b.ts:5-14" },
			},
		]);
		expect(item.finding.keys).toHaveLength(2);
		expect(t.counts()).toEqual({ fresh: 0, scan: 0, dismissed: 1 });
		expect(t.set(pi, { ...item, dismissed: true }, true)).toMatchObject({ ok: false, reason: "unchanged" });
		const failing = {
			appendEntry: () => {
				throw new Error("stale");
			},
		};
		expect(t.set(failing, { ...item, dismissed: true }, false)).toMatchObject({
			ok: false,
			reason: "failed",
		});
		expect(t.counts().dismissed).toBe(1);
	});

	it("dismissing a scan group also keeps the same clone out of the new duplicates", () => {
		const { t, pi } = triage();
		const g = group("a.ts", "b.ts", 1);
		t.recordScan([g], false);
		const [item] = t.items();
		if (!item) throw new Error("no item");
		t.set(pi, item, true);
		expect(t.isGroupDismissed(g)).toBe(true);
		expect(t.isDismissed(finding(g).identity)).toBe(true);
	});
});

describe("triage texts and commands", () => {
	it("a list line names both locations, kind, size and whether the model was told", () => {
		const { t } = triage(new Set([groupKey(group("a.ts", "b.ts", 1))]));
		t.recordNew("checkpoint", [finding(group("a.ts", "b.ts", 1))]);
		const [item] = t.items();
		if (!item) throw new Error("no item");
		expect(itemLine(item)).toBe(
			"1. a.ts:1-10 ≈ b.ts:5-14 · new duplicate · 10 lines · reported to the model",
		);
		expect(fixRequest(item)).toMatch(
			/^jscpd found duplicated code: a\.ts lines 1-10 and b\.ts lines 5-14 \(10 lines\)\./,
		);
	});

	it("snippets are bounded in lines and width and say when a file cannot be read", () => {
		const text = Array.from({ length: 100 }, (_, i) => `line ${i + 1} ${"x".repeat(300)}`).join("\n");
		const shown = snippetText("First block: a.ts:1-100", text, 1, 100).split("\n");
		expect(shown).toHaveLength(SNIPPET_LINES + 2);
		expect(shown.at(-1)).toBe(`      … ${100 - SNIPPET_LINES} more line(s)`);
		expect(Math.max(...shown.map((line) => line.length))).toBeLessThanOrEqual(170);
		expect(snippetText("h", undefined, 1, 2)).toBe("h\n  (the file cannot be read now)");
		expect(snippetText("h", "one", 5, 9)).toBe("h\n  (the file no longer has these lines)");
	});

	it("/jscpd dismiss without n lists the findings; a bad n is a clear error; undismiss undoes", () => {
		const { t, pi } = triage();
		expect(triageCommand(t, pi, "dismiss", []).message).toMatch(/^jscpd: no findings to dismiss yet/);
		t.recordNew("changed", [finding(group("a.ts", "b.ts", 1))]);
		expect(triageCommand(t, pi, "dismiss", []).message).toMatch(
			/^Usage: \/jscpd dismiss <n>\. Current findings[\s\S]*\n1\. a\.ts/,
		);
		for (const bad of [["0"], ["2"], ["x"], ["1", "2"], ["-1"]])
			expect(triageCommand(t, pi, "dismiss", bad)).toMatchObject({
				status: "error",
				message: expect.stringMatching(/is not a finding number \(findings are numbered 1-1\)/),
			});
		expect(triageCommand(t, pi, "dismiss", ["1"]).message).toMatch(/finding 1 dismissed as intended/);
		expect(triageCommand(t, pi, "dismiss", ["1"]).message).toMatch(
			/^jscpd: finding 1 is already dismissed\.\n1\. a\.ts/,
		);
		expect(triageCommand(t, pi, "undismiss", ["1"]).message).toMatch(/finding 1 is reported again/);
		expect(t.counts()).toEqual({ fresh: 1, scan: 0, dismissed: 0 });
	});

	it("after a reload /jscpd undismiss lists the saved dismissals and says when they can be undone", () => {
		const first = triage();
		first.t.recordNew("changed", [finding(group("a.ts", "b.ts", 1)), finding(group("c.ts", "d.ts", 10))]);
		triageCommand(first.t, first.pi, "dismiss", ["1"]);
		triageCommand(first.t, first.pi, "dismiss", ["2"]);
		triageCommand(first.t, first.pi, "undismiss", ["2"]);
		expect(first.appended).toHaveLength(3);
		// A new process: only the session entries are left.
		const { t, pi } = triage();
		t.replay(
			first.appended.map((e) => ({ type: "custom", customType: e.type, data: e.data })),
			true,
		);
		const listed = triageCommand(t, pi, "undismiss", []).message;
		expect(listed).toMatch(/^jscpd: 1 dismissal\(s\) saved in this session/);
		expect(listed).toContain("once a check finds it again");
		expect(listed.match(/ {2}dismissed: /g)).toHaveLength(1);
		expect(triageCommand(t, pi, "undismiss", ["1"]).message).toMatch(/findings are not saved/);
		expect(triageCommand(t, pi, "dismiss", []).message).toMatch(/^jscpd: no findings to dismiss yet/);
	});

	it("dismiss <n> completes the findings not dismissed, undismiss <n> the dismissed ones", () => {
		const { t, pi } = triage();
		t.recordNew("changed", [finding(group("a.ts", "b.ts", 1)), finding(group("c.ts", "d.ts", 10))]);
		triageCommand(t, pi, "dismiss", ["2"]);
		expect(findingCompletions(t, "dismiss ")).toEqual([
			{ value: "dismiss 1", label: "1", description: expect.stringMatching(/^1\. a\.ts:1-10 ≈ b\.ts:5-14/) },
		]);
		expect(findingCompletions(t, "undismiss ")?.map((c) => c.value)).toEqual(["undismiss 2"]);
		expect(findingCompletions(t, "dismiss 3")).toBeNull();
		expect(findingCompletions(t, "scan src")).toBeUndefined();
	});

	it("dismiss and undismiss complete and are in the user's help, not the model's", () => {
		expect(commandCompletions("dis")?.map((c) => c.value)).toEqual(["dismiss"]);
		expect(commandCompletions("un")?.map((c) => c.label)).toEqual(["undismiss <n>"]);
		expect(helpText("user")).toMatch(/dismiss <n>\s+Dismiss finding n as intended/);
		expect(helpText("model")).not.toMatch(/dismiss/);
		expect(helpText()).toBe(helpText("model"));
	});
});

describe("the footer counts what Browse lists", () => {
	const ready = { enabled: true, capability: "available", baseline: "accepted", checking: false } as const;
	it("current new duplicates not dismissed, whatever the last outcome; all dismissed says so", () => {
		const clean = { kind: "clean", text: "" } as const;
		const found = { kind: "findings", text: "", delivered: 5 } as const;
		expect(footerText({ ...ready, outcome: found, findings: { fresh: 6, dismissed: 0 } })).toBe(
			FOOTER.findings(6),
		);
		expect(footerText({ ...ready, outcome: clean, findings: { fresh: 1, dismissed: 0 } })).toBe(
			FOOTER.findings(1),
		);
		expect(footerText({ ...ready, outcome: found, findings: { fresh: 0, dismissed: 2 } })).toBe(
			"jscpd: clean · 2 dismissed",
		);
		expect(footerText({ ...ready, outcome: found, findings: { fresh: 0, dismissed: 0 } })).toBe(FOOTER.clean);
		expect(footerText({ ...ready, outcome: undefined, findings: { fresh: 0, dismissed: 0 } })).toBe(
			FOOTER.ready,
		);
		expect(
			footerText({ ...ready, outcome: { kind: "timeout", text: "" }, findings: { fresh: 3, dismissed: 0 } }),
		).toBe(FOOTER.failed);
	});
});

describe("triage audit (a22)", () => {
	it("a scan group the model was told about stays told when the user scans again", () => {
		const store = new FindingsStore();
		const g = group("a.ts", "b.ts", 1);
		store.recordScan([g], true);
		store.recordScan([g], false);
		expect(store.list().map((f) => f.toldInResult)).toEqual([true]);
	});

	it("show both blocks never passes a file's control characters to the terminal; CRLF lines stay clean", () => {
		const text = "const a = 1;\r\nconst b = '\u001b]52;c;ZXZpbA==\u0007';\r\nbin\u0000ary\u009b2J\r\n";
		const shown = snippetText("h", text, 1, 3);
		// biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for control characters
		expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
		expect(shown.split("\n")[1]).toBe("    1 │ const a = 1;");
		expect(shown).toContain("const b = '�]52;c;ZXZpbA==�';");
	});

	it("a new duplicate that copies existing code is dismissed by its whole group's key (a scan's dismissal)", () => {
		const { t, pi } = triage();
		const g = group("a.ts", "b.ts", 1);
		t.recordScan([g], false);
		const [item] = t.items();
		if (!item) throw new Error("no item");
		t.set(pi, item, true);
		const copy = finding(g, "matches-existing");
		expect(t.isFindingDismissed(copy)).toBe(true);
		expect(t.changedResult([copy]).listed).toEqual([]);
		expect(t.counts()).toEqual({ fresh: 0, scan: 0, dismissed: 1 });
	});
});

describe("triage audit (a22): /jscpd dismiss names what it acted on", () => {
	it("dismiss <n> after a newer finding renumbered the list says which finding it dismissed", () => {
		const { t, pi } = triage();
		t.recordNew("checkpoint", [finding(group("a.ts", "b.ts", 1))]);
		// The user saw "1. a.ts ≈ b.ts"; a newer finding arrives before the command runs.
		t.recordNew("changed", [finding(group("c.ts", "d.ts", 10)), finding(group("a.ts", "b.ts", 1))]);
		const answer = triageCommand(t, pi, "dismiss", ["1"]).message;
		expect(answer).toMatch(/finding 1 dismissed as intended/);
		expect(answer).toContain("c.ts:1-10 ≈ d.ts:5-14");
		expect(triageCommand(t, pi, "undismiss", ["1"]).message).toContain("c.ts:1-10 ≈ d.ts:5-14");
	});
});

describe("the user's /jscpd help", () => {
	it("names no tool field and lines up every description", () => {
		const help = helpText("user");
		expect(help).not.toMatch(/\{\s*command|args\s*\}/);
		const rows = help.split("\n").filter((line) => line.startsWith("  "));
		const starts = rows.map((row) => /^ {2}\S.*?\s{2,}(?=[A-Z])/.exec(row)?.[0].length);
		expect(new Set(starts).size, rows.join("\n")).toBe(1);
	});
});
