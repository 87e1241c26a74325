import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../src/adapters/config.js";
import type { DispatchResult } from "../src/adapters/dispatch.js";
import { opensOverview } from "../src/adapters/overview-ui.js";
import {
	createOverviewModel,
	OVERVIEW_LABELS,
	OVERVIEW_NOTICES,
	overviewMenu,
	recheck,
} from "../src/core/overview.js";
import type { StatusView } from "../src/core/status.js";

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
	externalDetection: "files+git",
};

const SCAN: DispatchResult = {
	status: "ok",
	message: "jscpd: 2 duplicated blocks.",
	details: { command: "scan" },
};
const NONE = { fresh: 0, scan: 0, dismissed: 0 };

const ctx = {} as ExtensionContext;

describe("the /jscpd overview model", () => {
	it("never scans on open: open() performs no dispatch and shows status and the four entries", () => {
		const counts = NONE;
		const calls: string[] = [];
		const model = createOverviewModel({
			status: () => VIEW,
			counts: () => counts,
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

	it("the run entries go through the dispatcher; Browse counts new duplicates first, as the footer does", async () => {
		let counts = NONE;
		const calls: string[] = [];
		const model = createOverviewModel({
			status: () => VIEW,
			counts: () => counts,
			dispatch: async (command) => {
				calls.push(command);
				counts = { fresh: 1, scan: 2, dismissed: 0 };
				return SCAN;
			},
		});
		await model.run("scan", ctx);
		expect(calls).toEqual(["scan"]);
		expect(model.open().items[2]?.label).toBe("Browse findings (1 · 2 from the last scan)");
		counts = { fresh: 0, scan: 0, dismissed: 1 };
		expect(model.open().items[2]?.label).toBe("Browse findings (0 · 1 dismissed)");
		expect(overviewMenu(VIEW, { fresh: 3, scan: 0, dismissed: 0 }).items[2]?.label).toBe(
			"Browse findings (3)",
		);
	});

	it("the title shows an unavailable jscpd and the last check", () => {
		const title = overviewMenu(
			{
				...VIEW,
				capability: { status: "unavailable", reason: "not found" },
				lastOutcome: { kind: "clean", text: "no new duplicates" },
			},
			NONE,
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
		expect(recheck({ sessionCurrent: false, findings: { shown: 1, latest: 1 } })).toBe("session");
		expect(OVERVIEW_NOTICES.session).toBe("The session changed while the dialog was open; nothing was done.");
	});

	it("a finding is acted on only while the list it was picked from is still the latest result", () => {
		expect(recheck({ sessionCurrent: true, findings: { shown: 2, latest: 2 } })).toBe("ok");
		// Any new result moves the version (the list may be numbered differently), even an equal one.
		expect(recheck({ sessionCurrent: true, findings: { shown: 2, latest: 3 } })).toBe("findings");
		expect(OVERVIEW_NOTICES.findings).toBe("The findings changed while the list was open; run /jscpd again.");
	});
});
