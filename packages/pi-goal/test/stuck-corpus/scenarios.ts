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
];

/** Every scenario. */
export const CORPUS: readonly Scenario[] = [...STUCK, ...PROGRESS];
