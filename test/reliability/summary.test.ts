/**
 * The suite's totals. Every file asserts (in its afterAll) that it ran exactly its planned count,
 * so these totals are what a passing run executed: nothing lost.
 */
import { describe, expect, it } from "vitest";
import { BUS, FAULTS, FUZZ, SCHEDULES, SEED, total } from "./support/plan.js";

describe("reliability suite totals", () => {
	it("runs at least 10,000 schedules, at least 1,000 fuzz cases per reader, and every fault case", () => {
		const schedules = total(SCHEDULES);
		const { restoreSessions, ...pure } = FUZZ;
		const fuzz = total(FUZZ);
		const faults = total(FAULTS);
		const bus = total(BUS);
		expect(schedules).toBeGreaterThanOrEqual(10_000);
		for (const [reader, n] of Object.entries(pure)) expect(n, reader).toBeGreaterThanOrEqual(1_000);
		expect(restoreSessions).toBeGreaterThan(0);
		for (const [listener, n] of Object.entries(BUS)) expect(n, listener).toBeGreaterThanOrEqual(300);
		console.log(
			`[reliability] TOTAL (seed ${SEED}): schedules ${schedules} (${SCHEDULES.scriptedSessions} scripted sessions on Pi's loop), fuzz cases ${fuzz} (${restoreSessions} through Pi's session restore), live bus payloads ${bus}, fault cases ${faults} (${FAULTS.jscpdProcess} jscpd process faults, ${FAULTS.durabilityKills} SIGKILL durability runs); each file verifies it ran its planned count`,
		);
	});
});
