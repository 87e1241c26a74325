/**
 * More new duplicates than one message holds (issue 31, "no size cliff"; status in users' words):
 * a script that writes many copies. The message names `maxFindings` of them and says how many more;
 * the footer counts them all; `/jscpd status` says what the last check found, all of it, and how
 * many were told to the agent, never only the told ones. Real jscpd, untrusted plain directory.
 */
import { createDialogStub, reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { describe, expect, it } from "vitest";
import { statusText } from "../src/core/status-text.js";
import { customMessages, duplicatedFunction, otherFunction, sessionFixtures, waitFor } from "./helpers.js";

const FINDINGS = "pi-jscpd/findings";
const fixtures = sessionFixtures();

describe("a check that finds more new duplicates than one message holds", () => {
	it("status says how many new duplicates the last check found and how many were told to the agent; the footer counts them all", async () => {
		const stub = createDialogStub();
		const s = await fixtures.start(
			{ "src/a.ts": duplicatedFunction("computeTotals"), "src/w.ts": otherFunction("countWords") },
			{ trusted: false, ui: stub.ui },
		);
		s.script(
			toolCall("bash", {
				command: 'for i in 1 2 3 4 5 6 7; do sed "s/computeTotals/total$i/" src/a.ts > "src/copy$i.ts"; done',
			}),
			reply("generated"),
		);
		await s.prompt("generate the variants");
		await waitFor(() => expect(customMessages(s, FINDINGS)).toHaveLength(1));
		await s.controller.settled();
		expect(JSON.stringify(customMessages(s, FINDINGS)[0]?.content)).toContain("2 more not shown");
		await waitFor(() => expect(stub.statuses.get("pi-jscpd")).toBe("jscpd: 7 new duplicates"));
		const status = statusText(s.controller.status());
		expect(status).toContain("Last check: 7 new duplicates, 5 of them reported to the agent");
	}, 120_000);
});
