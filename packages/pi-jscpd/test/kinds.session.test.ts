/**
 * Renamed and near-miss copies (issue 21) with the real jscpd 5.3.2 on Pi's real agent loop: the
 * copies agents make (names changed; a statement added and one removed) are reported quietly, with
 * the original's location; renamed copies that existed before the session are not.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	otherFunction,
	realJscpd,
	remove,
	tempDir,
	waitFor,
	writeFiles,
	writeScript,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
let h: JscpdSession | undefined;
const dirs: string[] = [];
afterEach(async () => {
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

/** The example: a 15-line invoice function. */
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

/** An agent's copy with every name changed (`computeInvoiceTotals` → `sumOrderAmounts`, `items` → `entries`, …). */
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

/** An agent's copy with a statement added (a log line) and one removed (the rounding). */
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

/** A small function: 45 jscpd tokens, under jscpd's own 50-token minimum. */
const CLAMP = `export function clampScore(value: number, low: number, high: number) {
	if (value < low) {
		return low;
	}
	if (value > high) return high;
	return Math.round(value);
}
`;

/** An agent's renamed copy of {@link CLAMP}. */
const CLAMP_RENAMED = `export function boundLevel(level: number, min: number, max: number) {
	if (level < min) {
		return min;
	}
	if (level > max) return max;
	return Math.round(level);
}
`;

/** A 7-line constant of 32 tokens: under the exact minimum (50), over the near-copy one (30). */
const POLICY = (name: string) => `export const ${name} = {
	attempts: 5,
	backoffMs: 250,
	maxBackoffMs: 8000,
	jitter: true,
	retryOn: ["ECONNRESET", "ETIMEDOUT", "EPIPE", "ECONNREFUSED"],
};
`;

/** A file of 50 alike functions (1,225 near-copy pairs in 350 lines), as generated code is. */
const ALIKE = Array.from(
	{ length: 50 },
	(_, i) => `export function level${i}(value: number, low: number, high: number) {
	if (value < low - ${i}) {
		return low;
	}
	if (value > high + ${i}) return high;
	return Math.round(value * ${i + 2});
}
`,
).join("");

async function session(files: Record<string, string>, settings?: object): Promise<JscpdSession> {
	const root = tempDir("pi-jscpd-kinds-");
	const agentDir = tempDir("pi-jscpd-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, files);
	if (settings) writeFiles(agentDir, { "pi-lifecycle/pi-jscpd.json": JSON.stringify(settings) });
	const s = await jscpdSession({ project: root, agentDir });
	h = s;
	await waitFor(() => expect(hasBaseline(s)).toBe(true));
	return s;
}

type KindFinding = { kind?: string; similarity?: number; original?: { path: string; startLine: number } };

function findingsOf(s: JscpdSession): KindFinding[] {
	return (customMessages(s, FINDINGS)[0]?.details?.findings ?? []) as KindFinding[];
}

describe("renamed and near-miss copies (issue 21)", () => {
	it("a renamed copy is reported quietly as a renamed copy of the original, with the original's location", async () => {
		const s = await session({ "src/invoice.ts": INVOICE });
		s.script(toolCall("write", { path: "src/orders.ts", content: RENAMED }), reply("wrote orders.ts"));
		await s.prompt("write an order total function");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const [message] = customMessages(s, FINDINGS);
		expect(String(message?.content)).toContain("src/orders.ts:2-15: renamed copy of src/invoice.ts:2-15");
		expect(findingsOf(s)[0]).toMatchObject({
			kind: "renamed",
			original: { path: "src/invoice.ts", startLine: 2 },
		});
		// Quiet: no extra provider request, not displayed in print mode.
		expect(message).toMatchObject({ display: false });
		expect(s.providerCalls).toBe(2);
	});

	it("a near-copy (a statement added, one removed) is reported quietly as a near-copy of the original", async () => {
		const s = await session({ "src/invoice.ts": INVOICE });
		s.script(toolCall("write", { path: "src/totals.ts", content: NEAR }), reply("wrote totals.ts"));
		await s.prompt("write an order total function");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const [message] = customMessages(s, FINDINGS);
		expect(String(message?.content)).toMatch(
			/src\/totals\.ts:2-15: near-copy of src\/invoice\.ts:2-15 \(\d+% similar/,
		);
		expect(findingsOf(s)[0]).toMatchObject({ kind: "similar", original: { path: "src/invoice.ts" } });
		expect(message).toMatchObject({ display: false });
		expect(s.providerCalls).toBe(2);
	});

	it("renamed clones that were in the baseline are not reported when their files are edited", async () => {
		const s = await session({ "src/invoice.ts": INVOICE, "src/orders.ts": RENAMED });
		expect(s.controller.status().baseline.kinds).toEqual(["exact", "renamed", "similar"]);
		s.script(
			toolCall("write", { path: "src/orders.ts", content: `${RENAMED}\n${otherFunction("countWords")}` }),
			reply("added countWords"),
		);
		await s.prompt("add a word counter to orders.ts");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(customMessages(s, FINDINGS)).toEqual([]);
	});

	it("kinds [exact] in the settings: a renamed copy is not reported", async () => {
		const s = await session({ "src/invoice.ts": INVOICE }, { kinds: ["exact"] });
		s.script(toolCall("write", { path: "src/orders.ts", content: RENAMED }), reply("wrote orders.ts"));
		await s.prompt("write an order total function");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(customMessages(s, FINDINGS)).toEqual([]);
	});

	it("jscpd_run changed and scan name the kind; changed names the original", async () => {
		const s = await session({ "src/invoice.ts": INVOICE });
		s.script(
			toolCall("write", { path: "src/orders.ts", content: RENAMED }),
			toolCall("jscpd_run", { command: "changed" }),
			toolCall("jscpd_run", { command: "scan" }),
			reply("checked"),
		);
		await s.prompt("write orders.ts and check it");
		const results = s.session.sessionManager
			.getBranch()
			.flatMap((e) =>
				e.type === "message" && e.message.role === "toolResult" ? [JSON.stringify(e.message.content)] : [],
			);
		expect(results[1]).toContain("src/orders.ts:2-15: renamed copy of src/invoice.ts:2-15");
		expect(results[2]).toContain("renamed copy: src/invoice.ts:2-15 ≈ src/orders.ts:2-15");
	});

	it("near-copy detection that fails falls back to exact clones for the session: the baseline is still accepted", async () => {
		const root = tempDir("pi-jscpd-kinds-");
		const agentDir = tempDir("pi-jscpd-agent-");
		dirs.push(root, agentDir);
		writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
		// A jscpd that cannot afford the AST comparison (as on a tree of thousands of alike functions).
		const jscpd = writeScript(
			join(agentDir, "bin", "jscpd"),
			`for arg in "$@"; do if [ "$arg" = "--similarity" ]; then echo "report too large" >&2; exit 3; fi; done
exec '${realJscpd()}' "$@"`,
		);
		const s = await jscpdSession({ project: root, agentDir, jscpd: { executable: jscpd } });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		expect(s.controller.status().baseline).toMatchObject({ status: "accepted", kinds: ["exact"] });
		expect(s.controller.status().baseline.fallback).toContain(
			"near-copy detection turned off for this session",
		);
		s.script(
			toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
			reply("wrote b"),
		);
		await s.prompt("write b.ts");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
	});

	it("near-copies from 30 tokens: a renamed copy of a function under jscpd's 50-token minimum is reported", async () => {
		const s = await session({ "src/clamp.ts": CLAMP });
		s.script(toolCall("write", { path: "src/level.ts", content: CLAMP_RENAMED }), reply("wrote level.ts"));
		await s.prompt("write a level bound");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(String(customMessages(s, FINDINGS)[0]?.content)).toContain(
			"src/level.ts:1-7: renamed copy of src/clamp.ts:1-7",
		);
	});

	it("exact clones keep jscpd's 50-token minimum: a verbatim 32-token block is not a finding", async () => {
		const s = await session({ "src/retry.ts": POLICY("retryPolicy") });
		s.script(
			toolCall("write", { path: "src/upload.ts", content: POLICY("uploadRetry") }),
			reply("wrote upload"),
		);
		await s.prompt("add an upload retry policy");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(customMessages(s, FINDINGS)).toEqual([]);
	});

	it("a trusted project's jscpd config that sets minTokens keeps it for every kind (no lower near-copy minimum)", async () => {
		const s = await session({ "src/clamp.ts": CLAMP, ".jscpd.json": JSON.stringify({ minTokens: 50 }) });
		s.script(toolCall("write", { path: "src/level.ts", content: CLAMP_RENAMED }), reply("wrote level.ts"));
		await s.prompt("write a level bound");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(customMessages(s, FINDINGS)).toEqual([]);
	});

	it("an untrusted project's jscpd config minTokens is not read: near-copies from 30 tokens", async () => {
		const s = await session({ "src/clamp.ts": CLAMP, ".jscpd.json": JSON.stringify({ minTokens: 50 }) });
		s.session.settingsManager.setProjectTrusted(false);
		await s.reload();
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		s.script(toolCall("write", { path: "src/level.ts", content: CLAMP_RENAMED }), reply("wrote level.ts"));
		await s.prompt("write a level bound");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(String(customMessages(s, FINDINGS)[0]?.content)).toContain(
			"src/level.ts:1-7: renamed copy of src/clamp.ts:1-7",
		);
	});

	it("a project of many alike functions turns near-copy detection off for the session, and says so: clean names the kinds checked", async () => {
		const root = tempDir("pi-jscpd-kinds-");
		const agentDir = tempDir("pi-jscpd-agent-");
		dirs.push(root, agentDir);
		writeFiles(root, { "src/levels.ts": ALIKE, "src/invoice.ts": INVOICE });
		// The real jscpd, each run's detection arguments logged.
		const log = join(agentDir, "runs.log");
		const jscpd = writeScript(
			join(agentDir, "bin", "jscpd"),
			`case " $* " in *" --similarity "*) echo near >> '${log}';; *" --version "*) ;; *) echo exact >> '${log}';; esac
exec '${realJscpd()}' "$@"`,
		);
		const s = await jscpdSession({ project: root, agentDir, jscpd: { executable: jscpd } });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		expect(s.controller.status().baseline).toMatchObject({ status: "accepted", kinds: ["exact"] });
		// The baseline is an exact scan of its own (not the near scan's exact clones, cut at 30 tokens).
		expect(readFileSync(log, "utf8").split("\n").filter(Boolean)).toEqual(["near", "exact"]);
		expect(s.controller.status().baseline.fallback).toMatch(
			/near-copy detection turned off for this session \(the project has 1225 renamed or near-copy pairs in \d+ lines/,
		);
		s.script(toolCall("write", { path: "src/orders.ts", content: RENAMED }), reply("wrote orders.ts"));
		await s.prompt("write an order total function");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(s.controller.status().lastOutcome?.text).toBe(
			"no new duplicates in files changed this session (checked: exact)",
		);
		expect(customMessages(s, FINDINGS)).toEqual([]);
		// Every check after the baseline is an exact scan.
		expect(readFileSync(log, "utf8").split("\n").filter(Boolean)).toEqual(["near", "exact", "exact"]);
	});

	it("after /reload an overloaded session stays exact-only and still says why", async () => {
		const root = tempDir("pi-jscpd-kinds-");
		const agentDir = tempDir("pi-jscpd-agent-");
		dirs.push(root, agentDir);
		writeFiles(root, { "src/levels.ts": ALIKE, "src/invoice.ts": INVOICE });
		const log = join(agentDir, "runs.log");
		const jscpd = writeScript(
			join(agentDir, "bin", "jscpd"),
			`case " $* " in *" --similarity "*) echo near >> '${log}';; *" --version "*) ;; *) echo exact >> '${log}';; esac
exec '${realJscpd()}' "$@"`,
		);
		const s = await jscpdSession({ project: root, agentDir, jscpd: { executable: jscpd } });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		const before = s.controller.status().baseline.fallback;
		expect(before).toContain("near-copy detection turned off for this session");
		await s.reload();
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		expect(s.controller.status().baseline).toMatchObject({
			status: "accepted",
			kinds: ["exact"],
			fallback: before,
		});
		s.script(toolCall("write", { path: "src/orders.ts", content: RENAMED }), reply("wrote orders.ts"));
		await s.prompt("write an order total function");
		await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("clean"));
		expect(s.controller.status().lastOutcome?.text).toBe(
			"no new duplicates in files changed this session (checked: exact)",
		);
		expect(readFileSync(log, "utf8").split("\n").filter(Boolean)).toEqual(["near", "exact", "exact"]);
	});

	it("the exact fallback keeps the other detection settings (minTokens)", async () => {
		const root = tempDir("pi-jscpd-kinds-");
		const agentDir = tempDir("pi-jscpd-agent-");
		dirs.push(root, agentDir);
		writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
		writeFiles(agentDir, { "pi-lifecycle/pi-jscpd.json": JSON.stringify({ minTokens: 40 }) });
		const jscpd = writeScript(
			join(agentDir, "bin", "jscpd"),
			`for arg in "$@"; do if [ "$arg" = "--similarity" ]; then echo "report too large" >&2; exit 3; fi; done
exec '${realJscpd()}' "$@"`,
		);
		const s = await jscpdSession({ project: root, agentDir, jscpd: { executable: jscpd } });
		h = s;
		await waitFor(() => expect(hasBaseline(s)).toBe(true));
		const baseline = s.controller.state.baseline;
		expect("detection" in baseline && baseline.detection).toMatchObject({ kinds: ["exact"], minTokens: 40 });
	});

	it("clone-kind settings in the project file apply only in a trusted project", async () => {
		const root = tempDir("pi-jscpd-kinds-");
		const agentDir = tempDir("pi-jscpd-agent-");
		dirs.push(root, agentDir);
		writeFiles(root, {
			"src/invoice.ts": INVOICE,
			".pi/pi-lifecycle/pi-jscpd.json": JSON.stringify({ kinds: ["exact"], similarity: 0.9, minTokens: 30 }),
		});
		const s = await jscpdSession({ project: root, agentDir });
		h = s;
		expect(s.controller.status().settings).toMatchObject({
			kinds: ["exact"],
			similarity: 0.9,
			minTokens: 30,
		});
		s.session.settingsManager.setProjectTrusted(false);
		await s.reload();
		expect(s.controller.status().settings).toMatchObject({
			kinds: ["exact", "renamed", "similar"],
			similarity: 0.7,
		});
		expect(s.controller.status().settings.minTokens).toBeUndefined();
	});
});
