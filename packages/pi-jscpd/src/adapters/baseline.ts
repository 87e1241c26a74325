/**
 * The session baseline: which lines were duplicated where (a line index, see identity.ts) before
 * the session's first mutation. Captured quietly at session start, persisted outside model context in a file keyed by
 * session id (`<agentDir>/pi-lifecycle/pi-jscpd/baselines/<sessionId>.json`) and referenced from a
 * `pi-jscpd/state` session entry, so it survives reload and resume.
 */
import {
	closeSync,
	constants,
	fstatSync,
	lstatSync,
	mkdirSync,
	openSync,
	readFileSync,
	renameSync,
	writeFileSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describeWriteError } from "@pi-lifecycle/lifecycle-kit";
import { scanWithFallback, WHOLE_SCAN_TIMEOUT_FACTOR } from "../core/baseline-scan.js";
import {
	deserialiseIndex,
	indexGroups,
	type LineIndex,
	rebaseIndex,
	serialiseIndex,
} from "../core/identity.js";
import { type Detection, EXACT_ONLY, isExactOnly, parseDetection } from "../core/kinds.js";
import type { Capability } from "./locate.js";
import type { ProcessRunner } from "./runner.js";
import { runScan } from "./scan.js";

/** Largest baseline file read (a 10,000-group baseline is about 3 MB). */
export const MAX_BASELINE_BYTES = 32 * 1024 * 1024;

/** Baseline state. `accepted` is complete; `partial` is usable for display but never for the automatic checkpoint. */
export type BaselineState =
	| { readonly status: "none" }
	| { readonly status: "pending" }
	| {
			readonly status: "accepted" | "partial";
			/** Duplicated lines per file before the session changed anything. */
			readonly index: LineIndex;
			/** Clone groups in the baseline report. */
			readonly groups: number;
			/** Why it is partial (status `partial`). */
			readonly reason?: string;
			/** When it was captured (ISO). */
			readonly capturedAt: string;
			/** Where it is stored. */
			readonly file?: string;
			/**
			 * What the capture detected; checks compared with this baseline detect the same, so a
			 * settings change takes effect with the next baseline (exact only when undefined).
			 */
			readonly detection?: Detection;
			/** Why the capture fell back to exact clones only (it is still complete). */
			readonly fallback?: string;
	  }
	| { readonly status: "unavailable" | "failed"; readonly reason: string };

/** The persisted file. */
export interface BaselineFile {
	/** Format version (1 held pair identities and is no longer read). */
	readonly version: 2;
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
	/** Clone groups in the report. */
	readonly groups: number;
	/** The line index ({@link serialiseIndex}). */
	readonly lines: Record<string, string>;
	/** What the capture detected (files without it were captured with exact clones only). */
	readonly detection?: Detection;
	/** Why the capture fell back to exact clones only, kept so a reload still says so. */
	readonly fallback?: string;
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

/** pi-jscpd's own baseline directory: the only place baseline files are read from. */
export function baselineDirectory(agentDir: string): string {
	return join(agentDir, "pi-lifecycle", "pi-jscpd", "baselines");
}

/** Where a session's baseline file lives. */
export function baselinePath(agentDir: string, sessionId: string): string {
	const safe = sessionId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 200) || "session";
	return join(baselineDirectory(agentDir), `${safe}.json`);
}

/** Writes a baseline file atomically. Returns what went wrong on failure (a local fault named as one). */
export function writeBaseline(path: string, file: BaselineFile): string | undefined {
	try {
		mkdirSync(dirname(path), { recursive: true });
		const temp = `${path}.${process.pid}.tmp`;
		writeFileSync(temp, JSON.stringify(file), "utf8");
		renameSync(temp, path);
		return undefined;
	} catch (error) {
		// <agentDir>/pi-lifecycle/pi-jscpd/baselines/<file>: a failed mkdir names any of these folders.
		const places = [{ label: "Pi's agent folder", dir: resolve(path, "../../../..") }];
		return describeWriteError(error, places, path);
	}
}

/** What {@link loadBaseline} found: a usable file, or why there is none. */
export type BaselineRead =
	| { readonly ok: true; readonly file: BaselineFile }
	| { readonly ok: false; readonly reason: string };

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

function fail(reason: string): BaselineRead {
	return { ok: false, reason };
}

/**
 * Reads and validates a baseline file for `root`. With `directory`, only a `.json` file directly
 * inside it is read. Only a regular file is ever opened for reading (lstat first; then opened
 * without following a symlink and without blocking, and checked again on the descriptor), so a
 * FIFO, a device or a symlink named by a hostile state entry is refused without blocking, and
 * only up to {@link MAX_BASELINE_BYTES}. Never throws.
 */
export function loadBaseline(path: string, root: string, directory?: string): BaselineRead {
	if (directory !== undefined) {
		const full = resolve(path);
		if (dirname(full) !== resolve(directory) || !full.endsWith(".json"))
			return fail(`${path} is not a file in pi-jscpd's baseline directory`);
	}
	let fd: number | undefined;
	try {
		const link = lstatSync(path, { throwIfNoEntry: false });
		if (!link) return fail(`${path} does not exist`);
		if (!link.isFile()) return fail(`${path} is not a regular file`);
		if (link.size > MAX_BASELINE_BYTES) return fail(`${path} is larger than ${MAX_BASELINE_BYTES} bytes`);
		fd = openSync(path, OPEN_FLAGS);
		const stat = fstatSync(fd);
		if (!stat.isFile()) return fail(`${path} is not a regular file`);
		if (stat.size > MAX_BASELINE_BYTES) return fail(`${path} is larger than ${MAX_BASELINE_BYTES} bytes`);
		const raw = JSON.parse(readFileSync(fd, "utf8")) as Partial<BaselineFile> | null;
		if (typeof raw === "object" && raw !== null && (raw as { version?: unknown }).version === 1)
			return fail(`${path} has an older format`);
		if (typeof raw !== "object" || raw === null || raw.version !== 2 || typeof raw.capturedAt !== "string")
			return fail(`${path} is not a pi-jscpd baseline`);
		if (raw.root !== root) return fail(`${path} describes another project`);
		if (
			typeof raw.complete !== "boolean" ||
			(raw.reason !== undefined && typeof raw.reason !== "string") ||
			(raw.fallback !== undefined && typeof raw.fallback !== "string") ||
			!Number.isSafeInteger(raw.groups) ||
			deserialiseIndex(raw.lines) === undefined ||
			(raw.detection !== undefined && parseDetection(raw.detection) === undefined)
		)
			return fail(`${path} is not a pi-jscpd baseline`);
		return { ok: true, file: raw as BaselineFile };
	} catch (error) {
		return fail(`${path} could not be read (${(error as NodeJS.ErrnoException).code ?? "invalid JSON"})`);
	} finally {
		if (fd !== undefined) {
			try {
				closeSync(fd);
			} catch {
				// Already closed.
			}
		}
	}
}

/** Reads and validates a baseline file for `root`; undefined when missing, invalid, not a regular file or for another project. */
export function readBaseline(path: string, root: string, directory?: string): BaselineFile | undefined {
	const read = loadBaseline(path, root, directory);
	return read.ok ? read.file : undefined;
}

/** The state a loaded file stands for. */
export function stateFromFile(path: string, file: BaselineFile): BaselineState {
	return {
		status: file.complete ? "accepted" : "partial",
		index: deserialiseIndex(file.lines) ?? { perPath: new Map(), total: new Map() },
		groups: file.groups,
		reason: file.reason,
		capturedAt: file.capturedAt,
		file: path,
		detection: parseDetection(file.detection) ?? EXACT_ONLY,
		...(file.fallback ? { fallback: file.fallback } : {}),
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
	/**
	 * Files the session changed while the capture ran, with their content before the change (read
	 * when the write/edit was called). Their lines in the baseline are replaced by that content.
	 */
	readonly originals?: () => ReadonlyMap<string, string>;
	/** Called once the scan succeeded, before {@link originals} is read. */
	readonly afterScan?: () => void;
	readonly signal: AbortSignal;
	/** Clone kinds to detect (exact only when omitted); recorded with the baseline. */
	readonly detection?: Detection;
}

/**
 * Scans the whole project and persists the line index. The result is `partial` only when it truly
 * is: some groups could not be identified, or the session had already changed files.
 */
export async function captureBaseline(request: CaptureRequest): Promise<BaselineState> {
	const { root, sessionId } = request;
	const scanWith = (detection: Detection) =>
		runScan(request.runner, request.capability, {
			root,
			paths: [],
			timeoutMs: request.timeoutMs * (isExactOnly(detection) ? WHOLE_SCAN_TIMEOUT_FACTOR : 1),
			signal: request.signal,
			detection,
		});
	const { scan, detection, fallback } = await scanWithFallback(scanWith, request.detection ?? EXACT_ONLY);
	if (scan.status !== "ok") {
		return scan.status === "unavailable"
			? { status: "unavailable", reason: scan.reason }
			: { status: "failed", reason: scan.reason };
	}
	request.afterScan?.();
	const reasons: string[] = [];
	if (scan.report.omitted > 0) reasons.push(`${scan.report.omitted} clone group(s) could not be identified`);
	if (request.priorMutations > 0) {
		reasons.push(
			`captured after ${request.priorMutations} earlier change(s) in this session (${request.reason})`,
		);
	}
	const capturedAt = new Date().toISOString();
	const index = rebaseIndex(indexGroups(scan.report.groups), request.originals?.() ?? new Map());
	const groups = scan.report.groups.length;
	const complete = reasons.length === 0;
	const reason = reasons.join("; ") || undefined;
	const error = writeBaseline(request.file, {
		version: 2,
		sessionId,
		root,
		capturedAt,
		complete,
		reason,
		groups,
		lines: serialiseIndex(index),
		detection,
		...(fallback ? { fallback } : {}),
	});
	// Not saved: this session still compares with it; a reload captures a new one.
	const notSaved = error ? `not saved (${error}); a reload captures it again` : undefined;
	return {
		status: complete ? "accepted" : "partial",
		index,
		groups,
		reason: [reason, notSaved].filter(Boolean).join("; ") || undefined,
		capturedAt,
		file: error ? undefined : request.file,
		detection,
		...(fallback ? { fallback } : {}),
	};
}
