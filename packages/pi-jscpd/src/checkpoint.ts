/**
 * The automatic checkpoint job: one full-project scan compared with the accepted baseline, then
 * (after the scheduler's freshness check) a quiet delivery while Pi is idle.
 *
 * Clean and failed outcomes only update status. Findings become one bounded custom message
 * (`triggerTurn: false`); only the delivered identities are acknowledged, and only after the message
 * is verifiably the new leaf of the session.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { BaselineState } from "./baseline.js";
import { type Finding, selectFindings } from "./compare.js";
import type { Capability } from "./locate.js";
import { ackOf, type DeliveredDetails, type MutationState } from "./mutations.js";
import { FINDINGS_MESSAGE, findingsMessage } from "./presentation.js";
import type { ProcessRunner } from "./runner.js";
import { runScan } from "./scan.js";
import type { AutomaticResult } from "./scheduler.js";

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
	}[];
	/** Eligible findings left out by the cap. */
	readonly omitted: number;
}

/** A terminal outcome for status. */
export interface CheckOutcome {
	/** clean, findings, unavailable, timeout or failed. */
	readonly kind: "clean" | "findings" | "unavailable" | "timeout" | "failed";
	/** One line for status. */
	readonly text: string;
	/** Findings delivered (kind `findings`). */
	readonly delivered?: number;
}

/** What the job needs; every getter reads current state at call time. */
export interface CheckpointDeps {
	readonly pi: Pick<ExtensionAPI, "sendMessage">;
	readonly runner: ProcessRunner;
	readonly root: string;
	readonly capability: () => Promise<Capability>;
	readonly baseline: () => BaselineState;
	readonly mutations: MutationState;
	readonly timeoutMs: () => number;
	readonly maxFindings: () => number;
	/** The current context, or undefined when the runtime is gone. */
	readonly context: () => ExtensionContext | undefined;
	/** Whether the runtime, session and branch captured at the start are still current. */
	readonly stillCurrent: () => boolean;
	/** Records a terminal outcome (status/footer). */
	readonly record: (outcome: CheckOutcome) => void;
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
	const terminal = (outcome: CheckOutcome): AutomaticResult => ({
		kind: "terminal",
		outcome: outcome.kind,
		commit: () => {
			deps.record(outcome);
			return true;
		},
	});
	if (capability.status !== "available") return terminal({ kind: "unavailable", text: capability.reason });
	const scan = await runScan(deps.runner, capability, {
		root: deps.root,
		paths: [],
		timeoutMs: deps.timeoutMs(),
		signal,
	});
	if (scan.status === "cancelled" || signal.aborted) return { kind: "retryable", reason: "cancelled" };
	if (scan.status === "unavailable") return terminal({ kind: "unavailable", text: scan.reason });
	if (scan.status === "timeout") return terminal({ kind: "timeout", text: scan.reason });
	if (scan.status === "failed") return terminal({ kind: "failed", text: scan.reason });
	const selection = selectFindings({
		groups: scan.report.groups,
		baseline: baseline.identities,
		changed: deps.mutations.changed,
		acknowledged: (identity) => deps.mutations.isAcknowledged(identity),
		max: deps.maxFindings(),
	});
	if (selection.findings.length === 0) {
		return terminal({ kind: "clean", text: "no new duplicates in files changed this session" });
	}
	return {
		kind: "terminal",
		outcome: "findings",
		commit: () => deliver(deps, selection.findings, selection.omitted, generation),
	};
}

/** Appends the findings message while idle; acknowledges only what was verifiably appended. */
function deliver(
	deps: CheckpointDeps,
	findings: readonly Finding[],
	omitted: number,
	generation: number,
): boolean {
	const ctx = deps.context();
	if (!ctx || !deps.stillCurrent()) return false;
	try {
		if (!ctx.isIdle() || ctx.hasPendingMessages()) return false;
	} catch {
		return false;
	}
	const deliveryId = `${Date.now().toString(36)}-${++deliveryCounter}`;
	const details: FindingsDetails = {
		deliveryId,
		generation,
		delivered: findings.map((finding) => ackOf(finding.group)),
		findings: findings.map(({ identity, label, group }) => ({
			identity,
			label,
			lines: group.lines,
			tokens: group.tokens,
			format: group.format,
			locations: group.locations,
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
	deps.mutations.acknowledge(details.delivered);
	deps.record({
		kind: "findings",
		text: `${findings.length} new duplicate(s) reported`,
		delivered: findings.length,
	});
	return true;
}
