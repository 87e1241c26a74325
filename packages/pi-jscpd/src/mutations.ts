/**
 * Session mutation state: the files changed in this session and the acknowledged findings.
 *
 * - A successful built-in write/edit records its canonical project path and invalidates every
 *   acknowledgement touching that path (the scheduler's generation is bumped by the caller).
 * - Acknowledgements are recorded only after a findings message was durably appended.
 * - {@link replayBranch} rebuilds both from the session branch once, at session start or tree
 *   navigation (never on hot events).
 */
import type { CloneGroup } from "./report.js";

/** One acknowledged identity and the paths it touches. */
export interface AckRecord {
	/** Clone-group identity. */
	readonly identity: string;
	/** Project paths of its locations. */
	readonly paths: readonly string[];
}

/** The acknowledgement record of a group. */
export function ackOf(group: Pick<CloneGroup, "identity" | "locations">): AckRecord {
	return { identity: group.identity, paths: group.locations.map((loc) => loc.path) };
}

/** Mutable per-runtime mutation state (owned by one session controller). */
export class MutationState {
	readonly #changed = new Set<string>();
	readonly #acks = new Map<string, readonly string[]>();

	/** Records a changed project path and invalidates acknowledgements on it. */
	record(path: string): void {
		this.#changed.add(path);
		for (const [identity, paths] of this.#acks) if (paths.includes(path)) this.#acks.delete(identity);
	}

	/** Acknowledges delivered findings. */
	acknowledge(items: readonly AckRecord[]): void {
		for (const item of items) this.#acks.set(item.identity, [...item.paths]);
	}

	/** Whether an identity was delivered and not invalidated since. */
	isAcknowledged(identity: string): boolean {
		return this.#acks.has(identity);
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
	}
}

/** The session entries {@link replayBranch} reads (a structural subset of Pi's entries). */
export interface ReplayEntry {
	readonly type: string;
	readonly customType?: string;
	readonly details?: unknown;
	readonly message?: {
		readonly role?: string;
		readonly toolName?: string;
		readonly isError?: boolean;
		readonly toolCallId?: string;
		readonly content?: unknown;
	};
	readonly data?: unknown;
}

/** Findings message details carry what was acknowledged. */
export interface DeliveredDetails {
	/** Delivered groups (identity and paths). */
	readonly delivered: readonly AckRecord[];
}

/** Narrows findings-message details. */
export function isDeliveredDetails(value: unknown): value is DeliveredDetails {
	return (
		typeof value === "object" &&
		value !== null &&
		Array.isArray((value as DeliveredDetails).delivered) &&
		(value as DeliveredDetails).delivered.every(
			(d) =>
				typeof d?.identity === "string" &&
				Array.isArray(d.paths) &&
				d.paths.every((p) => typeof p === "string"),
		)
	);
}

/**
 * Rebuilds changed paths and acknowledgements from a branch, in order. `pathOf` maps a write/edit
 * tool call id to its canonical project path (from the assistant tool calls seen earlier).
 */
export function replayBranch(
	state: MutationState,
	entries: readonly ReplayEntry[],
	options: { readonly findingsType: string; readonly canonical: (path: string) => string | undefined },
): { readonly mutations: number } {
	state.clear();
	const callPaths = new Map<string, string>();
	let mutations = 0;
	for (const entry of entries) {
		const message = entry.message as
			| { role?: string; content?: unknown; toolName?: string; toolCallId?: string; isError?: boolean }
			| undefined;
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
		} else if (
			entry.type === "custom_message" &&
			entry.customType === options.findingsType &&
			isDeliveredDetails(entry.details)
		) {
			state.acknowledge(entry.details.delivered);
		}
	}
	return { mutations };
}
