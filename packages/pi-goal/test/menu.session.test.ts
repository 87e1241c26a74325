/**
 * The `/goal` manager menu on Pi's real session with the kit's dialog stub (TUI mode): every
 * dialog re-checks the goal's identity and the session before it acts, and session replacement
 * dismisses an open dialog. The model's first answer is held by a gate so the goal stays active.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
	createDialogStub,
	createScriptedSession,
	type Deferred,
	type DialogStub,
	deferred,
	reply,
	type ScriptedSession,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { CHANGED_NOTICE } from "../src/adapters/menu.js";
import { MENU_LABELS } from "../src/core/menu-model.js";
import { agentDirWith, goalExtension, goalTool, settle } from "./helpers.js";

let h: ScriptedSession | undefined;
let gate: Deferred<void> | undefined;
afterEach(async () => {
	gate?.resolve();
	await h?.dispose();
	h = undefined;
});

/** A TUI session with an active goal whose first model answer waits for the gate. */
async function activeGoal(stub: DialogStub): Promise<ScriptedSession> {
	const held = deferred();
	gate = held;
	const session = await createScriptedSession({ ui: { context: stub.ui }, extensions: [goalExtension()] });
	h = session;
	session.script(async () => {
		await held.promise;
		return reply("Did part one.");
	});
	await session.session.prompt("/goal Write the two parts");
	return session;
}

const messages = (stub: DialogStub) => stub.notices.map((notice) => notice.message);

/** `/goal status` as the user sees it (a notice). */
async function status(session: ScriptedSession, stub: DialogStub): Promise<string> {
	await session.session.prompt("/goal status");
	return stub.notices.at(-1)?.message ?? "";
}

describe("the /goal menu re-checks before acting (scripted TUI session)", () => {
	it("a clear confirmed after the goal changed does nothing and says why", async () => {
		const stub = createDialogStub();
		const s = await activeGoal(stub);
		const menu = s.session.prompt("/goal");
		(await stub.dialog(0)).answer(MENU_LABELS.clear);
		const confirm = await stub.dialog(1);
		expect(confirm).toMatchObject({ kind: "confirm", title: expect.stringMatching(/^Clear goal g-/) });

		await s.session.prompt("/goal pause"); // the goal changes while the confirmation is open
		confirm.answer(true);
		await menu;

		expect(messages(stub)).toContain(CHANGED_NOTICE);
		expect(messages(stub)).not.toContain("Goal cleared.");
		expect(await status(s, stub)).toMatch(/^Goal g-[0-9a-f]+: paused/);
	});

	it("session replacement dismisses an open /goal dialog and nothing happens", async () => {
		const stub = createDialogStub();
		const s = await activeGoal(stub);
		await s.abort(); // Pi reloads only when idle (Escape: the goal pauses as interrupted)
		// The pause lands once it is clear that no compaction follows the abort (two macrotask turns).
		await settle(s);
		const before = stub.notices.length;
		const menu = s.session.prompt("/goal");
		const dialog = await stub.dialog(0);
		expect(dialog.signal?.aborted).toBe(false);

		await s.reload();
		expect(dialog.settled).toBe(true);
		await menu;
		expect(messages(stub).slice(before)).toEqual([]);
		expect(await status(s, stub)).toMatch(/^Goal g-[0-9a-f]+: paused/);
	});

	it("an answer that arrives after the session was replaced anyway does nothing", async () => {
		const stub = createDialogStub({ honourSignal: false });
		const s = await activeGoal(stub);
		await s.abort();
		const menu = s.session.prompt("/goal");
		(await stub.dialog(0)).answer(MENU_LABELS.clear);
		const confirm = await stub.dialog(1);

		await s.reload();
		confirm.answer(true);
		await menu;
		// Acting anyway would run /goal clear on the replaced runtime's stale ctx (Pi reports an error).
		expect(s.errors).toEqual([]);
		expect(messages(stub)).not.toContain("Goal cleared.");
		expect(await status(s, stub)).toMatch(/^Goal g-[0-9a-f]+: paused/);
	});

	it("Change the token budget sets the budget of the active goal through /goal edit's path", async () => {
		const stub = createDialogStub();
		const s = await activeGoal(stub);
		const menu = s.session.prompt("/goal");
		(await stub.dialog(0)).answer(MENU_LABELS.budget);
		const input = await stub.dialog(1);
		expect(input).toMatchObject({ kind: "input", title: expect.stringMatching(/now no token budget/) });
		input.answer("80k");
		await menu;
		expect(stub.notices.at(-1)?.message).toMatch(
			/^Goal g-[0-9a-f]+ now has a budget of 80k tokens \(active\)\.$/,
		);
		expect(stub.statuses.get("pi-goal")).toMatch(
			/^goal: active \d+s · \d+\/25 responses · budget [\d.k]+\/80k$/,
		);
	});

	it("an invalid value in the settings dialog asks again with the reason, instead of closing", async () => {
		const stub = createDialogStub();
		const agentDir = agentDirWith();
		h = await createScriptedSession({ ui: { context: stub.ui }, extensions: [goalExtension({ agentDir })] });
		const menu = h.session.prompt("/goal");
		const select = await stub.dialog(0);
		select.answer(MENU_LABELS.settings);
		const settings = await stub.dialog(1);
		expect(settings.options).toEqual([
			expect.stringMatching(/^automaticTurns: 25 · responses the agent may give for a goal/),
			expect.stringMatching(/^noProgressTurns: 3 · /),
			expect.stringMatching(/^retryUsageLimits: off · /),
		]);
		settings.answer(settings.options?.[0]);
		const first = await stub.dialog(2);
		expect(first).toMatchObject({
			kind: "input",
			title: expect.stringMatching(/^automaticTurns: responses/),
		});
		first.answer("lots");
		const again = await stub.dialog(3);
		expect(again).toMatchObject({ kind: "input", title: expect.stringMatching(/must be a whole number/) });
		expect(stub.notices.at(-1)).toMatchObject({
			type: "warning",
			message: expect.stringMatching(/Try again/),
		});
		again.answer("40");
		await menu;
		expect(stub.notices.at(-1)?.message).toMatch(/automaticTurns is now 40; saved to/);
		expect(JSON.parse(readFileSync(join(agentDir, "pi-lifecycle", "pi-goal.json"), "utf8"))).toEqual({
			automaticTurns: 40,
		});
	});

	it("an invalid token budget in the menu asks again; Escape then cancels without a change", async () => {
		const stub = createDialogStub();
		const s = await activeGoal(stub);
		const menu = s.session.prompt("/goal");
		(await stub.dialog(0)).answer(MENU_LABELS.budget);
		(await stub.dialog(1)).answer("a lot");
		const again = await stub.dialog(2);
		expect(again).toMatchObject({ kind: "input" });
		again.answer(undefined);
		await menu;
		expect(await status(s, stub)).not.toMatch(/Tokens: .* of /);
	});

	it("the replace dialog calls a waiting goal waiting, not active", async () => {
		const stub = createDialogStub();
		h = await createScriptedSession({
			ui: { context: stub.ui },
			extensions: [goalExtension()],
			responses: [goalTool("goal_wait", { reason: "the CI run" })],
		});
		await h.session.prompt("/goal Write the two parts");
		await settle(h);
		const replacing = h.session.prompt("/goal Something else");
		const confirm = await stub.dialog(0);
		expect(confirm).toMatchObject({
			kind: "confirm",
			text: expect.stringMatching(/ is waiting: the CI run: /),
		});
		expect(confirm.text).not.toMatch(/active/);
		confirm.answer(false);
		await replacing;
	});

	it("Change the money limit sets the goal's money limit through /goal edit's path (issue 30)", async () => {
		const stub = createDialogStub();
		const s = await activeGoal(stub);
		const menu = s.session.prompt("/goal");
		(await stub.dialog(0)).answer(MENU_LABELS.cost);
		const input = await stub.dialog(1);
		expect(input).toMatchObject({ kind: "input", title: expect.stringMatching(/now no money limit/) });
		input.answer("2.50");
		await menu;
		expect(stub.notices.at(-1)?.message).toMatch(
			/^Goal g-[0-9a-f]+ now has a money limit of \$2\.50 \(active\)\.$/,
		);
		expect(stub.statuses.get("pi-goal")).toMatch(/cost (\$[\d.]+\/\$2\.50|not reported)$/);
	});
});
