/**
 * The process adapter: runs jscpd through the kit's audited {@link runProcess}, one process at a
 * time (docs/security.md).
 *
 * - no shell; the executable is trust-checked by the kit; a minimal environment;
 * - a timeout, an abort or {@link ProcessRunner.close} kills the whole process group, and the
 *   kit's watchdog kills it if Pi itself dies;
 * - stdout/stderr capture, the report size and the process group's resident memory are bounded (a
 *   jscpd that needs more memory is killed: `memory`, never a result);
 * - every run gets a private temp dir (`mkdtemp`, named with the process id) that the run removes
 *   when it ends, also on abort, timeout and close; one left by a killed Pi process is removed at
 *   the next start (temp-dirs.ts). Abort and close are checked after every await, so nothing
 *   starts once either happened;
 * - runs are serialised: a second run waits until the first process is gone and cleaned up.
 */
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { ProcessRegistry, type ProjectTrust, runProcess } from "@pi-lifecycle/lifecycle-kit";
import { removeStaleTempDirs, tempDirPrefix } from "./temp-dirs.js";

/** Limits of one run. */
export interface RunnerLimits {
	/** Bytes of stdout and of stderr kept (each): the first eighth (at most 8 KiB) and the rest from the end. */
	readonly maxOutputBytes: number;
	/**
	 * Largest report file read. A report fed to a {@link RunRequest.reportStream} is read in 1 MB
	 * chunks and never held whole, so this bounds time, not memory.
	 */
	readonly maxReportBytes: number;
	/** Grace period between SIGTERM and SIGKILL. */
	readonly killGraceMs: number;
	/** Where private temp dirs are created. */
	readonly tempRoot: string;
	/** Resident memory of the jscpd process group (a node launcher and its engine together). */
	readonly maxMemoryBytes: number;
}

/** Default limits. */
export const DEFAULT_LIMITS: RunnerLimits = Object.freeze({
	maxOutputBytes: 64 * 1024,
	maxReportBytes: 160 * 1024 * 1024,
	killGraceMs: 1_000,
	tempRoot: tmpdir(), // the operating system's temp dir (TMPDIR, TEMP, …): the one place pi-jscpd picks it
	maxMemoryBytes: 4 * 1024 * 1024 * 1024,
});

/** One process to run. */
export interface RunRequest {
	/** Executable path. */
	readonly command: string;
	/** The executable ships with pi-jscpd (the pinned jscpd), never resolved from project input. */
	readonly bundled?: boolean;
	/** Arguments; `{output}` anywhere in an argument is replaced with the private temp dir. */
	readonly args: readonly string[];
	/** Working directory; the private temp dir when omitted (jscpd then reads no project config). */
	readonly cwd?: string;
	/** Files written into the private temp dir before the start (name → content). */
	readonly files?: Readonly<Record<string, string>>;
	/** Kill after this many milliseconds. */
	readonly timeoutMs: number;
	/** Aborting kills the process (or skips it if it has not started). */
	readonly signal?: AbortSignal;
	/** Report file (relative to the temp dir) to read after a successful exit. */
	readonly reportFile?: string;
	/** Extra environment variables. */
	readonly env?: Readonly<Record<string, string>>;
	/** Receives the report in chunks instead of as one string (`report` is then not set). */
	readonly reportStream?: { push(chunk: string): void };
}

/** How a run ended. */
export type RunOutcome =
	| { readonly status: "ok"; readonly exitCode: number; readonly stdout: string; readonly report?: string }
	| { readonly status: "timeout"; readonly timeoutMs: number }
	| { readonly status: "cancelled" }
	| { readonly status: "memory"; readonly limitBytes: number }
	| { readonly status: "missing"; readonly error: string }
	| {
			readonly status: "failed";
			readonly error: string;
			readonly exitCode?: number;
			readonly stderr: string;
	  };

/** Kept for callers of the old name: the kit's bounded capture. */
export { BoundedOutput as BoundedBuffer, ELISION_MARKER } from "@pi-lifecycle/lifecycle-kit";

/** Size of one chunk of a streamed report. */
const REPORT_CHUNK_BYTES = 1024 * 1024;

async function streamBounded(
	path: string,
	limit: number,
	sink: { push(chunk: string): void },
): Promise<"" | { tooLarge: number } | undefined> {
	let handle: Awaited<ReturnType<typeof open>> | undefined;
	try {
		handle = await open(path, "r");
		const stat = await handle.stat();
		if (!stat.isFile()) return undefined;
		if (stat.size > limit) return { tooLarge: stat.size };
		const decoder = new StringDecoder("utf8");
		const buffer = Buffer.alloc(REPORT_CHUNK_BYTES);
		for (let read = 0; read < limit + 1; ) {
			const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
			if (bytesRead === 0) break;
			read += bytesRead;
			if (read > limit) return { tooLarge: read };
			sink.push(decoder.write(buffer.subarray(0, bytesRead)));
		}
		sink.push(decoder.end());
		return "";
	} catch {
		return undefined;
	} finally {
		await handle?.close();
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

/**
 * A jscpd that is not the pinned native binary may be a node launcher (a project's or PATH's
 * `jscpd`): its heap is bounded below the group bound, so node fails with a heap error first.
 */
function heapBound(request: RunRequest, limits: RunnerLimits): Record<string, string> {
	if (request.bundled || !request.reportFile) return {};
	const mb = Math.max(16, Math.floor(limits.maxMemoryBytes / (1024 * 1024) / 2));
	return { NODE_OPTIONS: `--max-old-space-size=${mb}` };
}

/** One serialised jscpd process owner. */
export class ProcessRunner {
	readonly #limits: RunnerLimits;
	#tail: Promise<unknown> = Promise.resolve();
	readonly #registry = new ProcessRegistry();
	#trust: ProjectTrust | undefined;

	constructor(limits: Partial<RunnerLimits> = {}) {
		this.#limits = { ...DEFAULT_LIMITS, ...limits };
	}

	/**
	 * The project the runs are for (session start). Unbound, every run counts as untrusted. The
	 * first bind also removes temp dirs a killed Pi process left behind (in the background).
	 */
	bind(trust: ProjectTrust): void {
		this.#trust = trust;
		this.staleRemoved ??= removeStaleTempDirs(this.#limits.tempRoot);
	}

	/** The removal of temp dirs left by dead processes (started by the first {@link bind}): the names removed. */
	staleRemoved: Promise<string[]> | undefined;

	/** Whether the bound project is trusted (false until bound). */
	get trusted(): boolean {
		return this.#trust?.trusted === true;
	}

	/** Runs one process after every earlier run has finished and cleaned up. Never throws. */
	run(request: RunRequest): Promise<RunOutcome> {
		const next = this.#tail.then(() => this.#runNow(request));
		this.#tail = next.catch(() => undefined);
		return next;
	}

	/**
	 * Stops accepting runs and kills the live process group at once (SIGKILL). Never waits for a
	 * scan: the promise resolves once the killed run has removed its temp dir. Idempotent.
	 */
	async close(): Promise<void> {
		this.#registry.closeAll();
		await this.#tail;
	}

	#stopped(request: RunRequest): boolean {
		return this.#registry.closed || request.signal?.aborted === true;
	}

	async #runNow(request: RunRequest): Promise<RunOutcome> {
		if (this.#stopped(request)) return { status: "cancelled" };
		let dir: string | undefined;
		try {
			dir = await mkdtemp(join(this.#limits.tempRoot, tempDirPrefix()));
			if (this.#stopped(request)) return { status: "cancelled" };
			for (const [name, content] of Object.entries(request.files ?? {})) {
				await writeFile(join(dir, name), content, { mode: 0o600 });
				if (this.#stopped(request)) return { status: "cancelled" };
			}
			return await this.#spawn(request, dir);
		} catch (error) {
			return { status: "failed", error: (error as Error).message, stderr: "" };
		} finally {
			if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
		}
	}

	async #spawn(request: RunRequest, dir: string): Promise<RunOutcome> {
		const limits = this.#limits;
		const args = request.args.map((arg) => arg.replaceAll("{output}", dir));
		const trust = this.#trust ?? { root: request.cwd ?? dir, trusted: false };
		const outcome = await runProcess({
			command: request.command,
			bundled: request.bundled,
			args,
			cwd: request.cwd ?? dir,
			trust,
			env: { NO_COLOR: "1", JSCPD_NO_TIPS: "1", ...heapBound(request, limits), ...request.env },
			// Scans only: the `--version` probe is short and bounded by its timeout.
			maxMemoryBytes: request.reportFile ? limits.maxMemoryBytes : undefined,
			timeoutMs: request.timeoutMs,
			signal: request.signal,
			maxOutputBytes: limits.maxOutputBytes,
			killGraceMs: limits.killGraceMs,
			registry: this.#registry,
		});
		switch (outcome.status) {
			case "aborted":
				return { status: "cancelled" };
			case "timeout":
				return { status: "timeout", timeoutMs: outcome.timeoutMs };
			case "memory":
				return { status: "memory", limitBytes: outcome.limitBytes };
			case "unavailable":
				return { status: "missing", error: outcome.reason };
			case "failed":
				return { status: "failed", error: outcome.error, stderr: outcome.stderr.text };
			case "signalled":
				return {
					status: "failed",
					error: `jscpd was killed by ${outcome.signal}`,
					stderr: outcome.stderr.text,
				};
		}
		const code = outcome.exitCode;
		const errText = outcome.stderr.text;
		if (this.#stopped(request)) return { status: "cancelled" };
		if (!request.reportFile) {
			return code === 0
				? { status: "ok", exitCode: 0, stdout: outcome.stdout.text }
				: { status: "failed", error: `exited with code ${code}`, exitCode: code, stderr: errText };
		}
		const path = join(dir, request.reportFile);
		const report = request.reportStream
			? await streamBounded(path, limits.maxReportBytes, request.reportStream)
			: await readBounded(path, limits.maxReportBytes);
		if (typeof report === "string")
			return {
				status: "ok",
				exitCode: code,
				stdout: outcome.stdout.text,
				...(request.reportStream ? {} : { report }),
			};
		const error =
			report === undefined
				? `jscpd exited with code ${code} without writing a report`
				: `the jscpd report is too large (${report.tooLarge} bytes > ${limits.maxReportBytes})`;
		return { status: "failed", error, exitCode: code, stderr: errText };
	}
}
