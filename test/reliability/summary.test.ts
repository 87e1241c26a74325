/**
 * The suite's totals. Every file asserts (in its afterAll) that it ran exactly its planned count,
 * so these totals are what a passing run executed: nothing lost. The pure reducer schedules run in
 * the packages' own suites (their core properties, scripts/seeded-files.mjs), with the same plan.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { BUS, FAULTS, FUZZ, SCHEDULES, SEED, total } from "@pi-lifecycle/seed-plan";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..");

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
			`[reliability] TOTAL (seed ${SEED}): schedules ${schedules} (${SCHEDULES.scriptedSessions} scripted sessions on Pi's loop), fuzz cases ${fuzz} (${restoreSessions} through Pi's session restore), live bus payloads ${bus}, fault cases ${faults} (${FAULTS.jscpdProcess} jscpd process faults, ${FAULTS.durabilityKills} SIGKILL durability runs); each file verifies it ran its planned count (the kit, pi-reset, pi-goal and pi-jscpd reducer schedules in their packages' core properties)`,
		);
	});

	it("every planned schedule is run by a file: a root reliability file or a package's core property", async () => {
		const { PACKAGE_PROPERTIES } = (await import(
			pathToFileURL(join(repo, "scripts", "seeded-files.mjs")).href
		)) as {
			PACKAGE_PROPERTIES: { project: string; files: string[] }[];
		};
		const files = [
			...readdirSync(import.meta.dirname)
				.filter((name) => name.endsWith(".test.ts") && name !== "summary.test.ts")
				.map((name) => join(import.meta.dirname, name)),
			...PACKAGE_PROPERTIES.flatMap(({ project, files }) => files.map((file) => join(repo, project, file))),
		];
		const sources = files.map((file) => readFileSync(file, "utf8"));
		for (const name of Object.keys(SCHEDULES))
			expect(
				sources.some((source) => source.includes(`SCHEDULES.${name}`)),
				name,
			).toBe(true);
	});
});
