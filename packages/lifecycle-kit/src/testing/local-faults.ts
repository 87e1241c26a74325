/**
 * Local faults (a read-only or full disk) injected where a file is written, for tests of how a
 * package names them (the kit's `classifyLocalFault`). No imports: {@link withTmpWriteFaults} runs
 * inside a `vi.mock("node:fs", …)` factory.
 */
import type { ScriptedSession } from "./scripted-session.js";

/**
 * A fault to inject: a read-only disk (`EROFS`), a full disk when the file is opened (`ENOSPC`), or
 * a disk that fills during the write (`ENOSPC-write`: Node names no path then, only the syscall).
 */
export type LocalFaultInjection = "EROFS" | "ENOSPC" | "ENOSPC-write";

/** The error Node throws for `fault` when writing `path`. */
function faultError(fault: LocalFaultInjection, path: string): Error {
	if (fault === "ENOSPC-write")
		return Object.assign(new Error("ENOSPC: no space left on device, write"), {
			code: "ENOSPC",
			syscall: "write",
		});
	const text = fault === "EROFS" ? "read-only file system" : "no space left on device";
	return Object.assign(new Error(`${fault}: ${text}, open '${path}'`), {
		code: fault,
		path,
		syscall: "open",
	});
}

/**
 * `fs` (the real `node:fs`) with `writeFileSync` failing on temporary files (`*.tmp`, where atomic
 * writes go) while `faults.code` is set. Use it in a mock factory with a hoisted switch:
 * `vi.mock("node:fs", async (original) => withTmpWriteFaults(await original(), faults))`.
 */
export function withTmpWriteFaults<T extends { writeFileSync: (...args: never[]) => unknown }>(
	fs: T,
	faults: { readonly code?: LocalFaultInjection | undefined },
): T {
	const writeFileSync = (...args: Parameters<T["writeFileSync"]>) => {
		const [path] = args as unknown[];
		if (faults.code && typeof path === "string" && path.endsWith(".tmp")) throw faultError(faults.code, path);
		return fs.writeFileSync(...args);
	};
	return { ...fs, writeFileSync };
}

/** From the next write on, Pi's session manager (of `harness`) fails as a read-only or full disk does. */
export function failSessionWrites(
	harness: Pick<ScriptedSession, "session">,
	fault: LocalFaultInjection,
): void {
	const manager = harness.session.sessionManager as unknown as {
		_persist(entry: unknown): void;
		getSessionFile(): string;
	};
	const file = manager.getSessionFile();
	manager._persist = () => {
		throw faultError(fault, file);
	};
}
