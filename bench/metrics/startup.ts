/**
 * Import + factory per extension in fresh processes: each child preloads the host packages (Pi
 * has them loaded before it loads an extension), then times `import()` of the built package plus
 * the factory call with a stub `pi` that records registrations (the factory only registers).
 * Median over 9 processes per extension (1 in smoke mode), run one at a time: each costs seconds
 * (the host packages load first), and 20 took 3–4 minutes under load for the same medians.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { type Metric, metric } from "../lib/report.ts";
import { median, round } from "../lib/stats.ts";

const CHILD = join(import.meta.dirname, "startup-child.ts");

/** See the module comment. */
export async function startup(smoke: boolean): Promise<Metric[]> {
	const processes = smoke ? 1 : 9;
	const metrics: Metric[] = [];
	const names = ["@pi-lifecycle/pi-reset", "@pi-lifecycle/pi-goal", "@pi-lifecycle/pi-jscpd"];
	const samples = new Map<
		string,
		{ totalMs: number; importMs: number; factoryMs: number; registrations: number }[]
	>();
	for (let i = 0; i < processes; i++) {
		for (const name of names) {
			const out = execFileSync(process.execPath, [CHILD, name], {
				cwd: import.meta.dirname,
				encoding: "utf8",
				timeout: 60_000,
			});
			const list = samples.get(name) ?? [];
			list.push(JSON.parse(out.trim().split("\n").at(-1) as string));
			samples.set(name, list);
		}
	}
	for (const name of names) {
		const list = samples.get(name) ?? [];
		const short = name.replace("@pi-lifecycle/", "");
		metrics.push(
			metric(
				`startup-${short}`,
				`import + factory, ${short} (median of ${processes} fresh processes)`,
				round(median(list.map((s) => s.totalMs)), 2),
				"ms",
				"<=",
				25,
				{
					medianImportMs: round(median(list.map((s) => s.importMs)), 2),
					medianFactoryMs: round(median(list.map((s) => s.factoryMs)), 3),
					maxTotalMs: round(Math.max(...list.map((s) => s.totalMs)), 2),
					registrations: list[0]?.registrations,
				},
			),
		);
	}
	return metrics;
}
