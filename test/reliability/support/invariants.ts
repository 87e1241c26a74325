/**
 * Invariants checked on a real session branch (entries as Pi stores them), shared by the scripted
 * session properties and the durability test (which checks a reopened session file).
 */

/** The entry fields the checks read. */
export interface BranchEntry {
	readonly type: string;
	readonly id: string;
	readonly customType?: string;
	readonly summary?: string;
	readonly firstKeptEntryId?: string | null;
	readonly details?: unknown;
	readonly data?: unknown;
	readonly content?: unknown;
	readonly message?: { readonly role?: string };
}

interface GoalSnapshot {
	readonly id: string;
	readonly status: string;
}

function resetDetails(entry: BranchEntry): { windowId: string; cause: string } | undefined {
	const ours = (entry.details as Record<string, unknown> | undefined)?.["pi-reset"] as
		| { windowId?: unknown; cause?: unknown }
		| undefined;
	return typeof ours?.windowId === "string"
		? { windowId: ours.windowId, cause: String(ours.cause) }
		: undefined;
}

/**
 * Returns every violation found on the branch (empty when consistent):
 * - never two goal continuations for one boundary (between two assistant messages);
 * - never a continuation for a stale, stopped, cleared or replaced goal (the latest persisted
 *   state before it has that goal id, active);
 * - never a reset committed without its boot: an explicit reset (retain-none compaction by
 *   pi-reset) is followed by its `pi-reset/boot` before the next assistant message; a Pi-started
 *   one carries the boot text as its summary.
 */
export function branchViolations(branch: readonly BranchEntry[]): string[] {
	const problems: string[] = [];
	let goal: GoalSnapshot | null = null;
	let continuationsSinceAnswer = 0;
	let awaitingBoot: { windowId: string; at: number } | undefined;
	branch.forEach((entry, index) => {
		if (entry.type === "message" && entry.message?.role === "assistant") {
			continuationsSinceAnswer = 0;
			if (awaitingBoot)
				problems.push(`reset ${awaitingBoot.windowId} (entry ${awaitingBoot.at}) has no boot message`);
			awaitingBoot = undefined;
		}
		if (entry.type === "custom" && entry.customType === "pi-goal/state") {
			const state = (entry.data as { state?: { goal?: GoalSnapshot | null } } | undefined)?.state;
			goal = state?.goal ? { id: state.goal.id, status: state.goal.status } : null;
		}
		if (entry.type === "custom_message" && entry.customType === "pi-goal/continuation") {
			const details = entry.details as { goalId?: string; kind?: string } | undefined;
			continuationsSinceAnswer++;
			if (continuationsSinceAnswer > 1) problems.push(`two goal prompts for one boundary at entry ${index}`);
			const current = goal as GoalSnapshot | null;
			if (!current || current.id !== details?.goalId || current.status !== "active") {
				problems.push(
					`goal prompt (${details?.kind}) for ${details?.goalId} at entry ${index} while the goal is ${current ? `${current.id} ${current.status}` : "none"}`,
				);
			}
		}
		if (entry.type === "compaction") {
			const ours = resetDetails(entry);
			if (
				ours &&
				(ours.cause === "new_context" || ours.cause === "/reset") &&
				entry.firstKeptEntryId === entry.id
			) {
				// Retain-none explicit reset (an idle /reset keeps the run's prompt: its summary is the boot).
				if (!String(entry.summary ?? "").startsWith("[pi-reset] Context reset.")) {
					if (!String(entry.summary ?? "").startsWith(`[pi-reset] Context window ${ours.windowId}`))
						problems.push(`reset ${ours.windowId} has neither a boot summary nor a boot marker`);
				} else {
					awaitingBoot = { windowId: ours.windowId, at: index };
				}
			} else if (
				ours &&
				!String(entry.summary ?? "").startsWith(`[pi-reset] Context window ${ours.windowId}`)
			) {
				problems.push(`compaction ${ours.windowId} (${ours.cause}) has no boot text`);
			}
		}
		if (entry.type === "custom_message" && entry.customType === "pi-reset/boot" && awaitingBoot) {
			const windowId = (entry.details as { windowId?: string } | undefined)?.windowId;
			if (windowId !== awaitingBoot.windowId)
				problems.push(`boot for ${windowId} after reset ${awaitingBoot.windowId}`);
			awaitingBoot = undefined;
		}
	});
	return problems;
}
