/**
 * Registers `/goal`: bare `/goal` in the TUI opens the manager menu (menu.ts), everything else is
 * a typed subcommand (commands.ts). Both call the same use cases (use-cases.ts); the menu never
 * builds a command string for the parser.
 */
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { completeGoalArgs, parseGoalCommand } from "../core/command-parse.js";
import { type CommandDeps, handleGoalCommand } from "./commands.js";
import type { HeadlessRuns } from "./headless.js";
import { openGoalMenu, opensMenu } from "./menu.js";
import { say } from "./output.js";

/** Subcommands that can start goal work from idle. */
const STARTS_WORK = new Set(["start", "resume", "edit"]);

/** Longest wait for an `agent_settled` before the idle check runs again anyway. */
const SETTLE_RECHECK_MS = 1_000;

/**
 * Resolves at the next `agent_settled` (subscribed only for this wait), or after
 * {@link SETTLE_RECHECK_MS} should none come (a stale runtime refuses the subscription: then only the timer).
 */
function nextSettle(pi: Pick<ExtensionAPI, "on">): Promise<void> {
	return new Promise<void>((resolve) => {
		let unsubscribe = () => {};
		const done = () => {
			clearTimeout(timer);
			unsubscribe();
			resolve();
		};
		const timer = setTimeout(done, SETTLE_RECHECK_MS);
		try {
			unsubscribe = pi.on("agent_settled", done);
		} catch {
			// Only the timer.
		}
	});
}

/**
 * Print and json modes (`pi -p "/goal …"`, SDK hosts) end as soon as the command returns, so
 * there a command that started goal work stays until that work settles, as a plain prompt would.
 * The interactive TUI and RPC keep running and return at once. An idle wake queued by a settle
 * (`flushSoon`) runs on the next macrotask, hence the setImmediate before re-checking.
 */
export async function followStartedWork(
	ctx: ExtensionCommandContext,
	pi: Pick<ExtensionAPI, "on">,
): Promise<void> {
	if (ctx.mode !== "print" && ctx.mode !== "json") return;
	do {
		await ctx.waitForIdle();
		await new Promise<void>((resolve) => setImmediate(resolve));
		if (ctx.isIdle()) return;
		// A host whose command context has no bound waitForIdle (SDK hosts, the test harness) resolves
		// it at once: wait for the run's settle instead of polling on a timer for the whole run.
		await nextSettle(pi);
	} while (!ctx.isIdle());
}

/** Registers `/goal`. */
export function registerGoalCommand(deps: CommandDeps & { readonly headless?: HeadlessRuns }): void {
	deps.pi.registerCommand("goal", {
		description:
			"Work autonomously toward one objective: /goal <objective> | status | pause | resume | edit | clear",
		getArgumentCompletions: (prefix) => completeGoalArgs(prefix),
		handler: async (args, ctx) => {
			const dormant = deps.dormancy?.reason;
			if (dormant) return say(ctx, dormant, "warning");
			try {
				if (opensMenu(args, ctx)) return await openGoalMenu(deps, ctx, deps.dialogs);
				const before = deps.controller.goal;
				await handleGoalCommand(deps, args, ctx);
				const parsed = parseGoalCommand(args);
				// A headless run reports every command that could start work, a malformed one too (exit 2).
				if (!parsed.ok || STARTS_WORK.has(parsed.command.kind)) {
					if (deps.headless) await deps.headless.finish(ctx, before);
					else if (parsed.ok) await followStartedWork(ctx, deps.pi);
				}
			} catch (error) {
				say(ctx, `/goal failed: ${(error as Error).message}`, "error");
			}
		},
	});
}
