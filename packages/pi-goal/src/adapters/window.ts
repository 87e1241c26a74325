/**
 * The contract window: which contract revision the current context window holds, and restoring a
 * missing revision without costing every request.
 *
 * - Pi structured-clones the whole message list before every provider request as soon as any
 *   `context` handler exists, so the fallback hook is an armed subscription: subscribed only while
 *   a revision is missing from the window (after a compaction, an unannounced reset, a restore),
 *   unsubscribed as soon as the revision is persisted in the window.
 * - A reset proposed at the same boundary gets the contract as a new-window draft (boundary.ts), so
 *   it is persisted before the first request of the new window and keeps its position in every
 *   request after it (prompt-cache prefix). {@link contractRevisionSince} then finds it.
 */
import type { ExtensionAPI, ExtensionContext, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import {
	type ArmedSubscription,
	type BoundaryEvent,
	createArmedSubscription,
	isResetDraft,
} from "@pi-lifecycle/lifecycle-kit";
import { readContractDetails } from "../core/contract.js";
import { CONTRACT_MESSAGE } from "../core/types.js";
import type { GoalController } from "./controller.js";

/** pi-reset's tool (DESIGN §3): a successful call means a reset boundary follows this turn. */
export const RESET_TOOL = "new_context";

type Walkable = Pick<ExtensionContext["sessionManager"], "getLeafEntry" | "getEntry">;

/**
 * The newest contract revision on the path from the leaf back to `stopId` (inclusive), or -1.
 * Walks only the entries of the current window: called once per reset or compaction, never on a
 * hot event. A walk that meets an older compaction before `stopId` stops there.
 */
export function contractRevisionSince(sessionManager: Walkable, stopId: string): number {
	let entry = sessionManager.getLeafEntry();
	let passedOwnCompaction = false;
	while (entry) {
		if (entry.type === "custom_message" && entry.customType === CONTRACT_MESSAGE) {
			const details = readContractDetails(entry.details);
			if (details) return details.revision;
		}
		if (entry.id === stopId) return -1;
		if (entry.type === "compaction") {
			if (passedOwnCompaction) return -1;
			passedOwnCompaction = true;
		}
		entry = entry.parentId ? sessionManager.getEntry(entry.parentId) : undefined;
	}
	return -1;
}

/** What {@link resetAhead} reads from a boundary event. */
export interface ResetAheadEvent {
	/** The drafts proposed so far at this boundary. */
	readonly entries: readonly SessionBoundaryDraft[];
	/** Tool results of the turn (turn_end only). */
	readonly toolResults?: readonly { toolName?: string; isError?: boolean; details?: unknown }[];
}

/**
 * Whether this boundary opens a new window: a reset draft is already proposed (its owner ran
 * first), or the turn ended with an accepted `new_context` call (its owner runs after us and will
 * propose the reset here). Drafts we propose for the new window are placed after the reset by the
 * kit's merge, whatever the load order.
 */
export function resetAhead(event: ResetAheadEvent | BoundaryEvent): boolean {
	if (event.entries.some(isResetDraft)) return true;
	const results = "toolResults" in event ? (event.toolResults ?? []) : [];
	return results.some((result) => {
		const r = result as { toolName?: string; isError?: boolean; details?: unknown };
		if (r.toolName !== RESET_TOOL || r.isError) return false;
		const status = (r.details as { status?: unknown } | undefined)?.status;
		return status === undefined || status === "requested" || status === "already-pending";
	});
}

/** The armed `context` fallback and its arming rule. */
export interface ContractRestorer {
	/** The subscription (disarm at shutdown). */
	readonly hook: ArmedSubscription;
	/** Arms the hook while a revision is missing from the window, disarms it otherwise. */
	sync(): void;
}

/** Creates the armed context fallback for one runtime. Call in the factory. */
export function createContractRestorer(
	pi: Pick<ExtensionAPI, "on">,
	controller: GoalController,
): ContractRestorer {
	const hook = createArmedSubscription(() =>
		pi.on("context", (event) => {
			const contract = controller.pendingContract();
			if (!contract) return undefined;
			// The revision is missing from this window and could not be persisted before this request
			// (a compaction or reset nobody announced at its boundary): append it after the last message,
			// which never splits a tool call from its result. The next boundary persists it.
			return { messages: [...event.messages, { role: "custom", ...contract, timestamp: Date.now() }] };
		}),
	);
	return {
		hook,
		sync() {
			if (controller.ctx && controller.pendingContract()) hook.arm();
			else hook.disarm();
		},
	};
}
