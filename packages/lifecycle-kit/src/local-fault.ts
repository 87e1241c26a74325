/**
 * Local faults: a write that failed because of this machine (a read-only or full disk, a quota,
 * permissions), not because of a provider, a key or the network. Such an error reaches an extension
 * as an exception with an errno `code` (`EROFS`, …) or only as text (an assistant message whose
 * `errorMessage` is "EROFS: read-only file system, open '…'" when Pi could not write the session
 * file). Named as what it is, with the next step, a user can fix it. Pure: no I/O.
 */

/** The errno codes classified as local faults. */
export const LOCAL_FAULT_CODES = ["EROFS", "ENOSPC", "EDQUOT", "EACCES", "EPERM"] as const;

/** One of {@link LOCAL_FAULT_CODES}. */
export type LocalFaultCode = (typeof LOCAL_FAULT_CODES)[number];

/** A folder the caller knows, to name the place of a fault ("the session folder"). */
export interface FaultPlace {
	/** How the user knows it, e.g. "the session folder", "Pi's agent folder". */
	readonly label: string;
	/** Its path; a fault on this path or inside it is named by the label. */
	readonly dir: string;
}

/** A classified local fault. */
export interface LocalFault {
	/** The errno code. */
	readonly code: LocalFaultCode;
	/** The path the error names, when it names one. */
	readonly path?: string;
	/** The known place the path is in ({@link FaultPlace.label}), or "a folder on this machine". */
	readonly place: string;
	/** What is wrong, in plain words: "the session folder is read-only". */
	readonly problem: string;
	/** What the user does about it: "make it writable or start pi with another --session-dir". */
	readonly nextStep: string;
	/** One line for messages: `<problem> (<code>: <path>); <next step>`. */
	readonly text: string;
}

const CODE_PATTERN = new RegExp(`\\b(${LOCAL_FAULT_CODES.join("|")})\\b`);
/** Node's fs messages: `EROFS: read-only file system, open '/path'`. */
const PATH_PATTERN = /, \w+ '([^']+)'/;

function field(error: unknown, name: "code" | "path" | "message"): string | undefined {
	try {
		if (typeof error !== "object" || error === null) return undefined;
		const value = (error as Record<string, unknown>)[name];
		return typeof value === "string" ? value : undefined;
	} catch {
		return undefined;
	}
}

function isInside(dir: string, path: string): boolean {
	const base = dir.endsWith("/") || dir.endsWith("\\") ? dir.slice(0, -1) : dir;
	return path === base || path.startsWith(`${base}/`) || path.startsWith(`${base}\\`);
}

function describe(code: LocalFaultCode, place: string): { problem: string; nextStep: string } {
	switch (code) {
		case "EROFS":
			return { problem: `${place} is read-only`, nextStep: "make it writable, or use a writable one" };
		case "ENOSPC":
			return { problem: `the disk holding ${place} is full`, nextStep: "free disk space" };
		case "EDQUOT":
			return { problem: `the disk quota for ${place} is used up`, nextStep: "free space or raise the quota" };
		case "EACCES":
		case "EPERM":
			return { problem: `${place} cannot be written (no permission)`, nextStep: "fix its permissions" };
	}
}

/**
 * Classifies an error (an exception, or an error message string) as a local fault, or undefined when
 * it is not one. Reads the errno `code` and `path` of a Node error, else the code and quoted path in
 * its text. `places` name the path: the first whose folder contains it wins. `target` is the file the
 * caller was writing, for an error that names none: a disk that fills during a `write` gives
 * "ENOSPC: no space left on device, write", without a path.
 */
export function classifyLocalFault(
	error: unknown,
	places: readonly FaultPlace[] = [],
	target?: string,
): LocalFault | undefined {
	const text = typeof error === "string" ? error : (field(error, "message") ?? "");
	const ownCode = field(error, "code");
	const code = (
		ownCode && (LOCAL_FAULT_CODES as readonly string[]).includes(ownCode)
			? ownCode
			: CODE_PATTERN.exec(text)?.[1]
	) as LocalFaultCode | undefined;
	if (!code) return undefined;
	const path = field(error, "path") ?? PATH_PATTERN.exec(text)?.[1] ?? (ownCode ? target : undefined);
	// EACCES/EPERM without a path is a socket or process fault (`connect EACCES …`), not a file one.
	if (!path && (code === "EACCES" || code === "EPERM")) return undefined;
	const known = path ? places.find((place) => isInside(place.dir, path)) : undefined;
	const place = known?.label ?? "a folder on this machine";
	const { problem, nextStep } = describe(code, place);
	const where = path ? `${code}: ${path}` : code;
	return {
		code,
		...(path ? { path } : {}),
		place,
		problem,
		nextStep,
		text: `${problem} (${where}); ${nextStep}`,
	};
}

/** `classifyLocalFault(error, places, target)?.text`, else the error's own message. For one-line reports. */
export function describeWriteError(
	error: unknown,
	places: readonly FaultPlace[] = [],
	target?: string,
): string {
	const fault = classifyLocalFault(error, places, target);
	if (fault) return fault.text;
	if (typeof error === "string") return error;
	return field(error, "message") ?? String(error);
}

/**
 * The folders Pi writes for a session, as fault places: "the session folder" (Pi's session files,
 * `ctx.sessionManager.getSessionDir()`) and "Pi's agent folder" (`agentDir`, when given). A stale or
 * missing context names no session folder. Never throws.
 */
export function piFaultPlaces(
	ctx: { readonly sessionManager?: { getSessionDir(): string } } | undefined,
	agentDir?: string,
): FaultPlace[] {
	const places: FaultPlace[] = [];
	try {
		const dir = ctx?.sessionManager?.getSessionDir();
		if (dir) places.push({ label: "the session folder", dir });
	} catch {
		// A stale context: no session folder.
	}
	if (agentDir) places.push({ label: "Pi's agent folder", dir: agentDir });
	return places;
}
