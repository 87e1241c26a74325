/** Audit probes of clone kinds (issue 21) on Pi's real loop with the real jscpd 5.3.2. */

import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	CART,
	customMessages,
	duplicatedFunction,
	gitWithFeature,
	hasBaseline,
	INVOICE,
	type JscpdSession,
	NEAR,
	nearFailingJscpd,
	otherFunction,
	RENAMED,
	sessionFixtures,
	waitFor,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();
const start = (files: Record<string, string>) => fixtures.start(files, { prefix: "pi-jscpd-audit-kinds-" });

/** A session in a git repository whose branch `feature` adds `feature` to `main` (see gitWithFeature). */
function withFeature(main: Record<string, string>, feature: Record<string, string>): Promise<JscpdSession> {
	const { root, agentDir } = fixtures.sandbox({}, { prefix: "pi-jscpd-audit-kinds-" });
	gitWithFeature(root, main, feature);
	return fixtures.ready({ project: root, agentDir });
}

async function settledWithoutFindings(s: JscpdSession): Promise<void> {
	await waitFor(() => expect(s.controller.status().lastRecord).toBeDefined());
	await s.controller.settled();
	expect(customMessages(s, FINDINGS).map((m) => String(m.content))).toEqual([]);
}

describe("audit: clone kinds", () => {
	it("removing an old exact copy and touching the original does not report the old renamed copy as new", async () => {
		const s = await start({ "src/invoice.ts": INVOICE, "src/zcopy.ts": INVOICE, "src/orders.ts": RENAMED });
		s.script(
			toolCall("write", { path: "src/zcopy.ts", content: otherFunction("countWords") }),
			toolCall("write", { path: "src/invoice.ts", content: `${INVOICE}export const VERSION = 2;\n` }),
			reply("done"),
		);
		await s.prompt("replace zcopy and bump the version");
		await settledWithoutFindings(s);
	});

	it("an exact copy of a function that also has an old renamed copy is reported once, as the exact copy", async () => {
		const s = await start({ "src/invoice.ts": INVOICE, "src/orders.ts": RENAMED });
		s.script(toolCall("write", { path: "src/zcopy.ts", content: INVOICE }), reply("copied"));
		await s.prompt("copy invoice.ts");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		await s.controller.settled();
		const text = String(customMessages(s, FINDINGS)[0]?.content);
		expect(text).toContain("1 new duplicated block");
		expect(text).toContain("src/zcopy.ts");
		expect(text).not.toContain("renamed copy");
	});

	it("near-copy detection that runs out of memory falls back to exact clones: the baseline is still accepted", async () => {
		// A jscpd whose AST comparison exhausts its heap (all-pairs comparison of thousands of alike functions).
		const s = await fixtures.start(
			{ "src/a.ts": duplicatedFunction("computeTotals") },
			{
				prefix: "pi-jscpd-audit-kinds-",
				executable: (agentDir) =>
					nearFailingJscpd(
						agentDir,
						"FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
						134,
					),
			},
		);
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		expect(s.controller.status().baseline).toMatchObject({ status: "accepted", kinds: ["exact"] });
		expect(s.controller.status().baseline.fallback).toContain("ran out of memory");
		s.script(
			toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
			reply("wrote b"),
		);
		await s.prompt("write b.ts");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
	});

	it("a renamed copy made while the original's file was edited too is not called 'both new'", async () => {
		const s = await start({ "src/invoice.ts": INVOICE });
		s.script(
			toolCall("write", { path: "src/invoice.ts", content: `${INVOICE}export const VERSION = 2;\n` }),
			toolCall("write", { path: "src/orders.ts", content: RENAMED }),
			reply("done"),
		);
		await s.prompt("bump the version and add an order total function");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const text = String(customMessages(s, FINDINGS)[0]?.content);
		expect(text).not.toContain("both new");
		expect(text).toContain("new renamed copy: src/invoice.ts:2-15 ≈ src/orders.ts:2-15");
	});

	it("a third renamed copy made while an old copy's file was edited is reported once, not as 'both new'", async () => {
		const s = await start({ "src/invoice.ts": INVOICE, "src/orders.ts": RENAMED });
		s.script(
			toolCall("write", { path: "src/invoice.ts", content: `${INVOICE}export const VERSION = 2;\n` }),
			toolCall("write", { path: "src/zz.ts", content: CART }),
			reply("done"),
		);
		await s.prompt("bump the version and add a cart total function");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const text = String(customMessages(s, FINDINGS)[0]?.content);
		expect(text).toContain("1 new duplicated block");
		expect(text).toMatch(/src\/zz\.ts:2-15/);
		expect(text).not.toContain("both new");
	});

	it.each([
		{ kind: "a renamed", original: ["src/invoice.ts", INVOICE], copy: ["src/orders.ts", RENAMED] },
		{
			kind: "an exact",
			original: ["src/a.ts", duplicatedFunction("computeTotals")],
			copy: ["src/legacy.ts", duplicatedFunction("legacyTotals")],
		},
	] as const)(
		"after a checkout that brings $kind copy, editing that copy and its original reports nothing",
		async ({ original: [originalPath, originalText], copy: [copyPath, copyText] }) => {
			const s = await withFeature({ [originalPath]: originalText }, { [copyPath]: copyText });
			s.script(
				toolCall("bash", { command: "git checkout -q feature" }),
				toolCall("write", { path: copyPath, content: `${copyText}export const COPY = 1;\n` }),
				toolCall("write", { path: originalPath, content: `${originalText}export const ORIGINAL = 1;\n` }),
				reply("edited"),
			);
			await s.prompt("switch and edit");
			await settledWithoutFindings(s);
			expect(s.controller.status().lastOutcome?.kind).toBe("clean");
		},
	);

	it("after a checkout that brings an old copy, the session's own copy into a tracked file is still reported", async () => {
		const s = await withFeature(
			{ "src/a.ts": otherFunction("countWords") },
			{ "src/legacy.ts": duplicatedFunction("legacyTotals") },
		);
		s.script(
			toolCall("bash", { command: "git checkout -q feature" }),
			toolCall("write", {
				path: "src/a.ts",
				content: `${otherFunction("countWords")}\n${duplicatedFunction("computeTotals")}`,
			}),
			toolCall("write", {
				path: "src/legacy.ts",
				content: `${duplicatedFunction("legacyTotals")}export const L = 1;\n`,
			}),
			reply("copied"),
		);
		await s.prompt("switch and copy");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const findings = customMessages(s, FINDINGS)[0]?.details?.findings ?? [];
		expect(findings[0]?.locations.map((loc) => loc.path)).toContain("src/a.ts");
	});

	it("a new renamed copy of a function that has old renamed and near-copies is one finding", async () => {
		const s = await start({ "src/invoice.ts": INVOICE, "src/orders.ts": RENAMED, "src/totals.ts": NEAR });
		s.script(toolCall("write", { path: "src/zz.ts", content: CART }), reply("wrote zz"));
		await s.prompt("add a cart total function");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		await s.controller.settled();
		const text = String(customMessages(s, FINDINGS)[0]?.content);
		expect(text).toContain("1 new duplicated block");
		expect(text).toMatch(/src\/zz\.ts:2-15: renamed copy of/);
	});
});
