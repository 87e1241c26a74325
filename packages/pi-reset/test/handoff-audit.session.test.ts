/**
 * Audit of issue 16's durable handoff: `/compact <instructions>` comes first also when the model's
 * structured handoff is pending, and a handoff survives a hard stop (the session file opened anew).
 */

import { rmSync } from "node:fs";
import { dirname } from "node:path";
import {
	createScriptedSession,
	reply,
	type ScriptedSession,
	toolCalls,
} from "@pi-lifecycle/lifecycle-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import piReset from "../src/index.js";
import { gate, startSession, testTools } from "./helpers.js";

const opened: ScriptedSession[] = [];
afterEach(async () => {
	for (const h of opened.splice(0)) await h.dispose();
});

const compactable = { compaction: { enabled: true, keepRecentTokens: 1 } };
const STRUCTURED =
	"Goal: port the parser\nDone: lexer, verified by pnpm test\nNext action: port parseExpression";

function lastSummary(h: ScriptedSession): string {
	const entries = h.session.sessionManager.getBranch();
	const found = entries.filter((entry) => entry.type === "compaction").at(-1);
	return found?.type === "compaction" ? found.summary : "";
}

describe("/compact <instructions> is the user's handoff", () => {
	it("comes before the model's structured handoff pending from a running new_context batch", async () => {
		const h = await startSession({ settings: compactable });
		opened.push(h);
		const g = gate("compact-instr");
		h.script(reply("OLD-ANSWER"));
		await h.prompt("earlier topic");
		h.script(
			toolCalls([
				{ name: "new_context", args: { handoff: STRUCTURED } },
				{ name: "slow", args: { gate: "compact-instr" } },
			]),
		);
		const run = h.prompt("start work");
		await g.started.promise;
		await h.session.compact("USER-FOCUS: only the printer now");
		await run;
		const summary = lastSummary(h);
		expect(summary).toContain("USER-FOCUS");
		expect(summary).toContain("port parseExpression");
		expect(summary.indexOf("USER-FOCUS")).toBeLessThan(summary.indexOf("Done ("));
	});
});

describe("durable handoff across a hard stop", () => {
	it("a new_context handoff given before the process died is carried by the first reset of the reopened file", async () => {
		const first = await startSession({ session: "file" });
		const g = gate("killed");
		first.script(reply("OLD-ANSWER"));
		await first.prompt("earlier topic");
		first.script(
			toolCalls([
				{ name: "new_context", args: { handoff: "SURVIVES-KILL" } },
				{ name: "slow", args: { gate: "killed" } },
			]),
		);
		const run = first.prompt("start work").catch(() => undefined);
		await g.started.promise;
		const file = first.sessionFile as string;
		// No session_shutdown, no boundary: as if the process were killed mid-batch.
		await first.dispose({ keepFiles: true });
		await run;
		const second = await createScriptedSession({
			session: { open: file },
			settings: compactable,
			extensions: [
				{ name: "pi-reset", factory: piReset },
				{ name: "test-tools", factory: testTools },
			],
		});
		opened.push(second);
		try {
			await second.session.compact();
			expect(lastSummary(second)).toContain("SURVIVES-KILL");
		} finally {
			// The first harness kept its files for the reopen: its temp root is the project's parent.
			rmSync(dirname(first.cwd), { recursive: true, force: true });
		}
	});
});
