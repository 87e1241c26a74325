/**
 * Session mutation state: the files changed in this session and the acknowledged findings.
 *
 * - A successful built-in write/edit records its canonical project path and invalidates every
 *   acknowledgement touching that path (the scheduler's generation is bumped by the caller).
 * - Acknowledgements are recorded only for findings delivered to the model (a findings message
 *   appended or queued into the run, a `jscpd_run changed` result), and withdrawn when a reset
 *   dropped the delivery before the model saw it.
 * - Paths an outside-change comparison found are saved as `pi-jscpd/outside-changes` entries
 *   (outside-entries.ts) and replayed like write/edit results.
 * - {@link replayBranch} rebuilds both from the session branch once, at session start or tree
 *   navigation (never on hot events).
 */
import { copyCounts, covers } from "./copy-keys.js";
import {
	type AckRecord,
	type DeliveryEntry,
	deliveredBy,
	isAnswer,
	isDeliveredDetails,
	isResetEntry,
} from "./deliveries.js";
import { OUTSIDE_CHANGES_ENTRY, outsidePathsOf } from "./outside-entries.js";

/** Mutable per-runtime mutation state (owned by one session controller). */
export class MutationState {
	readonly #changed = new Set<string>();
	readonly #acks = new Map<string, readonly string[]>();
	/** Highest acknowledged copy count per identity digest (copy-keys.ts); rebuilt after a change. */
	#counts: Map<string, number> | undefined;

	/** Records a changed project path and invalidates acknowledgements on it. */
	record(path: string): void {
		this.#changed.add(path);
		for (const [identity, paths] of this.#acks) {
			if (!paths.includes(path)) continue;
			this.#acks.delete(identity);
			this.#counts = undefined;
		}
	}

	/** Acknowledges delivered findings. */
	acknowledge(items: readonly AckRecord[]): void {
		for (const item of items) this.#acks.set(item.identity, [...item.paths]);
		if (items.length > 0) this.#counts = undefined;
	}

	/** Withdraws acknowledgements (deliveries the model never saw); returns how many were withdrawn. */
	unacknowledge(items: readonly AckRecord[]): number {
		let withdrawn = 0;
		for (const item of items) if (this.#acks.delete(item.identity)) withdrawn++;
		if (withdrawn > 0) this.#counts = undefined;
		return withdrawn;
	}

	/**
	 * Whether an identity was delivered and not invalidated since: that identity, or the same
	 * content with at least as many copies (a copy deleted since does not make the rest new).
	 */
	isAcknowledged(identity: string): boolean {
		if (this.#acks.has(identity)) return true;
		this.#counts ??= copyCounts(this.#acks.keys());
		return covers(this.#counts, identity);
	}

	/** Changed project paths. */
	get changed(): ReadonlySet<string> {
		return this.#changed;
	}

	/** Number of acknowledged identities. */
	get acknowledgedCount(): number {
		return this.#acks.size;
	}

	/** Forgets everything (before a replay). */
	clear(): void {
		this.#changed.clear();
		this.#acks.clear();
		this.#counts = undefined;
	}
}

/** The session entries {@link replayBranch} reads (a structural subset of Pi's entries). */
export interface ReplayEntry extends DeliveryEntry {
	readonly message?: DeliveryEntry["message"] & {
		readonly toolCallId?: string;
		readonly content?: unknown;
	};
	readonly data?: unknown;
}

/**
 * Rebuilds changed paths and acknowledgements from a branch, in order. Write/edit results are
 * matched to the canonical path of their tool call. Deliveries acknowledge; a reset (retain-none
 * compaction) withdraws the deliveries made since the last model answer, which it dropped unseen.
 * Saved outside changes record their paths (an unreadable entry records nothing). `malformed`
 * counts findings messages whose details could not be read (they acknowledge nothing).
 */
export function replayBranch(
	state: MutationState,
	entries: readonly ReplayEntry[],
	options: { readonly findingsType: string; readonly canonical: (path: string) => string | undefined },
): { readonly mutations: number; readonly malformed: number } {
	state.clear();
	const callPaths = new Map<string, string>();
	let unseen: AckRecord[] = [];
	let mutations = 0;
	let malformed = 0;
	for (const entry of entries) {
		const message = entry.message;
		if (isAnswer(entry)) unseen = [];
		if (entry.type === "message" && message?.role === "assistant" && Array.isArray(message.content)) {
			for (const block of message.content as {
				type?: string;
				name?: string;
				id?: string;
				arguments?: { path?: unknown };
			}[]) {
				if (block?.type !== "toolCall" || (block.name !== "write" && block.name !== "edit")) continue;
				const path =
					typeof block.arguments?.path === "string" ? options.canonical(block.arguments.path) : undefined;
				if (path && block.id) callPaths.set(block.id, path);
			}
		} else if (entry.type === "message" && message?.role === "toolResult" && !message.isError) {
			const path = message.toolCallId ? callPaths.get(message.toolCallId) : undefined;
			if (path && (message.toolName === "write" || message.toolName === "edit")) {
				state.record(path);
				mutations++;
			}
		} else if (entry.type === "custom" && entry.customType === OUTSIDE_CHANGES_ENTRY) {
			const paths = outsidePathsOf(entry.data);
			for (const path of paths ?? []) state.record(path);
			if (paths && paths.length > 0) mutations++;
		} else if (isResetEntry(entry)) {
			state.unacknowledge(unseen);
			unseen = [];
		}
		if (
			entry.type === "custom_message" &&
			entry.customType === options.findingsType &&
			!isDeliveredDetails(entry.details)
		)
			malformed++;
		const delivered = deliveredBy(entry, options.findingsType);
		if (delivered.length > 0) {
			state.acknowledge(delivered);
			unseen.push(...delivered);
		}
	}
	return { mutations, malformed };
}
