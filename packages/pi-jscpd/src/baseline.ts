/**
 * The session baseline: identities of the clone groups that existed before the session's first
 * mutation. Captured quietly at session start, persisted outside model context in a file keyed by
 * session id (`<agentDir>/pi-lifecycle/pi-jscpd/baselines/<sessionId>.json`) and referenced from a
 * `pi-jscpd/state` session entry, so it survives reload and resume.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Capability } from "./locate.js";
import type { ProcessRunner } from "./runner.js";
import { runScan } from "./scan.js";

/** Largest baseline file read. */
export const MAX_BASELINE_BYTES = 8 * 1024 * 1024;

/** Baseline state. `accepted` is complete; `partial` is usable for display but never for the automatic checkpoint. */
export type BaselineState =
	| { readonly status: "none" }
	| { readonly status: "pending" }
	| {
			readonly status: "accepted" | "partial";
			/** Clone-group identities present before the session changed anything. */
			readonly identities: ReadonlySet<string>;
			/** Why it is partial (status `partial`). */
			readonly reason?: string;
			/** When it was captured (ISO). */
			readonly capturedAt: string;
			/** Where it is stored. */
			readonly file?: string;
	  }
	| { readonly status: "unavailable" | "failed"; readonly reason: string };

/** The persisted file. */
export interface BaselineFile {
	/** Format version. */
	readonly version: 1;
	/** Session that captured it. */
	readonly sessionId: string;
	/** Canonical project root it describes. */
	readonly root: string;
	/** Capture time (ISO). */
	readonly capturedAt: string;
	/** Whether the capture saw every group (no omissions, no prior session mutations). */
	readonly complete: boolean;
	/** Why it is incomplete. */
	readonly reason?: string;
	/** Clone-group identities. */
	readonly identities: readonly string[];
}

/** The `pi-jscpd/state` entry data. */
export interface StateEntry {
	/** Format version. */
	readonly version: 1;
	/** Baseline file path. */
	readonly baselineFile: string;
	/** Canonical project root. */
	readonly root: string;
}

/** Custom entry type of {@link StateEntry}. */
export const STATE_ENTRY = "pi-jscpd/state";

/** Where a session's baseline file lives. */
export function baselinePath(agentDir: string, sessionId: string): string {
	const safe = sessionId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200) || "session";
	return join(agentDir, "pi-lifecycle", "pi-jscpd", "baselines", `${safe}.json`);
}

/** Writes a baseline file atomically. Returns an error message on failure. */
export function writeBaseline(path: string, file: BaselineFile): string | undefined {
	try {
		mkdirSync(dirname(path), { recursive: true });
		const temp = `${path}.${process.pid}.tmp`;
		writeFileSync(temp, JSON.stringify(file), "utf8");
		renameSync(temp, path);
		return undefined;
	} catch (error) {
		return (error as Error).message;
	}
}

/** Reads and validates a baseline file for `root`; undefined when missing, invalid or for another project. */
export function readBaseline(path: string, root: string): BaselineFile | undefined {
	try {
		if (statSync(path).size > MAX_BASELINE_BYTES) return undefined;
		const raw = JSON.parse(readFileSync(path, "utf8")) as Partial<BaselineFile>;
		if (raw.version !== 1 || raw.root !== root || typeof raw.capturedAt !== "string") return undefined;
		if (!Array.isArray(raw.identities) || !raw.identities.every((id) => typeof id === "string"))
			return undefined;
		return raw as BaselineFile;
	} catch {
		return undefined;
	}
}

/** The state a loaded file stands for. */
export function stateFromFile(path: string, file: BaselineFile): BaselineState {
	return {
		status: file.complete ? "accepted" : "partial",
		identities: new Set(file.identities),
		reason: file.reason,
		capturedAt: file.capturedAt,
		file: path,
	};
}

/** Narrows unknown entry data to a {@link StateEntry}. */
export function isStateEntry(data: unknown): data is StateEntry {
	if (typeof data !== "object" || data === null) return false;
	const entry = data as Partial<StateEntry>;
	return entry.version === 1 && typeof entry.baselineFile === "string" && typeof entry.root === "string";
}

/** Inputs of {@link captureBaseline}. */
export interface CaptureRequest {
	readonly runner: ProcessRunner;
	readonly capability: Capability;
	/** Canonical project root. */
	readonly root: string;
	readonly sessionId: string;
	/** Where to persist the baseline. */
	readonly file: string;
	readonly timeoutMs: number;
	/** Session mutations that happened before this capture (a restored session without a baseline). */
	readonly priorMutations: number;
	/** The session_start reason (for the partial explanation). */
	readonly reason: string;
	readonly signal: AbortSignal;
}

/**
 * Scans the whole project and persists the identities. The result is `partial` only when it truly
 * is: some groups could not be identified, or the session had already changed files.
 */
export async function captureBaseline(request: CaptureRequest): Promise<BaselineState> {
	const { root, sessionId } = request;
	const scan = await runScan(request.runner, request.capability, {
		root,
		paths: [],
		timeoutMs: request.timeoutMs,
		signal: request.signal,
	});
	if (scan.status !== "ok") {
		return scan.status === "unavailable"
			? { status: "unavailable", reason: scan.reason }
			: { status: "failed", reason: scan.reason };
	}
	const reasons: string[] = [];
	if (scan.report.omitted > 0) reasons.push(`${scan.report.omitted} clone group(s) could not be identified`);
	if (request.priorMutations > 0) {
		reasons.push(
			`captured after ${request.priorMutations} earlier change(s) in this session (${request.reason})`,
		);
	}
	const capturedAt = new Date().toISOString();
	const identities = scan.report.groups.map((g) => g.identity);
	const complete = reasons.length === 0;
	const reason = reasons.join("; ") || undefined;
	const error = writeBaseline(request.file, {
		version: 1,
		sessionId,
		root,
		capturedAt,
		complete,
		reason,
		identities,
	});
	return {
		status: complete ? "accepted" : "partial",
		identities: new Set(identities),
		reason,
		capturedAt,
		file: error ? undefined : request.file,
	};
}
