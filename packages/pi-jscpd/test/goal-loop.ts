/**
 * A test-only stand-in for a goal extension: it keeps Pi inside one run by continuing at
 * `agent_before_settle` (through the kit's boundary participant) a fixed number of times, and can
 * put a retain-none compaction (a reset) at one of those boundaries, announcing it on
 * `pi-lifecycle:reset:v1` at the first request of the new window, as pi-reset does.
 */
import type { ExtensionFactory, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import {
	createBoundaryParticipant,
	RESET_CHANNEL,
	type ResetAnnouncement,
} from "@pi-lifecycle/lifecycle-kit";

/** The nudge message type. */
export const NUDGE = "test-goal/continue";

/** Options of {@link goalLoop}. */
export interface GoalLoopOptions {
	/** Continuations per run (iterations = continuations + 1). */
	readonly continuations: number;
	/** Reset at the boundary that ends this iteration (1-based). */
	readonly resetAfter?: number;
}

/** Builds the test extension. */
export function goalLoop(options: GoalLoopOptions): ExtensionFactory {
	return (pi) => {
		let iteration = 1;
		let announce = false;
		const participant = createBoundaryParticipant(pi, {
			events: ["agent_before_settle"],
			propose(event) {
				if (event.outcome !== "completed" || iteration > options.continuations) {
					participant.disarm();
					return undefined;
				}
				const reset = iteration === options.resetAfter;
				iteration++;
				const nudge: SessionBoundaryDraft = {
					type: "custom_message",
					customType: NUDGE,
					content: `Continue the goal: iteration ${iteration}.`,
					display: false,
				};
				if (!reset) return { drafts: [nudge], continue: true };
				announce = true;
				return {
					drafts: [{ type: "compaction", summary: "handoff: keep going", firstKeptEntryId: null }, nudge],
					continue: true,
				};
			},
		});
		pi.on("before_agent_start", () => {
			iteration = 1;
			participant.arm();
		});
		pi.on("context", (_event, ctx) => {
			if (!announce) return;
			announce = false;
			const reset = [...ctx.sessionManager.getBranch()].reverse().find((e) => e.type === "compaction");
			if (!reset) return;
			const payload: ResetAnnouncement = {
				session: ctx.sessionManager,
				windowId: "w-test",
				entryId: reset.id,
			};
			pi.events.emit(RESET_CHANNEL, payload);
		});
	};
}
