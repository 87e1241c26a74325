/**
 * What the model was told, read back from session entries (pure).
 *
 * Two kinds of entries deliver findings to the model, and both acknowledge what they carried:
 * - a `pi-jscpd/findings` custom message (the automatic checkpoint);
 * - a `jscpd_run changed` tool result (the model asked; the result was delivered to it).
 *
 * A delivery counts as seen once the model answered after it in the same window (an assistant
 * message follows it). A reset can close the window before that: {@link lostAtReset} finds the
 * deliveries a reset dropped unseen, so they can be un-acknowledged and delivered again.
 */
import type { CloneGroup } from "./report.js";

/** One acknowledged identity and the paths it touches. */
export interface AckRecord {
	/** Clone-group identity. */
	readonly identity: string;
	/** Project paths of its locations. */
	readonly paths: readonly string[];
}

/** The acknowledgement record of a finding (its identity, the paths of its group). */
export function ackOf(finding: {
	readonly identity: string;
	readonly group: Pick<CloneGroup, "locations">;
}): AckRecord {
	return { identity: finding.identity, paths: finding.group.locations.map((loc) => loc.path) };
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

/** The entry fields read here (a structural subset of Pi's session entries). */
export interface DeliveryEntry {
	readonly type: string;
	readonly id?: string;
	readonly parentId?: string | null;
	readonly customType?: string;
	readonly details?: unknown;
	readonly firstKeptEntryId?: string;
	readonly message?: {
		readonly role?: string;
		readonly toolName?: string;
		readonly isError?: boolean;
		readonly details?: unknown;
	};
}

/** The tool whose `changed` results acknowledge findings. */
export const TOOL_NAME = "jscpd_run";

/** Most entries {@link lostAtReset} walks (a reset announcement is handled right after the reset). */
export const MAX_RESET_WALK = 2_000;

/** Acknowledgement records of a `jscpd_run changed` result's `details` (empty for anything else). */
export function acksOfChangedDetails(details: unknown): AckRecord[] {
	if (typeof details !== "object" || details === null) return [];
	const { command, findings } = details as { command?: unknown; findings?: unknown };
	if (command !== "changed" || !Array.isArray(findings)) return [];
	const acks: AckRecord[] = [];
	for (const finding of findings as { identity?: unknown; locations?: unknown }[]) {
		if (typeof finding?.identity !== "string" || !Array.isArray(finding.locations)) continue;
		const paths = (finding.locations as { path?: unknown }[]).map((loc) => loc?.path);
		if (paths.every((p): p is string => typeof p === "string"))
			acks.push({ identity: finding.identity, paths });
	}
	return acks;
}

/** The findings an entry delivered to the model (empty when it is not a delivery). */
export function deliveredBy(entry: DeliveryEntry, findingsType: string): AckRecord[] {
	if (entry.type === "custom_message" && entry.customType === findingsType) {
		return isDeliveredDetails(entry.details) ? [...entry.details.delivered] : [];
	}
	const message = entry.message;
	if (entry.type === "message" && message?.role === "toolResult" && message.toolName === TOOL_NAME) {
		return message.isError ? [] : acksOfChangedDetails(message.details);
	}
	return [];
}

/** Whether an entry is a model answer (everything delivered before it in its window was seen). */
export function isAnswer(entry: DeliveryEntry): boolean {
	return entry.type === "message" && entry.message?.role === "assistant";
}

/** Whether a compaction entry keeps nothing before itself (a reset). */
export function isResetEntry(entry: DeliveryEntry): boolean {
	return entry.type === "compaction" && entry.firstKeptEntryId === entry.id;
}

/** The part of Pi's session manager {@link lostAtReset} reads. */
export interface EntryLookup {
	getLeafId(): string | null;
	getEntry(id: string): unknown;
}

/**
 * The deliveries a reset dropped before the model saw them. Walking back from the leaf:
 * deliveries after the reset entry and in the range it keeps are visible in the new window; the
 * ones between the last answer and the first kept entry were never seen. Identities delivered
 * again in the visible part are not returned. O(entries since the last answer before the reset),
 * capped at {@link MAX_RESET_WALK}; returns nothing when `resetId` is not on the branch.
 */
export function lostAtReset(session: EntryLookup, resetId: string, findingsType: string): AckRecord[] {
	const visible = new Set<string>();
	const lost: AckRecord[] = [];
	const reset = session.getEntry(resetId) as DeliveryEntry | undefined;
	if (reset?.type !== "compaction") return [];
	const firstKept = reset.firstKeptEntryId === resetId ? undefined : reset.firstKeptEntryId;
	let phase: "new-window" | "kept" | "dropped" = "new-window";
	let id = session.getLeafId();
	for (let steps = 0; id && steps < MAX_RESET_WALK; steps++) {
		const entry = session.getEntry(id) as DeliveryEntry | undefined;
		if (!entry) break;
		// An answer saw everything before it; an older compaction closed an older window.
		if (phase === "dropped" && (isAnswer(entry) || entry.type === "compaction")) break;
		const acks = deliveredBy(entry, findingsType);
		if (phase === "dropped") lost.push(...acks);
		else for (const ack of acks) visible.add(ack.identity);
		if (id === resetId) phase = firstKept ? "kept" : "dropped";
		else if (phase === "kept" && id === firstKept) phase = "dropped";
		id = entry.parentId ?? null;
	}
	if (phase === "new-window") return [];
	return lost.filter((ack) => !visible.has(ack.identity));
}
