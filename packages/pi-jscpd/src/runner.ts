/**
 * The process adapter: runs jscpd without a shell, one process at a time.
 *
 * - spawned with an argument array and `detached: true`, so a timeout or abort kills the whole
 *   process group (SIGTERM, then SIGKILL after a grace period);
 * - stdout/stderr capture and the report size are bounded;
 * - every run gets a private temp dir (`mkdtemp`) that is always removed;
 * - runs are serialised: a second run waits until the first process is gone and cleaned up.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Limits of one run. */
export interface RunnerLimits {
	/** Bytes of stdout and of stderr kept (each): the first eighth (at most 8 KiB) and the rest from the end. */
	readonly maxOutputBytes: number;
	/** Largest report file read. */
	readonly maxReportBytes: number;
	/** Grace period between SIGTERM and SIGKILL. */
	readonly killGraceMs: number;
	/** Where private temp dirs are created. */
	readonly tempRoot: string;
}

/** Default limits. */
export const DEFAULT_LIMITS: RunnerLimits = Object.freeze({
	maxOutputBytes: 64 * 1024,
	maxReportBytes: 32 * 1024 * 1024,
	killGraceMs: 1_000,
	tempRoot: tmpdir(),
});

/** One process to run. */
export interface RunRequest {
	/** Executable path. */
	readonly command: string;
	/** Arguments; `{output}` anywhere in an argument is replaced with the private temp dir. */
	readonly args: readonly string[];
	/** Working directory. */
	readonly cwd: string;
	/** Kill after this many milliseconds. */
	readonly timeoutMs: number;
	/** Aborting kills the process (or skips it if it has not started). */
	readonly signal?: AbortSignal;
	/** Report file (relative to the temp dir) to read after a successful exit. */
	readonly reportFile?: string;
	/** Extra environment variables. */
	readonly env?: Readonly<Record<string, string>>;
}

/** How a run ended. */
export type RunOutcome =
	| { readonly status: "ok"; readonly exitCode: number; readonly stdout: string; readonly report?: string }
	| { readonly status: "timeout"; readonly timeoutMs: number }
	| { readonly status: "cancelled" }
	| { readonly status: "missing"; readonly error: string }
	| {
			readonly status: "failed";
			readonly error: string;
			readonly exitCode?: number;
			readonly stderr: string;
	  };

/** Marks the bytes {@link BoundedBuffer} dropped between the head and the tail it keeps. */
export const ELISION_MARKER = "[… pi-jscpd: output elided …]";

/**
 * Keeps at most `limit` bytes of a stream: its first bytes (an eighth, at most 8 KiB) and its last
 * bytes (the rest), so a crash that prints a lot still shows how it started and its final error.
 * Memory stays bounded by the limit plus one chunk, whatever the stream's length.
 */
export class BoundedBuffer {
	readonly #headLimit: number;
	readonly #tailLimit: number;
	readonly #head: Buffer[] = [];
	#headSize = 0;
	#tail: Buffer[] = [];
	#tailSize = 0;
	/** Bytes dropped between head and tail. */
	#dropped = 0;

	constructor(limit: number) {
		const total = Math.max(0, Math.floor(limit));
		this.#headLimit = Math.min(8 * 1024, Math.floor(total / 8));
		this.#tailLimit = total - this.#headLimit;
	}

	/** Whether bytes were dropped. */
	get truncated(): boolean {
		return this.#dropped > 0;
	}

	/** Appends one chunk. */
	push(chunk: Buffer): void {
		let rest = chunk;
		const room = this.#headLimit - this.#headSize;
		if (room > 0) {
			const kept = rest.length > room ? rest.subarray(0, room) : rest;
			this.#head.push(kept);
			this.#headSize += kept.length;
			rest = rest.subarray(kept.length);
		}
		if (rest.length === 0) return;
		this.#tail.push(rest);
		this.#tailSize += rest.length;
		// Drop whole chunks from the front while the rest still fills the tail.
		let drop = 0;
		while (
			drop < this.#tail.length - 1 &&
			this.#tailSize - (this.#tail[drop]?.length ?? 0) >= this.#tailLimit
		) {
			const size = this.#tail[drop]?.length ?? 0;
			this.#tailSize -= size;
			this.#dropped += size;
			drop++;
		}
		if (drop > 0) this.#tail = this.#tail.slice(drop);
	}

	/** The kept text; an elision marker stands where bytes were dropped (the tail starts on a line). */
	text(): string {
		let tail = Buffer.concat(this.#tail);
		if (tail.length > this.#tailLimit) {
			this.#dropped += tail.length - this.#tailLimit;
			tail = tail.subarray(tail.length - this.#tailLimit);
			this.#tail = [tail];
			this.#tailSize = tail.length;
		}
		const head = Buffer.concat(this.#head).toString("utf8");
		if (this.#dropped === 0) return head + tail.toString("utf8");
		let tailText = tail.toString("utf8");
		const newline = tailText.indexOf("\n");
		if (newline >= 0 && newline < tailText.length - 1) tailText = tailText.slice(newline + 1);
		return `${head}\n${ELISION_MARKER}\n${tailText}`;
	}
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {
			// Already gone.
		}
	}
}

async function readBounded(path: string, limit: number): Promise<string | { tooLarge: number } | undefined> {
	let handle: Awaited<ReturnType<typeof open>> | undefined;
	try {
		handle = await open(path, "r");
		const stat = await handle.stat();
		if (!stat.isFile()) return undefined;
		if (stat.size > limit) return { tooLarge: stat.size };
		return await handle.readFile({ encoding: "utf8" });
	} catch {
		return undefined;
	} finally {
		await handle?.close();
	}
}

/** One serialised jscpd process owner. */
export class ProcessRunner {
	readonly #limits: RunnerLimits;
	#tail: Promise<unknown> = Promise.resolve();
	readonly #live = new Set<ChildProcess>();
	#closed = false;

	constructor(limits: Partial<RunnerLimits> = {}) {
		this.#limits = { ...DEFAULT_LIMITS, ...limits };
	}

	/** Runs one process after every earlier run has finished and cleaned up. Never throws. */
	run(request: RunRequest): Promise<RunOutcome> {
		const next = this.#tail.then(() => this.#runNow(request));
		this.#tail = next.catch(() => undefined);
		return next;
	}

	/** Stops accepting runs, kills live processes and waits for their cleanup. Idempotent. */
	async close(): Promise<void> {
		this.#closed = true;
		for (const child of this.#live) killGroup(child, "SIGKILL");
		await this.#tail;
	}

	async #runNow(request: RunRequest): Promise<RunOutcome> {
		if (this.#closed || request.signal?.aborted) return { status: "cancelled" };
		let dir: string | undefined;
		try {
			dir = await mkdtemp(join(this.#limits.tempRoot, "pi-jscpd-"));
			return await this.#spawn(request, dir);
		} catch (error) {
			return { status: "failed", error: (error as Error).message, stderr: "" };
		} finally {
			if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
		}
	}

	#spawn(request: RunRequest, dir: string): Promise<RunOutcome> {
		const limits = this.#limits;
		const args = request.args.map((arg) => arg.replaceAll("{output}", dir));
		return new Promise<RunOutcome>((resolve) => {
			const stdout = new BoundedBuffer(limits.maxOutputBytes);
			const stderr = new BoundedBuffer(limits.maxOutputBytes);
			let ending: "timeout" | "cancelled" | undefined;
			let spawnError: NodeJS.ErrnoException | undefined;
			let killTimer: NodeJS.Timeout | undefined;
			const child = spawn(request.command, args, {
				cwd: request.cwd,
				detached: true,
				shell: false,
				stdio: ["ignore", "pipe", "pipe"],
				env: { ...process.env, NO_COLOR: "1", JSCPD_NO_TIPS: "1", ...request.env },
			});
			this.#live.add(child);
			const terminate = (why: "timeout" | "cancelled") => {
				if (ending) return;
				ending = why;
				killGroup(child, "SIGTERM");
				killTimer = setTimeout(() => killGroup(child, "SIGKILL"), limits.killGraceMs);
			};
			const timer = setTimeout(() => terminate("timeout"), request.timeoutMs);
			const onAbort = () => terminate("cancelled");
			request.signal?.addEventListener("abort", onAbort, { once: true });
			child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
			child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
			child.on("error", (error) => {
				spawnError = error;
			});
			child.on("close", async (code, signal) => {
				clearTimeout(timer);
				request.signal?.removeEventListener("abort", onAbort);
				// The direct child is gone; make sure nothing it started survives it.
				killGroup(child, "SIGKILL");
				if (killTimer) clearTimeout(killTimer);
				this.#live.delete(child);
				if (ending === "timeout") return resolve({ status: "timeout", timeoutMs: request.timeoutMs });
				if (ending === "cancelled" || this.#closed) return resolve({ status: "cancelled" });
				if (spawnError) {
					const missing = spawnError.code === "ENOENT" || spawnError.code === "EACCES";
					return resolve(
						missing
							? { status: "missing", error: spawnError.message }
							: { status: "failed", error: spawnError.message, stderr: stderr.text() },
					);
				}
				const errText = stderr.text();
				if (signal)
					return resolve({ status: "failed", error: `jscpd was killed by ${signal}`, stderr: errText });
				if (!request.reportFile) {
					return code === 0
						? resolve({ status: "ok", exitCode: 0, stdout: stdout.text() })
						: resolve({
								status: "failed",
								error: `exited with code ${code}`,
								exitCode: code ?? undefined,
								stderr: errText,
							});
				}
				const report = await readBounded(join(dir, request.reportFile), limits.maxReportBytes);
				if (typeof report === "string") {
					return resolve({ status: "ok", exitCode: code ?? 0, stdout: stdout.text(), report });
				}
				const error =
					report === undefined
						? `jscpd exited with code ${code} without writing a report`
						: `the jscpd report is too large (${report.tooLarge} bytes > ${limits.maxReportBytes})`;
				resolve({ status: "failed", error, exitCode: code ?? undefined, stderr: errText });
			});
		});
	}
}
