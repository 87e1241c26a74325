/**
 * Explicit project trust. `ctx.isProjectTrusted()` is not "the user said yes": the `pi` CLI asks only
 * when the project has Pi resources of its own (`hasTrustRequiringProjectResources`), and answers
 * true without asking for any other directory that has no saved decision — a freshly cloned hostile
 * repository included. Our extensions run git and read project config, so they need the user's word.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import {
	getAgentDir,
	hasTrustRequiringProjectResources,
	ProjectTrustStore,
} from "@earendil-works/pi-coding-agent";

/** Where the kit's test harness records an explicit in-memory trust decision per directory. */
const EXPLICIT_TRUST_KEY = Symbol.for("@pi-lifecycle/explicit-project-trust");

/** The context a trust check needs: the project directory and Pi's answer. */
export interface TrustContext {
	readonly cwd: string;
	isProjectTrusted(): boolean;
}

/** Where the explicit decision is looked up; defaults are Pi's agent dir and this process's arguments. */
export interface ExplicitTrustOptions {
	/** Pi's agent dir holding `trust.json`; default `getAgentDir()` (`PI_CODING_AGENT_DIR` or `~/.pi/agent`). */
	agentDir?: string;
	/** Command-line arguments; default `process.argv`. */
	argv?: readonly string[];
}

/** Live explicit "trusted" records per directory (a count, so overlapping hosts undo only their own). */
/** The key a directory is recorded under: its real path when it exists (Pi's cwd may be resolved). */
function dirKey(cwd: string): string {
	try {
		return realpathSync(cwd);
	} catch {
		return resolve(cwd);
	}
}

function inMemoryDecisions(): Map<string, number> {
	const holder = globalThis as { [EXPLICIT_TRUST_KEY]?: Map<string, number> };
	holder[EXPLICIT_TRUST_KEY] ??= new Map();
	return holder[EXPLICIT_TRUST_KEY];
}

/** Internal (test harness): records that the host trusted `cwd` explicitly; returns the undo. */
export function recordExplicitTrust(cwd: string): () => void {
	const records = inMemoryDecisions();
	const key = dirKey(cwd);
	records.set(key, (records.get(key) ?? 0) + 1);
	let undone = false;
	return () => {
		if (undone) return;
		undone = true;
		const left = (records.get(key) ?? 1) - 1;
		if (left > 0) records.set(key, left);
		else records.delete(key);
	};
}

/** `--approve`/`-a` or `--no-approve`/`-na` on the command line; the last one wins, as in Pi's parser. */
function commandLineApproval(argv: readonly string[]): boolean | undefined {
	let approval: boolean | undefined;
	for (const arg of argv.slice(2)) {
		if (arg === "--approve" || arg === "-a") approval = true;
		else if (arg === "--no-approve" || arg === "-na") approval = false;
	}
	return approval;
}

/**
 * Whether the user trusted this project explicitly: `ctx.isProjectTrusted()` is true AND the answer
 * did not come from Pi's implicit default — Pi had to decide (the project has Pi resources, so Pi
 * asked, used a saved decision, `--approve` or `defaultProjectTrust`), a saved decision in Pi's
 * trust store (`/trust`, closest parent wins) says true, the CLI ran with `--approve`/`-a`, or an SDK
 * host recorded it. False when the context is stale or a check fails: untrusted is the safe answer.
 */
export function isExplicitlyTrusted(ctx: TrustContext, options: ExplicitTrustOptions = {}): boolean {
	try {
		if (!ctx.isProjectTrusted()) return false;
		const cwd = ctx.cwd;
		if (inMemoryDecisions().has(dirKey(cwd))) return true;
		if (commandLineApproval(options.argv ?? process.argv) === true) return true;
		if (hasTrustRequiringProjectResources(cwd)) return true;
		return new ProjectTrustStore(options.agentDir ?? getAgentDir()).get(cwd) === true;
	} catch {
		return false;
	}
}
