import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../src/config.js";
import type { DispatchResult } from "../src/dispatch.js";
import {
	createOverviewModel,
	OVERVIEW_LABELS,
	OVERVIEW_NOTICES,
	overviewMenu,
	recheck,
	rememberResult,
} from "../src/overview.js";
import { opensOverview } from "../src/overview-ui.js";
import type { StatusView } from "../src/status.js";

const VIEW: StatusView = {
	root: "/p",
	settings: DEFAULT_SETTINGS,
	settingsSources: [],
	capability: { status: "available", command: "jscpd", source: "pinned", version: "5.3.2" },
	baseline: { status: "accepted", groups: 2 },
	changedFiles: 1,
	acknowledged: 0,
	redelivered: 0,
	scheduler: {
		epoch: 0,
		mutationGeneration: 1,
		attemptedGeneration: 0,
		automaticActive: false,
		explicitActive: 0,
		pending: undefined,
	} as StatusView["scheduler"],
	lastOutcome: undefined,
	lastRecord: undefined,
	recentChecks: [],
	externalDetection: "git",
};

const loc = (path: string, startLine: number, endLine: number) => ({ path, startLine, endLine });

const SCAN: DispatchResult = {
	status: "ok",
	message: "jscpd: 2 duplicated blocks.",
	details: {
		command: "scan",
		groups: [
			{
				identity: "g1",
				lines: 20,
				tokens: 100,
				format: "typescript",
				locations: [loc("a.ts", 1, 20), loc("b.ts", 5, 24)],
			},
			{
				identity: "g2",
				lines: 8,
				tokens: 60,
				format: "javascript",
				locations: [loc("c.js", 3, 10), loc("c.js", 30, 37)],
			},
		],
	},
};

const CHANGED: DispatchResult = {
	status: "ok",
	message: "jscpd changed: 1 new duplicate(s) in files changed this session.",
	details: {
		command: "changed",
		findings: [
			{
				identity: "g3",
				label: "matches-existing",
				lines: 9,
				tokens: 70,
				locations: [loc("new.ts", 1, 9), loc("old.ts", 40, 48)],
			},
		],
	},
};

const ctx = {} as ExtensionContext;

describe("the /jscpd overview model", () => {
	it("never scans on open: open() performs no dispatch and shows status and the four entries", () => {
		const calls: string[] = [];
		const model = createOverviewModel({
			status: () => VIEW,
			dispatch: async (command) => {
				calls.push(command);
				return SCAN;
			},
		});
		const menu = model.open();
		model.open();
		expect(calls).toEqual([]);
		expect(menu.title).toMatch(
			/checkpoint on · jscpd 5\.3\.2 · baseline accepted \(2 groups\) · 1 changed file/,
		);
		expect(menu.items.map((item) => item.label)).toEqual([
			OVERVIEW_LABELS.changed,
			OVERVIEW_LABELS.scan,
			"Browse findings (0)",
			OVERVIEW_LABELS.help,
		]);
	});

	it("the run entries go through the dispatcher and Browse then lists the result's clone pairs", async () => {
		const calls: string[] = [];
		const model = createOverviewModel({
			status: () => VIEW,
			dispatch: async (command) => {
				calls.push(command);
				return SCAN;
			},
		});
		await model.run("scan", ctx);
		expect(calls).toEqual(["scan"]);
		expect(model.open().items[2]?.label).toBe("Browse findings (2)");
		expect(model.latest()?.entries.map((e) => e.label)).toEqual([
			"a.ts:1-20 ≈ b.ts:5-24",
			"c.js:3-10 ≈ c.js:30-37",
		]);
		expect(model.latest()?.entries[0]?.detail).toMatch(/project scan[\s\S]*20 lines, 100 tokens, typescript/);
	});

	it("a typed /jscpd changed replaces the latest findings; errors, status and help keep them", () => {
		let latest = rememberResult(undefined, "scan", SCAN);
		latest = rememberResult(latest, "status", { status: "ok", message: "s", details: {} });
		latest = rememberResult(latest, "scan", { status: "error", message: "timeout", details: {} });
		expect(latest?.entries).toHaveLength(2);
		latest = rememberResult(latest, "changed", CHANGED);
		expect(latest?.source).toBe("changed");
		expect(latest?.entries.map((e) => e.label)).toEqual(["new.ts:1-9 ≈ old.ts:40-48"]);
		expect(latest?.entries[0]?.detail).toMatch(/copies existing code/);
		expect(overviewMenu(VIEW, latest).items[2]?.label).toBe("Browse findings (1)");
	});

	it("the title shows an unavailable jscpd and the last check", () => {
		const title = overviewMenu(
			{
				...VIEW,
				capability: { status: "unavailable", reason: "not found" },
				lastOutcome: { kind: "clean", text: "no new duplicates" },
			},
			undefined,
		).title;
		expect(title).toMatch(/jscpd unavailable/);
		expect(title).toMatch(/last check: clean — no new duplicates/);
	});

	it("bare /jscpd opens the overview only in the interactive TUI", () => {
		expect(opensOverview("", { hasUI: true, mode: "tui" })).toBe(true);
		expect(opensOverview("  ", { hasUI: true, mode: "tui" })).toBe(true);
		expect(opensOverview("status", { hasUI: true, mode: "tui" })).toBe(false);
		expect(opensOverview("", { hasUI: false, mode: "print" } as never)).toBe(false);
		expect(opensOverview("", { hasUI: true, mode: "rpc" } as never)).toBe(false);
	});

	it("a dialog answer is acted on only in the session the overview opened in", () => {
		expect(recheck({ sessionCurrent: true })).toBe("ok");
		expect(recheck({ sessionCurrent: false })).toBe("session");
		// The session comes first: a replaced session also has no findings list to compare.
		const shown = rememberResult(undefined, "scan", SCAN);
		expect(recheck({ sessionCurrent: false, findings: { shown, latest: shown } })).toBe("session");
		expect(OVERVIEW_NOTICES.session).toBe("The session changed while the dialog was open; nothing was done.");
	});

	it("a finding is shown only while the list it was picked from is still the latest result", () => {
		const shown = rememberResult(undefined, "scan", SCAN);
		expect(recheck({ sessionCurrent: true, findings: { shown, latest: shown } })).toBe("ok");
		// Errors, status and help keep the list; any new scan or changed result replaces it, even an equal one.
		const kept = rememberResult(shown, "scan", { status: "error", message: "timeout", details: {} });
		expect(recheck({ sessionCurrent: true, findings: { shown, latest: kept } })).toBe("ok");
		const rescanned = rememberResult(shown, "scan", SCAN);
		expect(rescanned).toEqual(shown);
		expect(recheck({ sessionCurrent: true, findings: { shown, latest: rescanned } })).toBe("findings");
		const changed = rememberResult(shown, "changed", CHANGED);
		expect(recheck({ sessionCurrent: true, findings: { shown, latest: changed } })).toBe("findings");
		expect(OVERVIEW_NOTICES.findings).toBe("The findings changed while the list was open; run /jscpd again.");
	});
});
