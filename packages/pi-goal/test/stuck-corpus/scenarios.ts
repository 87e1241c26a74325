/**
 * The stuck/progress corpus (issue 30): scripted goal work, both halves. A `stuck` scenario must be
 * paused by the stuck detector within 8 requests; a `progress` scenario must never be stopped by it
 * (it finishes with goal_complete). Each step is one model response: tool calls with the output the
 * scripted workspace returns for them, a text-only reply, or a goal_wait (polling). The same data
 * drives the rules' unit tests, the scripted sessions and the `goal-runaway` bench group.
 */

/** One tool call and what the workspace answers. */
export interface CorpusCall {
	readonly tool: "shell" | "write_file" | "edit_file" | "read_file";
	readonly args: Readonly<Record<string, unknown>>;
	readonly output: string;
	readonly isError?: boolean;
}

/** One model response. */
export type CorpusStep =
	| { readonly calls: readonly CorpusCall[] }
	| { readonly text: string }
	/** goal_wait with resume_after_ms (the scenario runner fires the deadline). */
	| { readonly wait: number; readonly reason: string };

/** One scenario. */
export interface Scenario {
	readonly name: string;
	readonly kind: "stuck" | "progress";
	/** The rule expected to pause a stuck scenario. */
	readonly rule?: "repeated-action" | "repeated-error" | "action-cycle" | "repeated-reply";
	readonly steps: readonly CorpusStep[];
}

const sh = (command: string, output: string, isError = false): CorpusStep => ({
	calls: [{ tool: "shell", args: { command }, output, isError }],
});
const repeat = (n: number, make: (i: number) => CorpusStep): CorpusStep[] =>
	Array.from({ length: n }, (_, i) => make(i));

const failingTests = (i: number, failed = 2) =>
	`FAIL src/parser.test.ts\n  ● parses nested lists\n    expected 3, received 2\nTests: ${failed} failed, 14 passed\nTime: ${(1.1 + i * 0.13).toFixed(2)} s\nRan all test suites at 2026-12-03T08:0${i % 10}:11Z`;

/** Work that repeats itself: each must pause within 8 requests. */
export const STUCK: readonly Scenario[] = [
	{
		name: "the same failing test command with the same output (timings differ)",
		kind: "stuck",
		rule: "repeated-action",
		steps: repeat(30, (i) => sh("npm test", failingTests(i), true)),
	},
	{
		name: "the same failing build whose output names a fresh temp directory each time",
		kind: "stuck",
		rule: "repeated-action",
		steps: repeat(30, (i) =>
			sh(
				"npm run build",
				`Error: ENOENT: no such file or directory, open '/tmp/vite-build-${["Qx7aZ2", "pL9kWe", "Zr3TyU", "mN0bVc"][i % 4]}/manifest.json'\n    at build (node_modules/vite/dist/index.js:12:7)`,
				true,
			),
		),
	},
	{
		name: "reading a missing file again and again",
		kind: "stuck",
		rule: "repeated-action",
		steps: repeat(30, () => ({
			calls: [
				{
					tool: "read_file",
					args: { path: "src/config.json" },
					output: "ENOENT: no such file or directory, open 'src/config.json'",
					isError: true,
				},
			],
		})),
	},
	{
		name: "the same error from different commands",
		kind: "stuck",
		rule: "repeated-error",
		steps: repeat(30, (i) =>
			sh(
				["npm run migrate", "npm run migrate -- --force", "npx prisma migrate deploy", "npm run db:up"][
					i % 4
				] as string,
				"Error: connect ECONNREFUSED 127.0.0.1:5432",
				true,
			),
		),
	},
	{
		name: "ping-pong between two commands",
		kind: "stuck",
		rule: "action-cycle",
		steps: repeat(30, (i) =>
			i % 2 === 0
				? sh("git stash", "Saved working directory and index state WIP on main: 1a2b3c4 wip")
				: sh("git stash pop", "error: could not restore untracked files from stash", true),
		),
	},
	{
		name: "a cycle of three actions",
		kind: "stuck",
		rule: "action-cycle",
		steps: repeat(
			30,
			(i) =>
				[
					sh("npm run build", "build ok"),
					sh("npm test", failingTests(0, 1), true),
					{
						calls: [
							{
								tool: "edit_file",
								args: { path: "src/parser.ts", old: "a", new: "b" },
								output: "Edited src/parser.ts",
							},
						],
					},
				][i % 3] as CorpusStep,
		),
	},
	{
		name: "the same crash whose output names a fresh address, request id, pid, elapsed time and temp dir each run",
		kind: "stuck",
		rule: "repeated-action",
		steps: repeat(30, (i) =>
			sh(
				"python -m app.sync",
				[
					`(node:${87 + i * 14}) Warning: spawned helper pid ${203 + i}`,
					"Traceback (most recent call last):",
					`TypeError: <app.Config object at 0x7f${(0x3a2b1c4d90 + i * 0x1234567).toString(16)}> is not JSON serializable`,
					`  while writing /tmp/pytest-of-dev/pytest-${i + 3}/sync0/out.json`,
					`AccessDenied (RequestId: ${["3f2a9c1e", "b81d0e77", "0c4e5f12"][i % 3]}-${["9a1b", "c2d3", "e4f5"][i % 3]}-4c2d-8e1f-${(0x1a2b3c4d5e6f + i).toString(16)})`,
					`Randomized with seed ${1000 + i * 37}`,
					`real\t0m${i}.${100 + i}s  (took 1m${10 + i}s)`,
				].join("\n"),
				true,
			),
		),
	},
	{
		name: "the same text-only reply",
		kind: "stuck",
		rule: "repeated-reply",
		steps: repeat(30, () => ({ text: "I will now implement the parser changes." })),
	},
	{
		name: "a monologue with a changing step counter",
		kind: "stuck",
		rule: "repeated-reply",
		steps: repeat(30, (i) => ({
			text: `Step ${i + 1}: still analysing the code base, ${20 - i} files to go.`,
		})),
	},
];

/** Real progress: none may be stopped by the detector (each ends with goal_complete). */
export const PROGRESS: readonly Scenario[] = [
	{
		name: "a new file each turn",
		kind: "progress",
		steps: repeat(14, (i) => ({
			calls: [
				{
					tool: "write_file",
					args: { path: `src/module${i}.ts`, content: `export const value${i} = ${i};\n` },
					output: `Wrote src/module${i}.ts`,
				},
			],
		})),
	},
	{
		name: "a long series of edits to one file",
		kind: "progress",
		steps: repeat(14, (i) => ({
			calls: [
				{
					tool: "edit_file",
					args: { path: "src/parser.ts", old: `// step ${i}`, new: `// step ${i + 1}\nparseItem${i}();` },
					output: "Edited src/parser.ts",
				},
			],
		})),
	},
	{
		name: "the test suite re-run after each real edit (same failure for a while)",
		kind: "progress",
		steps: repeat(14, (i) =>
			i % 2 === 0
				? {
						calls: [
							{
								tool: "edit_file",
								args: { path: "src/parser.ts", old: `attempt${i}`, new: `attempt${i + 2}` },
								output: "Edited src/parser.ts",
							},
						],
					}
				: sh("npm test", failingTests(i, i < 9 ? 2 : 1), true),
		),
	},
	{
		name: "polling a deployment with goal_wait",
		kind: "progress",
		steps: repeat(14, (i) =>
			i % 2 === 0
				? sh("gh run view 4711 --json status", '{"status":"in_progress"}')
				: { wait: 60_000, reason: "the deployment is still running" },
		),
	},
	{
		name: "fixing failing tests one by one",
		kind: "progress",
		steps: repeat(12, (i) =>
			i % 2 === 0
				? sh("npm test", failingTests(i, 8 - i / 2), true)
				: {
						calls: [
							{
								tool: "edit_file",
								args: { path: `src/rule${i}.ts`, old: "throw", new: "return" },
								output: `Edited src/rule${i}.ts`,
							},
						],
					},
		),
	},
	{
		name: "searching for a symbol: different patterns, none found (exit 1, no output), then found",
		kind: "progress",
		steps: [
			...repeat(9, (i) =>
				sh(
					`grep -rn "${["parseConfig", "loadConfig", "configPath", "CONFIG_FILE", "readConfig", "getConfig", "settingsFile", "config.json", "rcFile"][i]}" src`,
					"(no output)\n\nCommand exited with code 1",
					true,
				),
			),
			sh('grep -rn "loadSettings" src', "src/settings.ts:12:export function loadSettings() {"),
		],
	},
	{
		name: "reading different files to understand the code",
		kind: "progress",
		steps: repeat(10, (i) => ({
			calls: [
				{ tool: "read_file", args: { path: `src/part${i}.ts` }, output: `export function part${i}() {}` },
			],
		})),
	},
	// Review of the widened rules (per-run values, near-identical replies, shuffled batches): progress
	// whose only difference from the last response is a value the normaliser might erase.
	{
		name: "a test-fix loop whose failing test name changes (count, timings and addresses the same)",
		kind: "progress",
		steps: repeat(12, (i) =>
			i % 2 === 0
				? sh(
						"npm test",
						`FAIL src/rules.test.ts\n  ● rule ${["a", "b", "c", "d", "e", "f"][i / 2]} rejects empty input\n    at <Rule object at 0x7f3a2b1c4d90>\nTests: 1 failed, 15 passed\nTime: 1.10 s`,
						true,
					)
				: {
						calls: [
							{
								tool: "edit_file",
								args: { path: "src/rules.ts", old: `rule${i}(x)`, new: `rule${i}(x ?? "")` },
								output: "Edited src/rules.ts",
							},
						],
					},
		),
	},
	{
		name: "fixing crashes one by one with a one-line edit that re-runs the script (the crash moves to another line)",
		kind: "progress",
		steps: [
			...repeat(7, (i) =>
				sh(
					`sed -i '${[12, 48, 73, 91, 95, 40, 22][i]}s/row.id/row?.id/' src/import.ts && node dist/import.js`,
					`TypeError: Cannot read properties of undefined (reading 'id')\n    at importRow (src/import.ts:${[48, 73, 91, 95, 40, 22, 67][i]}:${[17, 22, 31, 12, 19, 25, 14][i]})\n    at main (src/import.ts:30:11)`,
					true,
				),
			),
			sh("sed -i '67s/row.id/row?.id/' src/import.ts && node dist/import.js", "Imported 1200 rows."),
		],
	},
	{
		name: "a backfill script run batch after batch (the row ids and cursor are the progress)",
		kind: "progress",
		steps: repeat(8, (i) =>
			sh(
				"node scripts/backfill.js --batch 1000",
				`Backfilled rows ${40001 + i * 1000}-${41000 + i * 1000} (1000 rows) in 2.3s. Next cursor: ${41001 + i * 1000}`,
			),
		),
	},
	{
		name: "a benchmark loop: an optimisation, then the benchmark, whose timings are the progress",
		kind: "progress",
		steps: repeat(12, (i) =>
			i % 2 === 0
				? {
						calls: [
							{
								tool: "edit_file",
								args: { path: "src/tokenize.ts", old: `v${i}`, new: `v${i + 2}` },
								output: "Edited src/tokenize.ts",
							},
						],
					}
				: sh(
						"npm run bench",
						`tokenize x ${(120 - i * 9).toFixed(1)} ms ± 4.1 ms (mean ± σ)\n92 runs sampled`,
					),
		),
	},
	{
		name: "a commit after each step, then git log (only the hashes and messages change)",
		kind: "progress",
		steps: repeat(12, (i) =>
			i % 2 === 0
				? {
						calls: [
							{
								tool: "edit_file",
								args: { path: `src/step${i}.ts`, old: "todo()", new: "done()" },
								output: `Edited src/step${i}.ts`,
							},
							{
								tool: "shell",
								args: { command: `git commit -am "step ${i}"` },
								output: `[main ${(0x1a2b3c4 + i * 0x111111).toString(16)}] step ${i}\n 1 file changed`,
							},
						],
					}
				: sh("git log -1 --format=%H", (0x1a2b3c4d5e6f + i * 0x1111111111).toString(16).padStart(40, "a")),
		),
	},
	{
		name: "reading different line ranges of one long file",
		kind: "progress",
		steps: repeat(8, (i) => ({
			calls: [
				{
					tool: "read_file",
					args: { path: "src/engine.ts", offset: 1 + i * 200, limit: 200 },
					output: `${1 + i * 200}: export function stage${i}() {\n[Showing lines ${1 + i * 200}-${200 + i * 200} of 1800]`,
				},
			],
		})),
	},
	{
		name: "'Running the tests again.' between real edits",
		kind: "progress",
		steps: repeat(
			12,
			(i) =>
				[
					{
						calls: [
							{
								tool: "edit_file",
								args: { path: "src/parser.ts", old: `case${i}`, new: `case${i + 3}` },
								output: "Edited src/parser.ts",
							},
						],
					},
					{ text: "Running the tests again." },
					sh("npm test", failingTests(i, 6 - i / 3), true),
				][i % 3] as CorpusStep,
		),
	},
	{
		name: "re-reading the same 3 files in another order after editing them",
		kind: "progress",
		steps: repeat(8, (i) =>
			i % 2 === 0
				? {
						calls: ["a", "b", "c"].map((file) => ({
							tool: "edit_file" as const,
							args: { path: `src/${file}.ts`, old: `v${i}`, new: `v${i + 2}` },
							output: `Edited src/${file}.ts`,
						})),
					}
				: {
						calls: (i % 4 === 1 ? ["a", "b", "c"] : ["c", "a", "b"]).map((file) => ({
							tool: "read_file" as const,
							args: { path: `src/${file}.ts` },
							output: `export const ${file} = "v${i + 1}";`,
						})),
					},
		),
	},
];

/** Every scenario. */
export const CORPUS: readonly Scenario[] = [...STUCK, ...PROGRESS];
