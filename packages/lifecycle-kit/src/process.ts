/**
 * The one audited way a pi-lifecycle package starts a child process (docs/security.md):
 *
 * - never a shell: an executable and an argument array;
 * - the executable is resolved by {@link resolveExecutable}: for an untrusted project never one
 *   inside the project, never through a relative or in-project PATH entry;
 * - a minimal environment ({@link minimalEnv});
 * - stdout and stderr are bounded, and truncation is part of the result;
 * - a timeout, an AbortSignal and {@link ProcessRegistry.closeAll} kill the whole process group
 *   (SIGTERM, then SIGKILL after a grace period; closeAll kills at once and never waits);
 * - an optional memory bound ({@link watchMemory}): a group holding more resident memory than
 *   `maxMemoryBytes` is killed and the outcome says `memory`;
 * - a parent-death safeguard ({@link watchGroup}): a watchdog process kills every listed group when
 *   Pi disappears, so nothing survives even a SIGKILL of Pi. Linux and macOS; no native dependency.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { BoundedOutput, type CapturedOutput } from "./bounded-output.js";
import { signalProcessTree, watchdogSupport } from "./platform.js";
import { watchMemory } from "./process-memory.js";
import { minimalEnv, type ProjectTrust, resolveExecutable } from "./process-policy.js";
import { startWatchdog, unwatchGroup, WATCHDOG_MARKER, watchGroup } from "./process-watchdog.js";

/** One process to run. */
export interface ProcessRequest {
	/** A bare name (searched on the safe PATH) or an absolute path. */
	readonly command: string;
	/** Arguments, passed as they are (no shell ever sees them). */
	readonly args: readonly string[];
	/** Working directory. */
	readonly cwd: string;
	/** The project the process runs for, and whether Pi trusts it. */
	readonly trust: ProjectTrust;
	/** The executable was resolved from the caller's own install, never from project input. */
	readonly bundled?: boolean;
	/** Variables added to the minimal environment. */
	readonly env?: Readonly<Record<string, string>>;
	/** Kill the process group after this many milliseconds. */
	readonly timeoutMs: number;
	/** Aborting kills the process group (or skips the start if already aborted). */
	readonly signal?: AbortSignal;
	/** Bytes of stdout and of stderr kept, each (default 64 KiB). */
	readonly maxOutputBytes?: number;
	/** Grace period between SIGTERM and SIGKILL (default 1 s). */
	readonly killGraceMs?: number;
	/** Where the live process is registered (default: the module's {@link defaultRegistry}). */
	readonly registry?: ProcessRegistry;
	/** Kill the process group once its resident memory exceeds this many bytes (sampled; none by default). */
	readonly maxMemoryBytes?: number;
}

/** How a process ended. Output is present whenever the process started. */
export type ProcessOutcome =
	| {
			readonly status: "exited";
			readonly exitCode: number;
			readonly stdout: CapturedOutput;
			readonly stderr: CapturedOutput;
	  }
	| {
			readonly status: "signalled";
			readonly signal: string;
			readonly stdout: CapturedOutput;
			readonly stderr: CapturedOutput;
	  }
	| {
			readonly status: "timeout";
			readonly timeoutMs: number;
			readonly stdout: CapturedOutput;
			readonly stderr: CapturedOutput;
	  }
	/** Killed because the group's resident memory exceeded `maxMemoryBytes`. */
	| {
			readonly status: "memory";
			readonly limitBytes: number;
			readonly stdout: CapturedOutput;
			readonly stderr: CapturedOutput;
	  }
	/** Aborted by the signal or by {@link ProcessRegistry.closeAll}; `started` says whether it ran. */
	| { readonly status: "aborted"; readonly started: boolean }
	/** Not run: the executable is missing, not executable or refused by the trust rule. */
	| { readonly status: "unavailable"; readonly reason: string }
	| { readonly status: "failed"; readonly error: string; readonly stderr: CapturedOutput };

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		signalProcessTree(child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {
			// Already gone.
		}
	}
}

/**
 * Live process groups of one owner. {@link closeAll} SIGKILLs every group at once and never waits
 * (call it at `session_shutdown`); runs started afterwards are refused.
 */
export class ProcessRegistry {
	readonly #live = new Map<ChildProcess, () => void>();
	#closed = false;

	/** Whether {@link closeAll} was called. */
	get closed(): boolean {
		return this.#closed;
	}

	/** Process groups currently running. */
	get size(): number {
		return this.#live.size;
	}

	/** @internal Registers a live child; `onClose` marks its outcome as aborted. */
	track(child: ChildProcess, onClose: () => void): void {
		this.#live.set(child, onClose);
	}

	/** @internal */
	untrack(child: ChildProcess): void {
		this.#live.delete(child);
	}

	/** Kills every live group with SIGKILL, refuses later runs. Idempotent; returns at once. */
	closeAll(): void {
		this.#closed = true;
		this.killAll();
	}

	/** Kills every live group with SIGKILL but keeps accepting runs. */
	killAll(): void {
		for (const [child, onClose] of this.#live) {
			onClose();
			killGroup(child, "SIGKILL");
		}
	}
}

const markerEnv = Object.fromEntries([WATCHDOG_MARKER.split("=", 2)]);

/** The registry used when a request names none; Pi's normal exit kills what is left in it. */
export const defaultRegistry = new ProcessRegistry();
process.once("exit", () => defaultRegistry.killAll());

/** Runs one process under the rules in the module comment. Never throws. */
export function runProcess(request: ProcessRequest): Promise<ProcessOutcome> {
	const registry = request.registry ?? defaultRegistry;
	if (registry.closed || request.signal?.aborted)
		return Promise.resolve({ status: "aborted", started: false });
	const resolved = resolveExecutable(request.command, request.trust, {
		pathEnv: process.env.PATH,
		bundled: request.bundled,
	});
	if (!resolved.ok) return Promise.resolve({ status: "unavailable", reason: resolved.reason });
	const limit = request.maxOutputBytes ?? 64 * 1024;
	const grace = request.killGraceMs ?? 1_000;
	startWatchdog(watchdogSupport());
	return new Promise<ProcessOutcome>((resolve) => {
		const stdout = new BoundedOutput(limit);
		const stderr = new BoundedOutput(limit);
		let ending: "timeout" | "aborted" | "memory" | undefined;
		let spawnError: Error | undefined;
		let killTimer: NodeJS.Timeout | undefined;
		const child = spawn(resolved.path, [...request.args], {
			cwd: request.cwd,
			// Its own process group on POSIX, so one signal reaches the tree (platform.ts).
			detached: true,
			shell: false,
			windowsHide: true,
			stdio: ["ignore", "pipe", "pipe"],
			env: { ...minimalEnv(process.env, request.trust, request.env), ...markerEnv },
		});
		const pgid = child.pid;
		if (pgid !== undefined) watchGroup(pgid);
		const terminate = (why: "timeout" | "aborted" | "memory", signal: NodeJS.Signals = "SIGTERM") => {
			if (ending) return;
			ending = why;
			killGroup(child, signal);
			if (signal !== "SIGKILL") killTimer = setTimeout(() => killGroup(child, "SIGKILL"), grace);
		};
		registry.track(child, () => {
			ending ??= "aborted";
		});
		const timer = setTimeout(() => terminate("timeout"), request.timeoutMs);
		const limitBytes = request.maxMemoryBytes;
		const stopMemory =
			pgid !== undefined && limitBytes !== undefined
				? watchMemory(pgid, limitBytes, () => terminate("memory", "SIGKILL"))
				: undefined;
		const onAbort = () => terminate("aborted");
		request.signal?.addEventListener("abort", onAbort, { once: true });
		child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
		child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
		child.on("error", (error) => {
			spawnError = error;
		});
		// Grandchildren holding the pipes would delay "close" until the timeout: end them with it.
		child.on("exit", () => killGroup(child, "SIGKILL"));
		child.on("close", (code, signal) => {
			clearTimeout(timer);
			stopMemory?.();
			if (killTimer) clearTimeout(killTimer);
			request.signal?.removeEventListener("abort", onAbort);
			// The child is gone; make sure nothing it started survives it.
			killGroup(child, "SIGKILL");
			if (pgid !== undefined) unwatchGroup(pgid);
			registry.untrack(child);
			const out = stdout.capture();
			const err = stderr.capture();
			if (ending === "timeout")
				return resolve({ status: "timeout", timeoutMs: request.timeoutMs, stdout: out, stderr: err });
			if (ending === "aborted") return resolve({ status: "aborted", started: true });
			if (ending === "memory" && limitBytes !== undefined)
				return resolve({ status: "memory", limitBytes, stdout: out, stderr: err });
			if (spawnError) {
				const code = (spawnError as NodeJS.ErrnoException).code;
				return resolve(
					code === "ENOENT" || code === "EACCES"
						? { status: "unavailable", reason: spawnError.message }
						: { status: "failed", error: spawnError.message, stderr: err },
				);
			}
			if (signal) return resolve({ status: "signalled", signal, stdout: out, stderr: err });
			resolve({ status: "exited", exitCode: code ?? 1, stdout: out, stderr: err });
		});
	});
}
