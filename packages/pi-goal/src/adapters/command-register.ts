/**
 * Registers `/goal`: bare `/goal` in the TUI opens the manager menu (menu.ts), everything else is
 * a typed subcommand (commands.ts). Both call the same use cases (use-cases.ts); the menu never
 * builds a command string for the parser.
 */
import type { ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { completeGoalArgs, parseGoalCommand } from "../core/command-parse.js";
import { type CommandDeps, handleGoalCommand } from "./commands.js";
import { openGoalMenu, opensMenu } from "./menu.js";
import { say } from "./output.js";

/** Subcommands that can start goal work from idle. */
const STARTS_WORK = new Set(["start", "resume", "edit"]);

/**
 * Print and json modes (`pi -p "/goal …"`, SDK hosts) end as soon as the command returns, so
 * there a command that started goal work stays until that work settles, as a plain prompt would.
 * The interactive TUI and RPC keep running and return at once. An idle wake queued by a settle
 * (`flushSoon`) runs on the next macrotask, hence the setImmediate before re-checking.
 */
export async function followStartedWork(ctx: ExtensionCommandContext): Promise<void> {
	if (ctx.mode !== "print" && ctx.mode !== "json") return;
	do {
		await ctx.waitForIdle();
		await new Promise<void>((resolve) => setImmediate(resolve));
		if (ctx.isIdle()) return;
		// A host whose command context has no bound waitForIdle (the SDK harness) resolves it at once:
		// poll gently instead of spinning on setImmediate for the whole run.
		await new Promise<void>((resolve) => setTimeout(resolve, 20));
	} while (!ctx.isIdle());
}

/** Registers `/goal`. */
export function registerGoalCommand(deps: CommandDeps): void {
	deps.pi.registerCommand("goal", {
		description:
			"Work autonomously toward one objective: /goal <objective> | status | pause | resume | edit | clear",
		getArgumentCompletions: (prefix) => completeGoalArgs(prefix),
		handler: async (args, ctx) => {
			const dormant = deps.dormancy?.reason;
			if (dormant) return say(ctx, dormant, "warning");
			try {
				if (opensMenu(args, ctx)) return await openGoalMenu(deps, ctx, deps.dialogs);
				await handleGoalCommand(deps, args, ctx);
				const parsed = parseGoalCommand(args);
				if (parsed.ok && STARTS_WORK.has(parsed.command.kind)) await followStartedWork(ctx);
			} catch (error) {
				say(ctx, `/goal failed: ${(error as Error).message}`, "error");
			}
		},
	});
}
