/**
 * The automatic checkpoint job: one full-project scan compared with the accepted baseline, then
 * (after the scheduler's freshness check) a quiet delivery while Pi is idle.
 *
 * Clean and failed outcomes only update status. Findings become one bounded custom message
 * (`triggerTurn: false`); only the delivered identities are acknowledged:
 * - while Pi is idle, after the message is verifiably the new leaf of the session;
 * - inside a run (a check started at a boundary continuation), when Pi takes the message: it is
 *   appended at the end of the current turn and the next request of the run includes it.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { CheckOutcome } from "../core/check-outcome.js";
import { beyondCovered, type Finding } from "../core/compare.js";
import { type AckRecord, ackOf, type DeliveredDetails } from "../core/deliveries.js";
import type { ScanFocus } from "../core/focus.js";
import type { LineIndex } from "../core/identity.js";
import { checkedNote } from "../core/kinds.js";
import { FINDINGS_MESSAGE, findingsMessage } from "../core/presentation.js";
import { printablePath } from "../core/project-paths.js";
import type { CloneGroup } from "../core/report.js";
import type { AutomaticResult } from "../core/scheduler.js";
import type { BaselineState } from "./baseline.js";
import { findNewGroups } from "./find-new.js";
import type { Capability } from "./locate.js";
import type { ProcessRunner } from "./runner.js";

export type { CheckOutcome } from "../core/check-outcome.js";

/** Details attached to a findings message. */
export interface FindingsDetails extends DeliveredDetails {
	/** Unique delivery id (used to verify the append). */
	readonly deliveryId: string;
	/** The covered mutation generation. */
	readonly generation: number;
	/** Structured findings. */
	readonly findings: readonly {
		readonly identity: string;
		readonly label: Finding["label"];
		readonly lines: number;
		readonly tokens: number;
		readonly format: string;
		readonly locations: Finding["group"]["locations"];
		/** Clone kind (exact when absent). */
		readonly kind?: "renamed" | "similar";
		readonly similarity?: number;
		/** The copied code's location, when one side is unchanged this session. */
		readonly original?: Finding["original"];
	}[];
	/** Eligible findings left out by the cap. */
	readonly omitted: number;
}

/** What the job needs; every getter reads current state at call time. */
export interface CheckpointDeps {
	readonly pi: Pick<ExtensionAPI, "sendMessage">;
	readonly runner: ProcessRunner;
	readonly root: string;
	readonly capability: () => Promise<Capability>;
	readonly baseline: () => BaselineState;
	/** The baseline index a report is compared with (pending rebases applied). */
	readonly index: (groups: readonly CloneGroup[]) => LineIndex;
	/** Project paths changed in this session. */
	readonly changed: () => ReadonlySet<string>;
	/** What a check of the changed files scans (find-new.ts). */
	readonly focus?: (changed: ReadonlySet<string>, signal: AbortSignal) => Promise<ScanFocus>;
	/** Whether a finding was delivered and not invalidated since. */
	readonly isAcknowledged: (identity: string) => boolean;
	/** Acknowledges delivered findings (the owner of the session's mutation state records them). */
	readonly acknowledge: (acks: readonly AckRecord[]) => void;
	readonly timeoutMs: () => number;
	readonly maxFindings: () => number;
	/** The current context, or undefined when the runtime is gone. */
	readonly context: () => ExtensionContext | undefined;
	/** Whether the runtime, session and branch captured at the start are still current. */
	readonly stillCurrent: () => boolean;
	/** Whether a run is active (between its start and agent_settled). */
	readonly inRun: () => boolean;
	/** Records a terminal outcome (status/footer). */
	readonly record: (outcome: CheckOutcome) => void;
	/**
	 * The outside-change probe started with this check (same tree): its paths are recorded as
	 * changed when it resolves; the selection waits for it. Undefined when none was started.
	 */
	readonly outside?: Promise<void>;
	/** Why the changed files may be incomplete (read after `outside`); never "clean" then. */
	readonly incomplete?: () => string | undefined;
	/** Whether the user dismissed a finding as intended, by any of its keys (never delivered then). */
	readonly dismissed?: (finding: Finding) => boolean;
	/** Receives every current new finding (told, dismissed or not) when the outcome is committed. */
	readonly current?: (findings: readonly Finding[]) => void;
}

let deliveryCounter = 0;

/** Runs one automatic check for `generation`. Never throws. */
export async function runCheckpoint(
	deps: CheckpointDeps,
	signal: AbortSignal,
	generation: number,
): Promise<AutomaticResult> {
	const baseline = deps.baseline();
	if (baseline.status !== "accepted") return { kind: "retryable", reason: `baseline ${baseline.status}` };
	const capability = await deps.capability();
	if (signal.aborted) return { kind: "retryable", reason: "cancelled" };
	// A failure's reason can embed a path (jscpd's stderr, the located binary): printable in status.
	const terminal = (outcome: CheckOutcome): AutomaticResult => ({
		kind: "terminal",
		outcome: outcome.kind,
		commit: () => {
			deps.record({ ...outcome, text: printablePath(outcome.text) });
			return true;
		},
	});
	if (capability.status !== "available") return terminal({ kind: "unavailable", text: capability.reason });
	const found = await findNewGroups({
		runner: deps.runner,
		capability,
		root: deps.root,
		timeoutMs: deps.timeoutMs(),
		signal,
		detection: baseline.detection,
		beforeSelect: () => deps.outside ?? Promise.resolve(),
		baseline: deps.index,
		focus: deps.focus,
		changed: deps.changed,
	});
	if (found.status === "cancelled" || signal.aborted) return { kind: "retryable", reason: "cancelled" };
	if (found.status === "unavailable") return terminal({ kind: "unavailable", text: found.reason });
	if (found.status === "timeout") return terminal({ kind: "timeout", text: found.reason });
	if (found.status === "incomplete") return terminal({ kind: "incomplete", text: found.reason });
	if (found.status === "failed") return terminal({ kind: "failed", text: found.reason });
	// Every current finding (for the triage list), then the ones to deliver: not told, not dismissed.
	// Filtering the sorted list keeps selectFindings' order, so the cap takes the same findings.
	const { current } = found;
	const scope = scopeText(found);
	const facts: Pick<CheckOutcome, "scope" | "ms"> = { scope, ...(found.ms ? { ms: found.ms } : {}) };
	const dismissed = (finding: Finding) => deps.dismissed?.(finding) === true;
	const covered = (finding: Finding) => (identity: string) =>
		deps.isAcknowledged(identity) || dismissed({ ...finding, identity });
	const eligible = current
		.filter((finding) => !deps.isAcknowledged(finding.identity) && !dismissed(finding))
		.map((finding) => beyondCovered(finding, covered(finding)));
	const max = Math.max(0, deps.maxFindings());
	const listed = (outcome: CheckOutcome): AutomaticResult => ({
		kind: "terminal",
		outcome: outcome.kind,
		commit: () => {
			deps.current?.(current);
			deps.record({ ...outcome, ...facts });
			return true;
		},
	});
	if (eligible.length === 0) {
		const incomplete = deps.incomplete?.();
		if (incomplete) return listed({ kind: "incomplete", text: `no new duplicates found, but ${incomplete}` });
		const checked = checkedNote(baseline.detection);
		return listed({ kind: "clean", text: `no new duplicates in files changed this session${checked}` });
	}
	return {
		kind: "terminal",
		outcome: "findings",
		commit: () => {
			const delivered = deliver(
				deps,
				eligible.slice(0, max),
				Math.max(0, eligible.length - max),
				generation,
				facts,
			);
			if (delivered) deps.current?.(current);
			return delivered;
		},
	};
}

/**
 * Appends the findings message while idle, or queues it into the running run; acknowledges only
 * what was verifiably appended (idle) or taken by the run.
 */
function deliver(
	deps: CheckpointDeps,
	findings: readonly Finding[],
	omitted: number,
	generation: number,
	facts: Pick<CheckOutcome, "scope" | "ms">,
): boolean {
	const ctx = deps.context();
	if (!ctx || !deps.stillCurrent()) return false;
	let idle: boolean;
	try {
		idle = ctx.isIdle();
		// Idle with queued user input: a run is about to start; that run's checks deliver instead.
		// Busy without a run (a manual compaction): nothing may be appended now.
		if (idle ? ctx.hasPendingMessages() : !deps.inRun()) return false;
	} catch {
		return false;
	}
	const deliveryId = `${Date.now().toString(36)}-${++deliveryCounter}`;
	const details: FindingsDetails = {
		deliveryId,
		generation,
		delivered: findings.map((finding) => ackOf(finding)),
		findings: findings.map(({ identity, label, group, original }) => ({
			identity,
			label,
			lines: group.lines,
			tokens: group.tokens,
			format: group.format,
			locations: group.locations,
			...(group.kind === undefined || group.kind === "exact"
				? {}
				: { kind: group.kind, similarity: group.similarity, original }),
		})),
		omitted,
	};
	try {
		deps.pi.sendMessage(
			{
				customType: FINDINGS_MESSAGE,
				content: findingsMessage(findings, omitted),
				display: ctx.hasUI,
				details,
			},
			{ triggerTurn: false },
		);
		// Streaming: Pi holds the message until the current turn ends (never between a tool call and
		// its result), then the next request of the run includes it.
		if (!idle) return acknowledge(deps, details, facts);
		const leaf = ctx.sessionManager.getLeafEntry() as
			| { type?: string; customType?: string; details?: { deliveryId?: unknown } }
			| undefined;
		if (
			leaf?.type !== "custom_message" ||
			leaf.customType !== FINDINGS_MESSAGE ||
			leaf.details?.deliveryId !== deliveryId
		) {
			return false;
		}
	} catch {
		return false;
	}
	return acknowledge(deps, details, facts);
}

function acknowledge(
	deps: CheckpointDeps,
	details: FindingsDetails,
	facts: Pick<CheckOutcome, "scope" | "ms">,
): true {
	deps.acknowledge(details.delivered);
	const count = details.findings.length;
	const found = count + details.omitted;
	// What the check found, all of it: the message holds at most maxFindings; the footer counts every one.
	const text =
		details.omitted > 0
			? `${found} new duplicates, ${count} of them reported to the agent`
			: `${count} new duplicate${count === 1 ? "" : "s"} reported to the agent`;
	deps.record({ kind: "findings", text, delivered: count, ...facts });
	return true;
}

/** What a check read, for status: a focused check costs what changed; a whole scan says why it ran. */
export function scopeText(found: { readonly full?: string; readonly scanned?: number }): string {
	return found.full !== undefined
		? `scanned the whole project: ${found.full}`
		: `scanned ${found.scanned ?? 0} changed and related file${found.scanned === 1 ? "" : "s"}, not the whole project`;
}
