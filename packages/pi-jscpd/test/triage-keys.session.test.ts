/**
 * Audit of the triage's dismissal keys in real AgentSessions (real jscpd): a dismissal matches a
 * finding by any of its keys everywhere — Browse, the footer, the checkpoint and `changed` — so a
 * clone group the user dismissed from a scan is never reported to the model as a new duplicate.
 */
import { createDialogStub, type DialogStub, reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	customMessages,
	duplicatedFunction,
	type JscpdSession,
	realJscpd,
	sessionFixtures,
	waitFor,
} from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures({ shutdown: true });

const session = (stub?: DialogStub) =>
	fixtures.start(
		{ "src/a.ts": duplicatedFunction("computeTotals") },
		{ prefix: "pi-jscpd-triage-keys-", jscpd: { executable: realJscpd() }, ...(stub ? { ui: stub.ui } : {}) },
	);

/** The model copies a.ts into b.ts; the checkpoint reports it (settled). */
async function copyIntoB(s: JscpdSession): Promise<void> {
	s.script(
		toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
		reply("wrote b.ts"),
	);
	await s.prompt("write b.ts");
	await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
	await s.controller.settled();
}

/** The model adds a second copy of the code to b.ts. */
async function secondCopyIntoB(s: JscpdSession): Promise<void> {
	s.script(
		toolCall("write", {
			path: "src/b.ts",
			content: `${duplicatedFunction("computeOrder")}\n${duplicatedFunction("computeRefund")}`,
		}),
		reply("wrote b.ts again"),
	);
	await s.prompt("add a second copy to b.ts");
}

describe("a dismissal matches a finding by any of its keys", () => {
	it("a scan group the user dismissed is not reported to the model as a new duplicate (changed, checkpoint)", async () => {
		const s = await session();
		// The checkpoint is off while the model copies a.ts; the user scans and dismisses the group.
		await s.prompt("/jscpd off");
		s.script(
			toolCall("write", { path: "src/b.ts", content: duplicatedFunction("computeOrder") }),
			reply("wrote b.ts"),
		);
		await s.prompt("write b.ts");
		await s.controller.settled();
		await s.prompt("/jscpd scan");
		expect(s.controller.triage.counts()).toEqual({ fresh: 0, scan: 1, dismissed: 0 });
		await s.prompt("/jscpd dismiss 1");
		expect(s.controller.triage.counts()).toEqual({ fresh: 0, scan: 0, dismissed: 1 });

		// The model's `changed` lists it as a new duplicate although Browse shows it dismissed.
		s.script(toolCall("jscpd_run", { command: "changed" }), reply("ok"));
		await s.prompt("check for duplicates");
		const changed = JSON.stringify(s.requests.at(-1)?.messages.at(-1));
		expect(changed).not.toContain("src/b.ts");
		expect(changed).toContain("1 the user dismissed as intended not listed");
		expect(s.controller.triage.counts()).toEqual({ fresh: 0, scan: 0, dismissed: 1 });

		// The checkpoint, back on, stays quiet about it too.
		await s.prompt("/jscpd on");
		s.script(toolCall("write", { path: "src/c.ts", content: "export const c = 1;\n" }), reply("wrote c.ts"));
		await s.prompt("write c.ts");
		await waitFor(() => expect(s.controller.status().recentChecks.length).toBeGreaterThan(0));
		await s.controller.settled();
		expect(customMessages(s, FINDINGS)).toHaveLength(0);
		expect(s.errors).toEqual([]);
	});

	it("a dismissal is for that clone: the same code copied again into another file is reported", async () => {
		const s = await session();
		await copyIntoB(s);
		await s.prompt("/jscpd dismiss 1");
		s.script(
			toolCall("write", { path: "src/c.ts", content: duplicatedFunction("computeRefund") }),
			reply("wrote c.ts"),
		);
		await s.prompt("write c.ts");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(2));
		await s.controller.settled();
		expect(JSON.stringify(customMessages(s, FINDINGS).at(-1))).toContain("src/c.ts");
		expect(s.controller.triage.counts()).toEqual({ fresh: 1, scan: 0, dismissed: 1 });
	});

	// An identity counts a file's copies of the content (copy-keys.ts): a second copy makes it new.
	it("a second copy of the dismissed code in the same file is a new clone and is reported", async () => {
		const s = await session();
		await copyIntoB(s);
		await s.prompt("/jscpd dismiss 1");
		await secondCopyIntoB(s);
		await waitFor(() => expect(s.controller.status().recentChecks.length).toBeGreaterThan(1));
		await s.controller.settled();
		// The file's copies are one finding that counts them (copy-keys.ts): the dismissal covered one
		// copy, so two are new again, and the message names the file's copies, not one line as new.
		expect(s.controller.triage.counts()).toEqual({ fresh: 1, scan: 0, dismissed: 0 });
		expect(customMessages(s, FINDINGS)).toHaveLength(2);
		expect(JSON.stringify(customMessages(s, FINDINGS).at(-1))).toContain(
			"in src/b.ts (2 copies now, at lines 1,",
		);
	});

	it("after /tree navigation the footer claims no check result of the other branch (Browse lists none)", async () => {
		const stub = createDialogStub();
		const s = await session(stub);
		const before = s.session.sessionManager.getLeafId();
		await copyIntoB(s);
		await s.session.navigateTree(before ?? "", { summarize: false });
		await s.controller.settled();
		expect(s.controller.triage.counts()).toEqual({ fresh: 0, scan: 0, dismissed: 0 });
		// Not "jscpd: clean": no check ran on this branch; b.ts is still on disk.
		expect(stub.statuses.get("pi-jscpd")).toBe("jscpd: ready");
	});
});

describe("a copy note counts from what the user dismissed", () => {
	it("one more copy of dismissed code is reported as one more copy, not as every copy the file gained since the session started", async () => {
		const s = await session();
		await copyIntoB(s);
		await s.prompt("/jscpd dismiss 1");
		await secondCopyIntoB(s);
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(2));
		await s.controller.settled();
		// The README's promise: the dismissal covered one copy, so the message says one more.
		const text = JSON.stringify(customMessages(s, FINDINGS).at(-1));
		expect(text).toContain("one more copy in src/b.ts (2 copies now, at lines 1,");
		expect(text).not.toContain("2 more copies");
		// `jscpd_run changed` says the same.
		s.script(toolCall("jscpd_run", { command: "changed" }), reply("seen"));
		await s.prompt("list changed duplicates");
		expect(JSON.stringify(s.session.messages.at(-2))).toContain("one more copy in src/b.ts (2 copies now");
	});
});
