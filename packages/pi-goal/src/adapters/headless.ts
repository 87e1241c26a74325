/**
 * The headless contract of Pi's print-mode CLI (`pi -p "/goal …"`, `pi --mode json -p "/goal …"`):
 * a `/goal` command that started goal work stays until that work ends (waiting in-process for a
 * `goal_wait` deadline up to {@link HEADLESS_WAIT_BOUND_MS}), then sets the exit code, says on
 * stderr where a goal that did not complete stands, and at session_shutdown writes the completion
 * summary (text mode) or one final JSON line (json mode) to the real stdout.
 *
 * Pi 1.3–1.6 redirects `console.log` and `process.stdout.write` to stderr in print mode and keeps
 * stdout for its own output; the kit's `writeStdout` writes past that redirect. Pi sets
 * `process.exitCode` to 1 after a failed last request, so the code is set again when the process
 * exits. Only Pi's own CLI gets any of this: an SDK host (no stdout redirect) keeps its stdout and
 * exit code.
 */
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { stdoutRedirected, writeStdout } from "@pi-lifecycle/lifecycle-kit";
import {
	EXIT_CODES,
	HEADLESS_WAIT_BOUND_MS,
	type HeadlessReport,
	headlessReport,
	outcomeJsonLine,
	stdoutText,
} from "../core/headless.js";
import type { GoalRecord } from "../core/types.js";
import { statusText } from "./commands.js";
import type { GoalController } from "./controller.js";
import { say } from "./output.js";

/** Where a headless run's end goes: the process, or a recorder in tests. */
export interface HeadlessSink {
	/** Whether the exit code and stdout belong to this run (Pi's own print-mode CLI). */
	owns(ctx: Pick<ExtensionCommandContext, "mode" | "hasUI">): boolean;
	/** Writes to the real stdout. */
	writeStdout(text: string): void;
	/** Sets the process exit code (kept when Pi sets its generic 1 afterwards). */
	setExitCode(code: number): void;
	/** Resolves after `ms`, keeping the process alive meanwhile. */
	sleep(ms: number): Promise<void>;
}

let exitCode: number | undefined;
let exitHook = false;

/** The real process: only in Pi's print-mode CLI. */
export const processSink: HeadlessSink = {
	owns: (ctx) => !ctx.hasUI && (ctx.mode === "print" || ctx.mode === "json") && stdoutRedirected(),
	writeStdout,
	setExitCode(code) {
		exitCode = code;
		process.exitCode = code;
		if (exitHook) return;
		exitHook = true;
		// Pi sets 1 after a failed last request (a usage limit, a provider error); a signal's code stays.
		process.once("exit", (current) => {
			if (exitCode !== undefined && (current === 0 || current === 1)) process.exitCode = exitCode;
		});
	},
	sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The deadline a headless run waits for in-process, or undefined (no wait, none, or too far). */
export function waitInProcess(goal: GoalRecord | null, now: number): number | undefined {
	const resumeAt = goal?.status === "active" ? goal.wait?.resumeAt : undefined;
	if (resumeAt == null || resumeAt - now > HEADLESS_WAIT_BOUND_MS) return undefined;
	return resumeAt;
}

/** Dependencies of {@link HeadlessRuns}. */
export interface HeadlessDeps {
	readonly pi: Pick<ExtensionAPI, "on">;
	readonly controller: GoalController;
	readonly sink: HeadlessSink;
	/** Follows the work a command started until it settles (command-register.ts). */
	readonly follow: (ctx: ExtensionCommandContext) => Promise<void>;
}

/** How long after a deadline the wake may take to start before the run ends as waiting. */
const WAKE_GRACE_MS = 5_000;
const WAKE_POLL_MS = 50;

/** One runtime's headless runs. Create in the factory. */
export class HeadlessRuns {
	readonly #deps: HeadlessDeps;
	#pending: { report: HeadlessReport; json: boolean } | undefined;

	constructor(deps: HeadlessDeps) {
		this.#deps = deps;
		deps.pi.on("session_shutdown", () => this.#flush());
	}

	/**
	 * After a `/goal` command that could start work: follows it (and waits for a near deadline), then
	 * reports. `before` is the goal before the command: unchanged means no work started.
	 */
	async finish(ctx: ExtensionCommandContext, before: GoalRecord | null): Promise<void> {
		const { controller, sink } = this.#deps;
		const owns = sink.owns(ctx);
		if (controller.goal !== before) await (owns ? this.#followWaits(ctx) : this.#deps.follow(ctx));
		const goal = controller.goal;
		const started = goal !== before;
		// No footer without a UI: where an unfinished goal stands, and why, goes to stderr.
		const headless = !ctx.hasUI && (ctx.mode === "print" || ctx.mode === "json");
		const stoppedShort = goal && goal.status !== "complete" && !(goal.status === "active" && !goal.wait);
		if (started && headless && stoppedShort) say(ctx, statusText(controller), "warning");
		if (!owns) return;
		const report =
			!started && goal?.status !== "complete"
				? { outcome: "not-started" as const, exitCode: EXIT_CODES["not-started"] }
				: headlessReport(goal, controller.settings.automaticTurns);
		sink.setExitCode(report.exitCode);
		this.#pending = { report, json: ctx.mode === "json" };
	}

	async #followWaits(ctx: ExtensionCommandContext): Promise<void> {
		const { controller, sink } = this.#deps;
		await this.#deps.follow(ctx);
		for (;;) {
			const goal = controller.goal;
			const resumeAt = waitInProcess(goal, controller.facts().now);
			if (resumeAt === undefined || !goal) return;
			// stderr (a warning's route without a UI): stdout carries only the completion summary.
			say(
				ctx,
				`waiting in this process until ${new Date(resumeAt).toISOString()} (goal_wait deadline).`,
				"warning",
			);
			await sink.sleep(Math.max(0, resumeAt - controller.facts().now));
			// The waker's own timer wakes the goal; give its run a moment to start.
			for (
				let waited = 0;
				waited < WAKE_GRACE_MS && this.#stillWaiting(goal, resumeAt);
				waited += WAKE_POLL_MS
			)
				await sink.sleep(WAKE_POLL_MS);
			if (this.#stillWaiting(goal, resumeAt)) return;
			await this.#deps.follow(ctx);
		}
	}

	#stillWaiting(goal: GoalRecord, resumeAt: number): boolean {
		const current = this.#deps.controller.goal;
		return current?.id === goal.id && current.wait?.resumeAt === resumeAt;
	}

	#flush(): void {
		const pending = this.#pending;
		this.#pending = undefined;
		if (!pending) return;
		const text = pending.json ? outcomeJsonLine(pending.report) : stdoutText(pending.report);
		if (text) this.#deps.sink.writeStdout(text);
	}
}
