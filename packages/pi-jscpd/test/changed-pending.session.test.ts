/**
 * `changed` while the session baseline is still being recorded (the first prompt of a session, as
 * `pi -p` sends it at once): the answer says what to do in the words of whoever asked. The model
 * cannot run `/jscpd` commands, so its tool result names `jscpd_run`; the user's names `/jscpd`.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import {
	duplicatedFunction,
	jscpdToolResults,
	realJscpd,
	sessionFixtures,
	waitFor,
	writeScript,
} from "./helpers.js";

const fixtures = sessionFixtures();

/** A session whose baseline scan waits for `release` in the returned gate folder. */
async function heldBaseline() {
	const gate = fixtures.dir("pi-jscpd-gate-");
	const { root, agentDir } = fixtures.sandbox({ "src/a.ts": duplicatedFunction("computeTotals") });
	writeFileSync(join(gate, "hold"), "");
	const jscpd = writeScript(
		join(gate, "bin", "jscpd"),
		`REAL='${realJscpd()}'
if [ "$1" = "--version" ]; then exec "$REAL" --version; fi
if [ -f '${gate}/hold' ]; then
	rm -f '${gate}/hold'; touch '${gate}/started'
	while [ ! -f '${gate}/release' ]; do sleep 0.05; done
fi
exec "$REAL" "$@"`,
	);
	const s = await fixtures.open({ project: root, agentDir, trusted: false, jscpd: { executable: jscpd } });
	await waitFor(() => expect(existsSync(join(gate, "started"))).toBe(true));
	return { s, release: () => writeFileSync(join(gate, "release"), "") };
}

describe("changed while the baseline is being recorded", () => {
	it("the model's jscpd_run changed names jscpd_run, never a /jscpd command it cannot run", async () => {
		const { s, release } = await heldBaseline();
		s.script(toolCall("jscpd_run", { command: "changed" }), reply("will retry"));
		await s.prompt("check");
		release();
		const text = jscpdToolResults(s);
		expect(text).toContain("being recorded");
		expect(text).toContain("jscpd_run changed");
		expect(text).not.toContain("/jscpd");
		await s.controller.settled();
	}, 60_000);
});
