/**
 * The git commands of the outside-change probe (trusted git repositories only), through the kit's runProcess (no shell, minimal
 * environment, bounded output and time). git is never run in an untrusted project: a repository's
 * config can name programs git runs (see docs/security.md).
 */
import { ELISION_MARKER, type ProjectTrust, runProcess } from "@pi-lifecycle/lifecycle-kit";
import { nextMacrotask } from "./defer.js";
/** Largest git output read (a path list of about 100,000 entries). */
export const MAX_GIT_OUTPUT = 16 * 1024 * 1024;
/** git's empty tree: the base of a repository that had no commit when the session started. */
export const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/** Output of one git command: `stdout` undefined on failure; `overflow` when cut at the bound. */
interface GitOutput {
	readonly stdout: string | undefined;
	readonly overflow: boolean;
}

/**
 * Runs git on a later macrotask (never inside the caller's handler); undefined on any failure,
 * abort, truncated output, or when the project is not trusted (git is never run then).
 *
 * - `GIT_OPTIONAL_LOCKS=0`: a background `git status` must not take the index lock it would
 *   otherwise take to refresh stat data, or the user's own git commands could fail with
 *   "index.lock exists" while a probe runs.
 * - Abort kills git on a later macrotask: the abort comes from inside a Pi handler (such as
 *   `input`), which must not pay for the kill.
 */
export async function run(
	args: string[],
	trust: ProjectTrust,
	signal?: AbortSignal,
): Promise<string | undefined> {
	return (await runBounded(args, trust, signal, MAX_GIT_OUTPUT)).stdout;
}

/**
 * {@link run}, and output over `limit` is kept (the complete records of the head and tail that the
 * bounded capture kept) and flagged, not dropped.
 */
export async function runBounded(
	args: string[],
	trust: ProjectTrust,
	signal: AbortSignal | undefined,
	limit: number,
): Promise<GitOutput> {
	await nextMacrotask();
	if (signal?.aborted || !trust.trusted) return { stdout: undefined, overflow: false };
	const deferred = new AbortController();
	const onAbort = () => setImmediate(() => deferred.abort());
	signal?.addEventListener("abort", onAbort, { once: true });
	const outcome = await runProcess({
		command: "git",
		args,
		cwd: trust.root,
		trust,
		// Paths printed unquoted (check-ignore has no -z without --stdin), set through the environment.
		env: {
			GIT_OPTIONAL_LOCKS: "0",
			GIT_TERMINAL_PROMPT: "0",
			GIT_CONFIG_COUNT: "1",
			GIT_CONFIG_KEY_0: "core.quotePath",
			GIT_CONFIG_VALUE_0: "false",
		},
		timeoutMs: 5_000,
		maxOutputBytes: limit,
		killGraceMs: 200,
		signal: deferred.signal,
	});
	signal?.removeEventListener("abort", onAbort);
	if (signal?.aborted || outcome.status !== "exited" || outcome.exitCode !== 0) {
		return { stdout: undefined, overflow: false };
	}
	if (!outcome.stdout.truncated) return { stdout: outcome.stdout.text, overflow: false };
	return { stdout: completeRecords(outcome.stdout.text), overflow: true };
}

/** The whole NUL-terminated records of a truncated capture (the head's and the tail's; the cut ones dropped). */
function completeRecords(text: string): string {
	const cut = text.indexOf(ELISION_MARKER);
	if (cut < 0) return text.slice(0, text.lastIndexOf("\0") + 1);
	const head = text.slice(0, cut);
	const tail = text.slice(cut + ELISION_MARKER.length);
	return head.slice(0, head.lastIndexOf("\0") + 1) + tail.slice(tail.indexOf("\0") + 1);
}

/** Finds the git top level for `root` (undefined outside git and in an untrusted project). */
export async function gitTopLevel(
	root: string,
	signal?: AbortSignal,
	trusted = false,
): Promise<string | undefined> {
	const out = await run(["rev-parse", "--show-toplevel"], { root, trusted }, signal);
	return out?.trim() || undefined;
}

/** The commit the session starts on (the empty tree before the first commit); undefined outside git. */
export async function baseCommit(
	root: string,
	signal?: AbortSignal,
	trusted = false,
): Promise<string | undefined> {
	const out = await run(["rev-parse", "-q", "--verify", "HEAD^{commit}"], { root, trusted }, signal);
	return out?.trim() || EMPTY_TREE;
}
