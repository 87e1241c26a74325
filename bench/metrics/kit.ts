/**
 * The kit's per-event primitives (they run inside handlers Pi awaits): identity transition + guard
 * check, dispatcher flush on a busy session, merging a reset into a boundary's drafts. Median
 * nanoseconds per operation over repeated batches.
 */
import { IdleDispatcher, LifecycleIdentity, mergeBoundaryDrafts } from "@pi-lifecycle/lifecycle-kit";
import { type Metric, metric } from "../lib/report.ts";
import { medianNsPerOp, round } from "../lib/stats.ts";

/** See the module comment. */
export async function kitPrimitives(smoke: boolean): Promise<Metric[]> {
	const repeats = smoke ? 3 : 15;
	const ops = smoke ? 2_000 : 50_000;
	const identity = new LifecycleIdentity("bench");
	identity.apply({ type: "session_start", sessionId: "s" });
	const guard = identity.guard("run");
	const identityNs = medianNsPerOp(repeats, ops, () => {
		identity.apply({ type: "agent_start" });
		guard.isCurrent();
	});
	const dispatcher = new IdleDispatcher();
	const busy = { isIdle: () => false, hasPendingMessages: () => false };
	dispatcher.request({ key: "k", guard, send: () => undefined });
	const flushNs = medianNsPerOp(repeats, ops, () => {
		void dispatcher.flush(busy);
	});
	const proposed = Array.from({ length: 8 }, (_, i) => ({
		type: "custom_message" as const,
		customType: `x/${i}`,
		content: "c",
		display: false,
	}));
	const reset = { type: "compaction" as const, summary: "", firstKeptEntryId: null };
	const mergeNs = medianNsPerOp(repeats, ops, () => {
		mergeBoundaryDrafts(proposed, [reset]);
	});
	return [
		metric(
			"kit-identity",
			"kit: identity apply(agent_start) + guard check",
			round(identityNs, 0),
			"ns/op",
			"<",
			5_000,
			{ repeats, ops },
		),
		metric("kit-dispatcher", "kit: dispatcher flush while busy", round(flushNs, 0), "ns/op", "<", 5_000, {
			repeats,
			ops,
		}),
		metric(
			"kit-merge",
			"kit: merge a reset into 8 proposed drafts",
			round(mergeNs, 0),
			"ns/op",
			"<",
			20_000,
			{ repeats, ops },
		),
	];
}
