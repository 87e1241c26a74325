/**
 * The reliability suite's plan: the fixed seed (overridable with `PI_LIFECYCLE_SEED`), how many
 * schedules, fuzz cases and fault cases each file runs, and a per-file tally that checks the run
 * really executed what the plan says ("nothing lost"). test/reliability/summary.test.ts prints the
 * totals. Shared by the root `test/reliability/` files and each package's core properties
 * (`packages/<name>/test/*.property.test.ts`) as the private workspace package
 * `@pi-lifecycle/seed-plan`: a dev dependency, never published.
 */
import { join, relative, sep } from "node:path";
import fc from "fast-check";
import { expect, vi } from "vitest";

// A pure property of 1,500 schedules takes 40-50 s on a shared 2-core machine: the root config's
// 60 s timed it out on random seeds (soak, issue 25). Hangs are still caught, later.
vi.setConfig({ testTimeout: 300_000 });

/** The regression seed: what every run uses unless `PI_LIFECYCLE_SEED` is set. */
export const FIXED_SEED = 20_260_812;

/** Largest seed accepted: fast-check seeds are 32-bit, and offsets up to 1,000 are added. */
export const MAX_SEED = 2 ** 31 - 1_001;

/**
 * Base seed of every property; a failure prints the seed and the shrunk schedule. A value that is
 * not a seed stops the suite: silently running the fixed seed instead would "reproduce" nothing.
 */
export const SEED: number = (() => {
	const raw = process.env.PI_LIFECYCLE_SEED;
	if (raw === undefined || raw === "") return FIXED_SEED;
	const parsed = /^\d{1,10}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
	if (!(parsed <= MAX_SEED))
		throw new Error(`PI_LIFECYCLE_SEED must be an integer 0-${MAX_SEED}, not ${JSON.stringify(raw)}`);
	return parsed;
})();

/**
 * The shell command, run from the repository root, that reruns `target` (a path under `project`,
 * by default the whole root reliability directory under `test`) with `seed`. `project` is `test`
 * or a package directory such as `packages/pi-goal`: vitest runs there, with that project's config.
 * A plain command line: pasted into sh or bash it runs (an environment prefix on a `( … )`
 * subshell would be a syntax error).
 */
export function reproduceCommand(target = "reliability", seed: number = SEED, project = "test"): string {
	return `cd ${project} && PI_LIFECYCLE_SEED=${seed} npx -y pnpm@12.4.2 exec vitest run ${target}`;
}

const REPO_ROOT = join(import.meta.dirname, "..", "..");

/** Where a test file runs: its project (`test` or `packages/<name>`) and its path there. */
export function projectOf(file: string): { project: string; target: string } | undefined {
	const rel = relative(REPO_ROOT, file).split(sep).join("/");
	const match = /^(test|packages\/[\w.-]+)\/([\w./-]+)$/.exec(rel);
	return match?.[1] && match[2] ? { project: match[1], target: match[2] } : undefined;
}

/** The current test file's project and path (the whole root reliability directory outside a test). */
function currentTarget(): { project: string; target: string } {
	const file = expect.getState().testPath;
	return (file && projectOf(file)) || { project: "test", target: "reliability" };
}

/**
 * First line of every failure message: the seed and the command that reruns this file with it
 * (`target` under `project`; by default the current test file, wherever it lives).
 */
export function reproduceLine(target?: string, project = "test"): string {
	const where = target === undefined ? currentTarget() : { project, target };
	return `[reliability] seed ${SEED}; reproduce: ${reproduceCommand(where.target, SEED, where.project)}`;
}

/** The whole suite's reproduce line (what summary and the docs show). */
export const REPRODUCE = reproduceLine("reliability");

/**
 * Puts {@link reproduceLine} in front of fast-check's report (seed, path, shrunk counterexample),
 * and in front of an error thrown while generating a value: fast-check lets that escape `assert`
 * without a report, and a generator that throws is the defect class of issue 25.
 */
const reproducible: fc.Plugin<unknown> = () => ({
	decorateGenerate: (generate) => (mrng, runId) => {
		try {
			return generate(mrng, runId);
		} catch (error) {
			throw new Error(`${reproduceLine()}\na generator threw (fix the generator): ${String(error)}`, {
				cause: error,
			});
		}
	},
	onAllRunsComplete(details) {
		if (!details.failed) return;
		throw new Error(`${reproduceLine()}\n${fc.defaultReportMessage(details) ?? "property failed"}`, {
			cause: details.errorInstance,
		});
	},
});

/** fast-check parameters for one property: a derived seed and its planned runs. */
export function runs(offset: number, numRuns: number) {
	// biome-ignore lint/suspicious/noExplicitAny: fast-check's Plugin<Ts> is invariant in Ts; this one reads no values.
	const plugins: fc.Plugin<any>[] = [reproducible];
	return { seed: SEED + offset, numRuns, endOnFailure: false, plugins };
}

/** Schedules per property (pure reducers: most of the volume; scripted sessions: few). */
export const SCHEDULES = {
	kitDispatcher: 2_500,
	kitBoundaryMerge: 1_500,
	kitMutex: 1_500,
	resetReducer: 2_000,
	goalReducer: 2_000,
	jscpdScheduler: 1_500,
	jscpdDeliveries: 1_000,
	scriptedSessions: 40,
} as const;

/** Fuzz cases per persisted-data reader (pure volume) and through the real restore path. */
export const FUZZ = {
	goalState: 1_200,
	goalContract: 1_200,
	goalContinuation: 1_000,
	resetState: 1_200,
	resetMarkers: 1_200,
	jscpdState: 1_200,
	jscpdBaselineFiles: 1_000,
	jscpdDeliveries: 1_000,
	settingsGoal: 1_000,
	settingsReset: 1_000,
	settingsJscpd: 1_000,
	restoreSessions: 12,
} as const;

/** Hostile live payloads per bus listener (bus.property), each asserted separately. */
export const BUS = {
	resetAnnouncement: 1_000,
	resetAnnouncementCopy: 1_000,
	goalStart: 1_000,
	workflowMutex: 500,
	usageOffers: 300,
	sessionReset: 300,
	sessionGoalStart: 300,
	sessionGoalCancel: 300,
	sessionMutex: 300,
} as const;

/** Named process-fault and durability cases. */
export const FAULTS = {
	jscpdProcess: 8,
	durabilityKills: 5,
} as const;

/** Sum of a plan table. */
export function total(table: Readonly<Record<string, number>>): number {
	return Object.values(table).reduce((sum, n) => sum + n, 0);
}

/** Counts executions of one planned item in this test file. */
export class Tally {
	readonly #counts = new Map<string, number>();
	/** Adds one execution. */
	hit(name: string, n = 1): void {
		this.#counts.set(name, (this.#counts.get(name) ?? 0) + n);
	}
	/** Executions so far. */
	count(name: string): number {
		return this.#counts.get(name) ?? 0;
	}
	/** Asserts every planned item ran exactly its planned count and prints one line. */
	verify(file: string, planned: Readonly<Record<string, number>>): void {
		const lines: string[] = [];
		for (const [name, n] of Object.entries(planned)) {
			expect(this.count(name), `${file}: ${name} ran ${this.count(name)} of ${n}\n${reproduceLine()}`).toBe(
				n,
			);
			lines.push(`${name} ${n}`);
		}
		console.log(`[reliability] ${file} (seed ${SEED}): ${lines.join(", ")}`);
	}
	/** Asserts every coverage counter moved (a property cannot pass vacuously) and prints them. */
	covered(file: string, seen: Readonly<Record<string, number>>): void {
		console.log(`[reliability] ${file} coverage: ${JSON.stringify(seen)}`);
		for (const [name, n] of Object.entries(seen))
			expect(n, `${file}: ${name} never happened\n${reproduceLine()}`).toBeGreaterThan(0);
	}
}
