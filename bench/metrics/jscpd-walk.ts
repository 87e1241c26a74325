/**
 * pi-jscpd's change detection at each settle (group `jscpd-walk`): one walk of the project's files
 * (path → size, times, inode) compared with the previous walk, on generated TypeScript trees of
 * 2,000 and 20,000 files (200 and 2,000 in smoke mode), in the default trust state (untrusted: the
 * walk alone, no git). Measured through the controller's own probe (`probeOutside`: schedule, walk,
 * compare, record), medians over repeats; jscpd is left out (an executable that does not exist), so
 * no scan competes. Target: <= 100 ms at 20,000 files.
 */
import { lstatSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { createJscpdExtension } from "@pi-lifecycle/pi-jscpd";
import type { JscpdController } from "../lib/extensions.ts";
import { session } from "../lib/extensions.ts";
import { tempDir, treeFile, typescriptTree } from "../lib/project.ts";
import { type Metric, metric } from "../lib/report.ts";
import { median, nowMs, round, waitUntil } from "../lib/stats.ts";

/** Longer than the walk's racy window (project-walk.ts `RACY_MS`, 2 s). */
const RACY_WAIT_MS = 2_500;

async function measure(
	files: number,
	repeats: number,
): Promise<{ files: number; ms: number; runs: number[]; lstatFloorMs: number }> {
	const tree = typescriptTree(files);
	// A file changed within the last 2 s is hashed by the walk (racy: its times cannot decide yet).
	// A generated tree is all fresh; real projects are not, so the figure starts once it has settled.
	// Each round below still rewrites one file, which is then hashed.
	await new Promise((resolve) => setTimeout(resolve, RACY_WAIT_MS));
	const agentDir = tempDir("walk-agent");
	let controller: JscpdController | undefined;
	const factory = createJscpdExtension({
		agentDir: () => agentDir,
		executable: join(agentDir, "no-jscpd"),
		onController: (c) => (controller = c),
	});
	const h = await session([{ name: "pi-jscpd", factory }], { cwd: tree, projectTrusted: false });
	try {
		await waitUntil(() => controller?.status().externalDetection !== "none", 120_000, 5);
		await controller?.settled();
		const runs: number[] = [];
		for (let i = 0; i < repeats; i++) {
			// One changed file per round, so each comparison finds (and records) a change.
			writeFileSync(join(tree, treeFile(i)), `export const changed${i} = ${i};\n`);
			const start = nowMs();
			await controller?.probeOutside();
			runs.push(nowMs() - start);
		}
		if ((controller?.status().changedFiles ?? 0) !== repeats)
			throw new Error(`expected ${repeats} changed files, saw ${controller?.status().changedFiles}`);
		// The floor under any walk: one lstat per file, nothing else (median of 5 passes, same tree).
		const floor: number[] = [];
		for (let pass = 0; pass < 5; pass++) {
			const start = nowMs();
			for (let i = 0; i < files; i++) lstatSync(join(tree, treeFile(i)));
			floor.push(nowMs() - start);
		}
		return {
			files,
			ms: median(runs),
			runs: runs.map((ms) => round(ms, 1)),
			lstatFloorMs: round(median(floor), 1),
		};
	} finally {
		await h.dispose();
		rmSync(tree, { recursive: true, force: true });
		rmSync(agentDir, { recursive: true, force: true });
	}
}

/** See the module comment. */
export async function jscpdWalk(smoke: boolean): Promise<Metric[]> {
	const sizes = smoke ? [200, 2_000] : [2_000, 20_000];
	const repeats = smoke ? 5 : 11;
	const figures = [];
	for (const files of sizes) figures.push(await measure(files, repeats));
	return figures.map((figure) =>
		metric(
			`jscpd-walk-${figure.files}`,
			`change detection at a settle: walk and compare ${figure.files} files (untrusted, no git)`,
			round(figure.ms, 1),
			"ms",
			"<=",
			100,
			{
				runs: figure.runs,
				lstatFloorMs: figure.lstatFloorMs,
				loadAverage: loadavg().map((v) => round(v, 2)),
			},
		),
	);
}
