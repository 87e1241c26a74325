/**
 * Baseline retention (issue 31): one baseline file per session is written under the agent dir;
 * at session start those of sessions that no longer exist, and old ones, are removed.
 */
import { existsSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_BASELINE_AGE_MS, ORPHAN_GRACE_MS, pruneBaselines } from "../src/adapters/baseline-retention.js";
import { duplicatedFunction, sessionFixtures, waitFor, writeFiles } from "./helpers.js";

const fixtures = sessionFixtures();
const DAY = 24 * 60 * 60 * 1000;

function aged(path: string, ms: number): void {
	const when = (Date.now() - ms) / 1000;
	utimesSync(path, when, when);
}

describe("baseline retention", () => {
	it("session start removes baselines of sessions that no longer exist and old ones; it keeps live, young and its own", async () => {
		const { root, agentDir } = fixtures.sandbox({ "src/a.ts": duplicatedFunction("computeTotals") });
		const dir = join(agentDir, "pi-lifecycle", "pi-jscpd", "baselines");
		writeFiles(dir, {
			"old.json": "{}",
			"gone.json": "{}",
			"young.json": "{}",
			"live.json": "{}",
			"x.json.1.tmp": "",
		});
		writeFiles(agentDir, { "sessions/--elsewhere--/2026-01-01T00-00-00-000Z_live.jsonl": "{}\n" });
		aged(join(dir, "old.json"), MAX_BASELINE_AGE_MS + DAY);
		aged(join(dir, "gone.json"), ORPHAN_GRACE_MS + DAY);
		aged(join(dir, "live.json"), ORPHAN_GRACE_MS + DAY);
		aged(join(dir, "x.json.1.tmp"), ORPHAN_GRACE_MS + DAY);
		const s = await fixtures.ready({ project: root, agentDir, trusted: false });
		await waitFor(() => expect(existsSync(join(dir, "gone.json"))).toBe(false));
		expect(existsSync(join(dir, "old.json"))).toBe(false);
		expect(existsSync(join(dir, "x.json.1.tmp"))).toBe(false);
		expect(existsSync(join(dir, "young.json"))).toBe(true);
		expect(existsSync(join(dir, "live.json"))).toBe(true);
		const own = `${s.session.sessionManager.getSessionId()}.json`;
		expect(existsSync(join(dir, own))).toBe(true);
	});

	it("a live session's baseline is kept even when old files are pruned around it (the session's own folder counts)", async () => {
		const agentDir = fixtures.dir("pi-jscpd-agent-");
		const sessions = fixtures.dir("pi-jscpd-sessions-");
		const dir = join(agentDir, "pi-lifecycle", "pi-jscpd", "baselines");
		writeFiles(dir, { "mine.json": "{}", "other.json": "{}" });
		writeFiles(sessions, { "2026-01-01T00-00-00-000Z_mine.jsonl": "{}\n" });
		for (const name of ["mine.json", "other.json"]) aged(join(dir, name), ORPHAN_GRACE_MS + DAY);
		const removed = await pruneBaselines({ directory: dir, agentDir, sessionDir: sessions, keep: new Set() });
		expect(removed).toEqual(["other.json"]);
	});
});
