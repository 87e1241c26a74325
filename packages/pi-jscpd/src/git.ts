/**
 * The git child process of the outside-change comparison: `execFile` (no shell), a later macrotask,
 * a time and output bound, abortable.
 */
import { execFile } from "node:child_process";
import { nextMacrotask } from "./defer.js";

/** Largest git output read (a path list of about 100,000 entries). */
export const MAX_GIT_OUTPUT = 16 * 1024 * 1024;

/** Output of one git command: `stdout` undefined on failure; `overflow` when cut at the bound. */
export interface GitOutput {
	readonly stdout: string | undefined;
	readonly overflow: boolean;
}

/**
 * Runs git on a later macrotask (never inside the caller's handler); undefined on any failure or abort.
 *
 * - `GIT_OPTIONAL_LOCKS=0`: a background `git status` must not take the index lock it would
 *   otherwise take to refresh stat data, or the user's own git commands could fail with
 *   "index.lock exists" while a probe runs.
 * - Abort kills git on a later macrotask with a plain `kill()`: execFile's own `signal` handling
 *   runs inside the aborting call (a Pi handler such as `input`) and costs about 0.5 ms there.
 */
export async function run(args: string[], cwd: string, signal?: AbortSignal): Promise<string | undefined> {
	return (await runBounded(args, cwd, signal, MAX_GIT_OUTPUT)).stdout;
}

/** {@link run}, and output over {@link MAX_GIT_OUTPUT} is kept up to the bound and flagged, not dropped. */
export async function runBounded(
	args: string[],
	cwd: string,
	signal: AbortSignal | undefined,
	limit: number,
): Promise<GitOutput> {
	await nextMacrotask();
	if (signal?.aborted) return { stdout: undefined, overflow: false };
	return new Promise((resolve) => {
		const onAbort = () => setImmediate(() => child.kill());
		const child = execFile(
			"git",
			args,
			{
				cwd,
				timeout: 5_000,
				maxBuffer: limit,
				encoding: "utf8",
				env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
			},
			(error, stdout) => {
				signal?.removeEventListener("abort", onAbort);
				const overflow = (error as { code?: unknown } | null)?.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER";
				if (signal?.aborted || (error && !overflow)) resolve({ stdout: undefined, overflow: false });
				// Over the bound: the records before the last (possibly cut) one are still valid.
				else if (overflow) resolve({ stdout: stdout.slice(0, stdout.lastIndexOf("\0") + 1), overflow });
				else resolve({ stdout, overflow: false });
			},
		);
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}
