/**
 * What the trust decision remembers, per Pi process and across processes.
 *
 * Every record here is shared by every lifecycle-kit copy in the process (each installed extension
 * has its own module root), so the keys are versioned `Symbol.for` names and the record shapes are a
 * protocol: add fields, never change one.
 */
import { mkdirSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { processWideValue } from "./process-wide.js";

/** The key a directory is recorded under: its real path when it exists, as Pi's trust store keys it. */
export function dirKey(cwd: string): string {
	try {
		return realpathSync(cwd);
	} catch {
		return resolve(cwd);
	}
}

// ---- the kit test harness's explicit decisions -------------------------------------------------

/** Live explicit "trusted" records per directory (a count, so overlapping hosts undo only their own). */
function harnessDecisions(): Map<string, number> {
	return processWideValue("@pi-lifecycle/explicit-project-trust", () => new Map<string, number>());
}

/** Internal (test harness): records that the host trusted `cwd` explicitly; returns the undo. */
export function recordExplicitTrust(cwd: string): () => void {
	const records = harnessDecisions();
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

/** Whether the kit test harness trusted `cwd` explicitly. */
export function harnessTrusted(cwd: string): boolean {
	return harnessDecisions().has(dirKey(cwd));
}

// ---- the decision taken at a session start -----------------------------------------------------

/** Where a session's trust came from (see `ProjectTrustDecision`). */
export type TrustSource =
	| "approve"
	| "saved"
	| "asked"
	| "harness"
	| "implicit"
	| "saved-by-pi"
	| "not-trusted";

/** The decision taken when a session started (kept across `/reload`, which keeps Pi's decision too). */
export interface SessionTrust {
	/** Explicitly trusted at the start. */
	readonly explicit: boolean;
	/** Why. */
	readonly source: TrustSource;
	/** The project directory, as keyed by {@link dirKey}. */
	readonly cwd: string;
}

/**
 * Start decisions per Pi session runtime, keyed by `ctx.sessionManager`: `/reload` keeps the session
 * manager (and Pi keeps its trust decision); `/new`, `/resume` and `/fork` build a new one, and Pi
 * decides trust again for it.
 */
function sessionDecisions(): WeakMap<object, SessionTrust> {
	return processWideValue("@pi-lifecycle/session-trust.v1", () => new WeakMap<object, SessionTrust>());
}

export function sessionTrust(session: object): SessionTrust | undefined {
	return sessionDecisions().get(session);
}

export function setSessionTrust(session: object, decision: SessionTrust): void {
	sessionDecisions().set(session, decision);
}

// ---- trust.json entries Pi saved without asking -----------------------------------------------

/** Our record of them: `<agentDir>/pi-lifecycle/trust-saved-by-pi.json`, `{ version: 1, paths }`. */
export function piSavedTrustFile(agentDir: string): string {
	return join(agentDir, "pi-lifecycle", "trust-saved-by-pi.json");
}

const MAX_RECORD_BYTES = 1024 * 1024;

/** Predicted in this process (also kept when the file cannot be written). */
function predictedInProcess(): Set<string> {
	return processWideValue("@pi-lifecycle/trust-saved-by-pi.v1", () => new Set<string>());
}

function readRecord(agentDir: string): Set<string> {
	const file = piSavedTrustFile(agentDir);
	try {
		if (statSync(file).size > MAX_RECORD_BYTES) return new Set();
		const parsed = JSON.parse(readFileSync(file, "utf8")) as { paths?: unknown };
		const paths = Array.isArray(parsed.paths) ? parsed.paths : [];
		return new Set(paths.filter((path): path is string => typeof path === "string"));
	} catch {
		return new Set();
	}
}

function writeRecord(agentDir: string, paths: ReadonlySet<string>): void {
	const file = piSavedTrustFile(agentDir);
	try {
		mkdirSync(dirname(file), { recursive: true });
		const temp = `${file}.${process.pid}.tmp`;
		writeFileSync(temp, `${JSON.stringify({ version: 1, paths: [...paths].sort() }, null, 2)}\n`);
		renameSync(temp, file);
	} catch {
		// Kept in this process only: Pi's own write to the same directory is likely to fail too.
	}
}

/** Whether the trust.json entry under `path` is one Pi saved without asking (as far as we saw). */
export function isSavedByPi(agentDir: string, path: string): boolean {
	return predictedInProcess().has(path) || readRecord(agentDir).has(path);
}

/** Records that Pi is about to save `path` as trusted without asking (its interactive `/reload`). */
export function markSavedByPi(agentDir: string, path: string): void {
	predictedInProcess().add(path);
	const paths = readRecord(agentDir);
	if (paths.has(path)) return;
	paths.add(path);
	writeRecord(agentDir, paths);
}

/** Forgets `path` once trust.json no longer holds Pi's `true` for it (the user changed or removed it). */
export function forgetSavedByPi(agentDir: string, path: string): void {
	predictedInProcess().delete(path);
	const paths = readRecord(agentDir);
	if (!paths.delete(path)) return;
	writeRecord(agentDir, paths);
}
