/**
 * Renamed and near-miss copies (issue 21) with the real jscpd 5.3.2 on Pi's real agent loop: the
 * copies agents make (names changed; a statement added and one removed) are reported quietly, with
 * the original's location; renamed copies that existed before the session are not.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	ALIKE,
	customMessages,
	duplicatedFunction,
	hasBaseline,
	INVOICE,
	type JscpdSession,
	loggingJscpd,
	NEAR,
	nearFailingJscpd,
	otherFunction,
	RENAMED,
	sessionFixtures,
	waitFor,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();

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

const session = (files: Record<string, string>, settings?: object) =>
	fixtures.start(files, { prefix: "pi-jscpd-kinds-", settings });

/** A session in a project of many alike functions (exact-only), each jscpd run's detection logged. */
async function overloaded(): Promise<{ s: JscpdSession; runs: () => string[] }> {
	let log = "";
	const s = await fixtures.start(
		{ "src/levels.ts": ALIKE, "src/invoice.ts": INVOICE },
		{
			prefix: "pi-jscpd-kinds-",
			executable: (agentDir) => {
				log = join(agentDir, "runs.log");
				return loggingJscpd(agentDir, log);
			},
		},
	);
	return { s, runs: () => readFileSync(log, "utf8").split("\n").filter(Boolean) };
}

type KindFinding = { kind?: string; similarity?: number; original?: { path: string; startLine: number } };

function findingsOf(s: JscpdSession): KindFinding[] {
	return (customMessages(s, FINDINGS)[0]?.details?.findings ?? []) as KindFinding[];
}

describe("renamed and near-miss copies (issue 21)", () => {
	it.each([
		{
			rule: "a renamed copy is reported quietly as a renamed copy of the original, with the original's location",
			path: "src/orders.ts",
			content: RENAMED,
			text: "src/orders.ts:2-15: renamed copy of src/invoice.ts:2-15",
			finding: { kind: "renamed", original: { path: "src/invoice.ts", startLine: 2 } },
		},
		{
			rule: "a near-copy (a statement added, one removed) is reported quietly as a near-copy of the original",
			path: "src/totals.ts",
			content: NEAR,
			text: /src\/totals\.ts:2-15: near-copy of src\/invoice\.ts:2-15 \(\d+% similar/,
			finding: { kind: "similar", original: { path: "src/invoice.ts" } },
		},
	])("$rule", async ({ path, content, text, finding }) => {
		const s = await session({ "src/invoice.ts": INVOICE });
		s.script(toolCall("write", { path, content }), reply(`wrote ${path}`));
		await s.prompt("write an order total function");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		const [message] = customMessages(s, FINDINGS);
		expect(String(message?.content)).toMatch(text);
		expect(findingsOf(s)[0]).toMatchObject(finding);
		// Quiet: no extra provider request, not displayed in print mode.
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

	it.each<{
		rule: string;
		files: Record<string, string>;
		settings?: object;
		write: { path: string; content: string };
	}>([
		{
			rule: "kinds [exact] in the settings: a renamed copy is not reported",
			files: { "src/invoice.ts": INVOICE },
			settings: { kinds: ["exact"] },
			write: { path: "src/orders.ts", content: RENAMED },
		},
		{
			rule: "exact clones keep jscpd's 50-token minimum: a verbatim 32-token block is not a finding",
			files: { "src/retry.ts": POLICY("retryPolicy") },
			write: { path: "src/upload.ts", content: POLICY("uploadRetry") },
		},
		{
			rule: "a trusted project's jscpd config that sets minTokens keeps it for every kind (no lower near-copy minimum)",
			files: { "src/clamp.ts": CLAMP, ".jscpd.json": JSON.stringify({ minTokens: 50 }) },
			write: { path: "src/level.ts", content: CLAMP_RENAMED },
		},
	])("$rule", async ({ files, settings, write }) => {
		const s = await session(files, settings);
		s.script(toolCall("write", write), reply(`wrote ${write.path}`));
		await s.prompt(`write ${write.path}`);
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
		// A jscpd that cannot afford the AST comparison (as on a tree of thousands of alike functions).
		const s = await fixtures.start(
			{ "src/a.ts": duplicatedFunction("computeTotals") },
			{
				prefix: "pi-jscpd-kinds-",
				executable: (agentDir) => nearFailingJscpd(agentDir, "report too large", 3),
			},
		);
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

	it.each<{ rule: string; files: Record<string, string>; untrusted: boolean }>([
		{
			rule: "near-copies from 30 tokens: a renamed copy of a function under jscpd's 50-token minimum is reported",
			files: { "src/clamp.ts": CLAMP },
			untrusted: false,
		},
		{
			rule: "an untrusted project's jscpd config minTokens is not read: near-copies from 30 tokens",
			files: { "src/clamp.ts": CLAMP, ".jscpd.json": JSON.stringify({ minTokens: 50 }) },
			untrusted: true,
		},
	])("$rule", async ({ files, untrusted }) => {
		const s = await session(files);
		if (untrusted) {
			s.session.settingsManager.setProjectTrusted(false);
			await s.reload();
			await waitFor(() => expect(hasBaseline(s)).toBe(true));
		}
		s.script(toolCall("write", { path: "src/level.ts", content: CLAMP_RENAMED }), reply("wrote level.ts"));
		await s.prompt("write a level bound");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		expect(String(customMessages(s, FINDINGS)[0]?.content)).toContain(
			"src/level.ts:1-7: renamed copy of src/clamp.ts:1-7",
		);
	});

	it("a project of many alike functions turns near-copy detection off for the session, and says so: clean names the kinds checked", async () => {
		const { s, runs } = await overloaded();
		expect(s.controller.status().baseline).toMatchObject({ status: "accepted", kinds: ["exact"] });
		// The baseline is an exact scan of its own (not the near scan's exact clones, cut at 30 tokens).
		expect(runs()).toEqual(["near", "exact"]);
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
		expect(runs()).toEqual(["near", "exact", "exact"]);
	});

	it("after /reload an overloaded session stays exact-only and still says why", async () => {
		const { s, runs } = await overloaded();
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
		expect(runs()).toEqual(["near", "exact", "exact"]);
	});

	it("the exact fallback keeps the other detection settings (minTokens)", async () => {
		const s = await fixtures.start(
			{ "src/a.ts": duplicatedFunction("computeTotals") },
			{
				prefix: "pi-jscpd-kinds-",
				settings: { minTokens: 40 },
				executable: (agentDir) => nearFailingJscpd(agentDir, "report too large", 3),
			},
		);
		const baseline = s.controller.state.baseline;
		expect("detection" in baseline && baseline.detection).toMatchObject({ kinds: ["exact"], minTokens: 40 });
	});

	it("clone-kind settings in the project file apply only in a trusted project", async () => {
		const { root, agentDir } = fixtures.sandbox(
			{
				"src/invoice.ts": INVOICE,
				".pi/pi-lifecycle/pi-jscpd.json": JSON.stringify({
					kinds: ["exact"],
					similarity: 0.9,
					minTokens: 30,
				}),
			},
			{ prefix: "pi-jscpd-kinds-" },
		);
		const s = await fixtures.open({ project: root, agentDir });
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
