/** Audit probes of clone kinds (issue 21) on Pi's real loop with the real jscpd 5.3.2. */

import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	git,
	gitInit,
	hasBaseline,
	type JscpdSession,
	otherFunction,
	realJscpd,
	sessionFixtures,
	waitFor,
	writeFiles,
	writeScript,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();

const INVOICE = `export interface Item { price: number; qty: number; taxable: boolean }
export function computeInvoiceTotals(items: Item[], taxRate: number) {
	let subtotal = 0;
	let tax = 0;
	for (const item of items) {
		const line = item.price * item.qty;
		subtotal += line;
		if (item.taxable) {
			tax += line * taxRate;
		}
	}
	const total = subtotal + tax;
	const rounded = Math.round(total * 100) / 100;
	return { subtotal, tax, total: rounded };
}
`;

/** An old near-copy of the invoice function (a log line added, the rounding removed). */
const NEAR = `import type { Item } from "./invoice";
export function orderTotals(items: Item[], taxRate: number) {
	let subtotal = 0;
	let tax = 0;
	for (const item of items) {
		const line = item.price * item.qty;
		subtotal += line;
		console.log("line", line);
		if (item.taxable) {
			tax += line * taxRate;
		}
	}
	const total = subtotal + tax;
	return { subtotal, tax, total };
}
`;

const RENAMED = `import type { Item } from "./invoice";
export function sumOrderAmounts(entries: Item[], rate: number) {
	let base = 0;
	let levy = 0;
	for (const entry of entries) {
		const amount = entry.price * entry.qty;
		base += amount;
		if (entry.taxable) {
			levy += amount * rate;
		}
	}
	const sum = base + levy;
	const rounded = Math.round(sum * 100) / 100;
	return { base, levy, total: rounded };
}
`;

async function start(files: Record<string, string>, settings?: object): Promise<JscpdSession> {
	const root = fixtures.dir("pi-jscpd-audit-kinds-");
	const agentDir = fixtures.dir("pi-jscpd-agent-");
	writeFiles(root, files);
	if (settings) writeFiles(agentDir, { "pi-lifecycle/pi-jscpd.json": JSON.stringify(settings) });
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
		const root = fixtures.dir("pi-jscpd-audit-kinds-");
		const agentDir = fixtures.dir("pi-jscpd-agent-");
		writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
		// A jscpd whose AST comparison exhausts its heap (all-pairs comparison of thousands of alike functions).
		const jscpd = writeScript(
			join(agentDir, "bin", "jscpd"),
			`for arg in "$@"; do if [ "$arg" = "--similarity" ]; then echo "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory" >&2; exit 134; fi; done
exec '${realJscpd()}' "$@"`,
		);
		const s = await fixtures.ready({ project: root, agentDir, jscpd: { executable: jscpd } });
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
		const cart = RENAMED.replace("sumOrderAmounts", "sumCartAmounts")
			.replaceAll("entries", "rows")
			.replaceAll("entry", "row")
			.replaceAll("levy", "duty")
			.replaceAll("base", "net");
		s.script(
			toolCall("write", { path: "src/invoice.ts", content: `${INVOICE}export const VERSION = 2;\n` }),
			toolCall("write", { path: "src/zz.ts", content: cart }),
			reply("done"),
		);
		await s.prompt("bump the version and add a cart total function");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const text = String(customMessages(s, FINDINGS)[0]?.content);
		expect(text).toContain("1 new duplicated block");
		expect(text).toMatch(/src\/zz\.ts:2-15/);
		expect(text).not.toContain("both new");
	});

	it("after a checkout that brings a renamed copy, editing that copy and its original reports nothing", async () => {
		const root = fixtures.dir("pi-jscpd-audit-kinds-");
		writeFiles(root, { "src/invoice.ts": INVOICE });
		gitInit(root);
		git(root, "checkout", "-qb", "feature");
		writeFiles(root, { "src/orders.ts": RENAMED });
		git(root, "add", ".");
		git(root, "commit", "-qm", "orders");
		git(root, "checkout", "-q", "main");
		const s = await fixtures.ready({ project: root, agentDir: fixtures.dir("pi-jscpd-agent-") });
		s.script(
			toolCall("bash", { command: "git checkout -q feature" }),
			toolCall("write", { path: "src/orders.ts", content: `${RENAMED}export const ORDERS = 1;\n` }),
			toolCall("write", { path: "src/invoice.ts", content: `${INVOICE}export const INVOICES = 1;\n` }),
			reply("edited"),
		);
		await s.prompt("switch and edit");
		await settledWithoutFindings(s);
		expect(s.controller.status().lastOutcome?.kind).toBe("clean");
	});

	it("after a checkout that brings an exact copy, editing that copy and its original reports nothing", async () => {
		const root = fixtures.dir("pi-jscpd-audit-kinds-");
		writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
		gitInit(root);
		git(root, "checkout", "-qb", "feature");
		writeFiles(root, { "src/legacy.ts": duplicatedFunction("legacyTotals") });
		git(root, "add", ".");
		git(root, "commit", "-qm", "legacy");
		git(root, "checkout", "-q", "main");
		const s = await fixtures.ready({ project: root, agentDir: fixtures.dir("pi-jscpd-agent-") });
		s.script(
			toolCall("bash", { command: "git checkout -q feature" }),
			toolCall("write", {
				path: "src/legacy.ts",
				content: `${duplicatedFunction("legacyTotals")}export const L = 1;\n`,
			}),
			toolCall("write", {
				path: "src/a.ts",
				content: `${duplicatedFunction("computeTotals")}export const A = 1;\n`,
			}),
			reply("edited"),
		);
		await s.prompt("switch and edit");
		await settledWithoutFindings(s);
	});

	it("after a checkout that brings an old copy, the session's own copy into a tracked file is still reported", async () => {
		const root = fixtures.dir("pi-jscpd-audit-kinds-");
		writeFiles(root, { "src/a.ts": otherFunction("countWords") });
		gitInit(root);
		git(root, "checkout", "-qb", "feature");
		writeFiles(root, { "src/legacy.ts": duplicatedFunction("legacyTotals") });
		git(root, "add", ".");
		git(root, "commit", "-qm", "legacy");
		git(root, "checkout", "-q", "main");
		const s = await fixtures.ready({ project: root, agentDir: fixtures.dir("pi-jscpd-agent-") });
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
		const cart = RENAMED.replace("sumOrderAmounts", "sumCartAmounts")
			.replaceAll("entries", "rows")
			.replaceAll("entry", "row")
			.replaceAll("levy", "duty")
			.replaceAll("base", "net");
		s.script(toolCall("write", { path: "src/zz.ts", content: cart }), reply("wrote zz"));
		await s.prompt("add a cart total function");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		await s.controller.settled();
		const text = String(customMessages(s, FINDINGS)[0]?.content);
		expect(text).toContain("1 new duplicated block");
		expect(text).toMatch(/src\/zz\.ts:2-15: renamed copy of/);
	});
});
