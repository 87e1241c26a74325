/**
 * Findings triage in real AgentSessions (real jscpd, the kit's dialog stub as the TUI): Browse
 * lists what the automatic checkpoint found with the footer's count; a dismissal is kept across
 * reloads, never reported to the model again (checkpoint, `changed`, `scan`, re-delivery after a
 * reset) and undone by `/jscpd undismiss`; "Ask the agent to fix it" sends one user message from
 * idle and refuses while the agent works or another workflow holds `workflow:mutex:v1`.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { createWorkflowMutex } from "@pi-lifecycle/lifecycle-kit";
import {
	createDialogStub,
	type DialogStub,
	reply,
	requestTexts,
	toolCall,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { FIX_REFUSALS } from "../src/adapters/triage-actions.js";
import { DISMISSAL_ENTRY } from "../src/core/dismissals.js";
import { OVERVIEW_LABELS, OVERVIEW_NOTICES } from "../src/core/overview.js";
import { COMMAND_NAMES } from "../src/core/registry.js";
import { TRIAGE_LABELS } from "../src/core/triage-text.js";
import { goalLoop } from "./goal-loop.js";
import {
	customMessages,
	duplicatedFunction,
	hasBaseline,
	type JscpdSession,
	jscpdSession,
	realJscpd,
	remove,
	tempDir,
	waitFor,
	writeFiles,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const SEEN = "new duplicated block";
let h: JscpdSession | undefined;
let root = "";
const dirs: string[] = [];
afterEach(async () => {
	await h?.controller.shutdown();
	await h?.dispose();
	h = undefined;
	remove(...dirs.splice(0));
});

async function session(options: { stub?: DialogStub; extra?: ExtensionFactory[]; file?: boolean } = {}) {
	root = tempDir("pi-jscpd-triage-");
	const agentDir = tempDir("pi-jscpd-agent-");
	dirs.push(root, agentDir);
	writeFiles(root, { "src/a.ts": duplicatedFunction("computeTotals") });
	const s = await jscpdSession({
		project: root,
		agentDir,
		jscpd: { executable: realJscpd() },
		extra: options.extra,
		session: options.file ? "file" : undefined,
		...(options.stub ? { ui: options.stub.ui } : {}),
	});
	h = s;
	await waitFor(() => expect(hasBaseline(s)).toBe(true));
	await s.controller.settled();
	return s;
}

/** The model writes a copy of src/a.ts; the automatic checkpoint delivers it after the settle. */
async function automaticFinding(s: JscpdSession) {
	s.script(
		toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
		reply("wrote b.ts"),
	);
	await s.prompt("write b.ts");
	await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
	await s.controller.settled();
}

const requestText = (s: JscpdSession, index: number) => {
	const request = s.requests[index];
	return request ? requestTexts(request).join("\n") : "";
};

/** Opens `/jscpd`, Browse, picks finding 1; resolves with the finding menu (dialog `first + 2`). */
async function openFinding(s: JscpdSession, stub: DialogStub, first: number, browse: string) {
	const command = s.prompt("/jscpd");
	(await stub.dialog(first)).answer(OVERVIEW_LABELS.browse(browse));
	const list = await stub.dialog(first + 1);
	list.answer(list.options?.[0]);
	return { command, menu: await stub.dialog(first + 2), list };
}

describe("browse lists every current finding with the footer's count", () => {
	it("browse after an automatic finding: the overview offers it (count == footer), newest first, told to the model", async () => {
		const stub = createDialogStub();
		const s = await session({ stub });
		await automaticFinding(s);
		expect(stub.statuses.get("pi-jscpd")).toBe("jscpd: 1 new duplicate");

		const { command, menu, list } = await openFinding(s, stub, 0, "1");
		expect(list.title).toBe("jscpd findings, newest first (1)");
		expect(list.options).toHaveLength(1);
		expect(list.options?.[0]).toMatch(
			// The new copy first, the existing code second.
			/^1\. src\/b\.ts:1-\d+ ≈ src\/a\.ts:1-\d+ · copies existing code · \d+ lines · reported to the model$/,
		);
		expect(menu.title).toMatch(/^Finding 1: copies existing code \(from the automatic checkpoint\)/);
		expect(menu.options).toEqual([
			TRIAGE_LABELS.fix,
			TRIAGE_LABELS.show,
			TRIAGE_LABELS.dismiss,
			TRIAGE_LABELS.back,
		]);
		menu.answer(TRIAGE_LABELS.show);
		// Show both blocks returns to the same menu.
		(await stub.dialog(3)).answer(undefined);
		await command;
		const blocks = stub.notices.find((n) => n.message.startsWith("First block:"))?.message ?? "";
		expect(blocks).toMatch(/^First block: src\/b\.ts:1-\d+\n {4}1 │ export function computeOrder/);
		expect(blocks).toMatch(/\n\nSecond block: src\/a\.ts:1-\d+\n {4}1 │ export function computeTotals/);
		expect(s.errors).toEqual([]);
	});

	it("a scan's groups are listed after the new duplicates; the menu counts them apart from the footer's", async () => {
		const stub = createDialogStub();
		const s = await session({ stub });
		writeFiles(root, { "src/c.ts": duplicatedFunction("scanOnly") });
		await s.prompt("/jscpd scan");
		const command = s.prompt("/jscpd");
		const overview = await stub.dialog(0);
		expect(overview.options).toContain(OVERVIEW_LABELS.browse("0 · 1 from the last scan"));
		overview.answer(undefined);
		await command;
	});
});

describe("dialog rules: every answer is re-checked", () => {
	it("a finding's menu answered after a newer result renumbered the list does nothing and says why", async () => {
		const stub = createDialogStub();
		const s = await session({ stub });
		await automaticFinding(s);
		const { command, menu } = await openFinding(s, stub, 0, "1");
		await s.prompt("/jscpd changed");
		const before = stub.notices.length;
		menu.answer(TRIAGE_LABELS.dismiss);
		await command;
		expect(stub.notices.slice(before)).toEqual([{ message: OVERVIEW_NOTICES.findings, type: "warning" }]);
		expect(s.controller.triage.counts()).toEqual({ fresh: 1, scan: 0, dismissed: 0 });
		expect(
			s.session.sessionManager.getBranch().some((e) => "customType" in e && e.customType === DISMISSAL_ENTRY),
		).toBe(false);
	});

	it("a finding's menu answered in the same session and list acts (control for the re-check)", async () => {
		const stub = createDialogStub();
		const s = await session({ stub });
		await automaticFinding(s);
		const { command, menu } = await openFinding(s, stub, 0, "1");
		menu.answer(TRIAGE_LABELS.dismiss);
		const again = await stub.dialog(3);
		expect(again.options).toContain(TRIAGE_LABELS.undo);
		again.answer(TRIAGE_LABELS.back);
		await command;
		expect(s.controller.triage.counts()).toEqual({ fresh: 0, scan: 0, dismissed: 1 });
		expect(stub.statuses.get("pi-jscpd")).toBe("jscpd: clean · 1 dismissed");
	});
});

describe("dismissed findings", () => {
	it("a dismissed finding is never reported to the model again: not re-delivered after a reset", async () => {
		const s = await session({ extra: [goalLoop({ continuations: 3, resetAfter: 2 })] });
		s.script(
			toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
			reply("iteration 1: wrote b.ts"),
			// Iteration 2: the finding is queued into the run; the user dismisses it (a command runs
			// at once while the agent works); the boundary that ends iteration 2 resets.
			async () => {
				await waitFor(() => expect(s.controller.status().lastOutcome?.kind).toBe("findings"));
				await s.session.prompt("/jscpd dismiss 1");
				return reply("iteration 2");
			},
			// Iteration 3 (new window): the reset was announced; nothing is withdrawn or checked again.
			async () => {
				await s.controller.settled();
				return reply("iteration 3");
			},
			reply("iteration 4"),
		);
		await s.prompt("work on the goal");
		await s.controller.settled();
		expect(s.providerCalls).toBe(5);
		for (let i = 0; i < s.requests.length; i++) expect(requestText(s, i)).not.toContain(SEEN);
		expect(customMessages(s, FINDINGS)).toHaveLength(1);
		expect(s.controller.status().redelivered).toBe(0);
		expect(s.controller.triage.counts()).toEqual({ fresh: 0, scan: 0, dismissed: 1 });
		expect(s.errors).toEqual([]);
	});

	it("a dismissal is kept across reloads, keeps the finding out of changed, scan and the checkpoint, and undismiss undoes it", async () => {
		const s = await session({ file: true });
		await automaticFinding(s);
		await s.prompt("/jscpd dismiss 1");
		const entries = s.session.sessionManager.getBranch().filter((e) => e.type === "custom");
		expect(entries.filter((e) => "customType" in e && e.customType === DISMISSAL_ENTRY)).toHaveLength(1);

		await s.reload();
		await s.controller.settled();
		// The model asks: the dismissed finding is not listed.
		s.script(
			toolCall("jscpd_run", { command: "changed" }),
			toolCall("jscpd_run", { command: "scan" }),
			reply("ok"),
		);
		await s.prompt("check for duplicates");
		const changed = JSON.stringify(s.requests.at(-2)?.messages.at(-1));
		expect(changed).toContain("no new duplicates");
		expect(changed).toContain("1 the user dismissed as intended not listed");
		const scan = JSON.stringify(s.requests.at(-1)?.messages.at(-1));
		expect(scan).toContain("no duplicated blocks found");
		expect(scan).not.toContain("src/b.ts");

		// A new mutation elsewhere: the checkpoint runs and stays quiet about the dismissed finding.
		s.script(toolCall("write", { path: "src/c.ts", content: "export const c = 1;\n" }), reply("wrote c.ts"));
		await s.prompt("write c.ts");
		await waitFor(() => expect(s.controller.status().recentChecks.length).toBeGreaterThan(0));
		await s.controller.settled();
		expect(customMessages(s, FINDINGS)).toHaveLength(1);

		// Undo: reported again at the next check (a `changed` run by the user lists it now).
		await s.prompt("/jscpd undismiss 1");
		expect(s.controller.triage.counts()).toEqual({ fresh: 1, scan: 0, dismissed: 0 });
		s.script(toolCall("jscpd_run", { command: "changed" }), reply("seen"));
		await s.prompt("check again");
		expect(JSON.stringify(s.requests.at(-1)?.messages.at(-1))).toMatch(
			/1 new duplicate\(s\)[\s\S]*src\/b\.ts/,
		);
		expect(s.errors).toEqual([]);
	});

	it("only the user can dismiss: jscpd_run offers no dismiss, and its help does not mention it", async () => {
		const s = await session();
		const tool = s.session.getAllTools().find((t) => t.name === "jscpd_run");
		expect(JSON.stringify(tool?.parameters)).not.toContain("dismiss");
		expect(
			(tool?.parameters as { properties?: { command?: { enum?: string[] } } } | undefined)?.properties
				?.command?.enum,
		).toEqual([...COMMAND_NAMES]);
		s.script(
			toolCall("jscpd_run", { command: "dismiss", args: ["1"] }),
			toolCall("jscpd_run", { command: "help" }),
			reply("ok"),
		);
		await s.prompt("dismiss it");
		expect(JSON.stringify(s.requests.at(-2)?.messages.at(-1))).toMatch(/"isError":true/);
		expect(JSON.stringify(s.requests.at(-1)?.messages.at(-1))).not.toContain("dismiss");
		expect(
			s.session.sessionManager.getBranch().some((e) => "customType" in e && e.customType === DISMISSAL_ENTRY),
		).toBe(false);
	});
});

describe("ask the agent to fix it", () => {
	it("ask-to-fix while idle sends one user message naming both locations", async () => {
		const stub = createDialogStub();
		const s = await session({ stub });
		await automaticFinding(s);
		const calls = s.providerCalls;
		s.script(reply("I will extract the shared code."));
		const { command, menu } = await openFinding(s, stub, 0, "1");
		menu.answer(TRIAGE_LABELS.fix);
		await command;
		await waitFor(() => expect(s.providerCalls).toBe(calls + 1));
		await s.session.agent.waitForIdle();
		const users = s.session.sessionManager
			.getBranch()
			.flatMap((e) =>
				e.type === "message" && e.message.role === "user" ? [JSON.stringify(e.message.content)] : [],
			);
		expect(users.filter((text) => text.includes("jscpd found duplicated code"))).toHaveLength(1);
		expect(users.at(-1)).toMatch(/src\/b\.ts lines 1-\d+ and src\/a\.ts lines 1-\d+/);
		expect(stub.notices.at(-1)?.message).toBe("jscpd: asked the agent to fix finding 1.");
	});

	it("ask-to-fix while the agent is busy refuses and says why; nothing is queued", async () => {
		const stub = createDialogStub();
		const s = await session({ stub });
		await automaticFinding(s);
		let notice = "";
		s.script(async () => {
			const { command, menu } = await openFinding(s, stub, 0, "1");
			menu.answer(TRIAGE_LABELS.fix);
			await command;
			notice = stub.notices.at(-1)?.message ?? "";
			return reply("busy work done");
		});
		await s.prompt("do something else");
		await s.controller.settled();
		expect(notice).toBe(FIX_REFUSALS.busy);
		expect(s.providerCalls).toBe(3);
		expect(JSON.stringify(s.session.sessionManager.getBranch())).not.toContain("jscpd found duplicated code");
	});

	it("ask-to-fix while another workflow holds workflow:mutex:v1 refuses and says why", async () => {
		const holder: ExtensionFactory = (pi) => {
			const mutex = createWorkflowMutex(pi);
			pi.on("session_start", () => {
				mutex.tryAcquire();
			});
		};
		const stub = createDialogStub();
		const s = await session({ stub, extra: [holder] });
		await automaticFinding(s);
		const calls = s.providerCalls;
		const { command, menu } = await openFinding(s, stub, 0, "1");
		menu.answer(TRIAGE_LABELS.fix);
		await command;
		expect(stub.notices.at(-1)?.message).toBe(FIX_REFUSALS.workflow);
		expect(s.providerCalls).toBe(calls);
	});
});
