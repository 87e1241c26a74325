/**
 * The two triage actions that reach outside the list: "Show both blocks" (a bounded read of the
 * two project files, inside the root by real path, regular files only) and "Ask the agent to fix
 * it" (one user message, sent only from idle through the kit's idle dispatcher, and never while a
 * workflow that is not ours holds `workflow:mutex:v1`).
 */
import { join } from "node:path";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { type IdleDispatcher, isInsideReal, type StaleGuard } from "@pi-lifecycle/lifecycle-kit";
import { bound } from "../core/presentation.js";
import { locationText } from "../core/project-paths.js";
import type { TriageItem } from "../core/triage.js";
import { fixRequest, snippetText } from "../core/triage-text.js";
import { readRegularFile } from "./regular-file.js";

/** Largest file "Show both blocks" reads. */
const MAX_SNIPPET_FILE = 2_000_000;

/** Both blocks of a finding, one after the other, bounded (never throws). */
export function showBlocks(root: string, item: TriageItem): string {
	const blocks = item.finding.locations.map((loc, i) => {
		const path = join(root, loc.path);
		const read = isInsideReal(root, path) ? readRegularFile(path, MAX_SNIPPET_FILE) : undefined;
		const header = `${i === 0 ? "First" : "Second"} block: ${locationText(loc)}`;
		return snippetText(header, read?.status === "read" ? read.text : undefined, loc.startLine, loc.endLine);
	});
	return bound(blocks.join("\n\n"));
}

/** Why a fix request was not sent (public: tests and docs use the texts). */
export const FIX_REFUSALS = {
	busy: "jscpd: the agent is busy; nothing was sent. Ask again when it has finished.",
	pending:
		"jscpd: messages are already queued for the agent; nothing was sent. Ask again when it has finished.",
	workflow:
		"jscpd: a workflow (for example a goal) is driving this session; nothing was sent, so it is not interrupted. Ask again when it has ended.",
	failed: "jscpd: the request could not be sent to the agent.",
} as const;

/** The outcome of a fix request. */
export type FixOutcome =
	| { readonly sent: true }
	| { readonly sent: false; readonly reason: keyof typeof FIX_REFUSALS };

/** What {@link requestFix} needs. */
export interface FixDeps {
	readonly pi: Pick<ExtensionAPI, "sendUserMessage">;
	/** The kit's idle dispatcher of this runtime (idle, pending-message and single-flight checks). */
	readonly dispatcher: IdleDispatcher<ExtensionContext>;
	/** The current runtime's guard (a stale intent is dropped). */
	readonly guard: () => StaleGuard;
	/** Whether another participant holds `workflow:mutex:v1` (pi-jscpd never holds it). */
	readonly workflowBusy: () => boolean;
}

const FIX_KEY = "pi-jscpd:fix";

/**
 * Sends one user message asking the agent to fix `item`, only from idle. A refusal queues
 * nothing: the user decides again later.
 */
export async function requestFix(
	deps: FixDeps,
	ctx: ExtensionContext,
	item: TriageItem,
): Promise<FixOutcome> {
	if (deps.workflowBusy()) return { sent: false, reason: "workflow" };
	deps.dispatcher.request({
		key: FIX_KEY,
		guard: deps.guard(),
		send: () => {
			deps.pi.sendUserMessage(fixRequest(item));
		},
	});
	const outcome = await deps.dispatcher.flush(ctx);
	deps.dispatcher.cancel(FIX_KEY);
	if (outcome.status === "sent") return { sent: true };
	if (outcome.status === "idle-blocked")
		return { sent: false, reason: outcome.reason === "busy" ? "busy" : "pending" };
	if (outcome.status === "in-flight") return { sent: false, reason: "busy" };
	return { sent: false, reason: "failed" };
}
