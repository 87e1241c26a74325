/**
 * `usage:query:v1` client (see docs/usage-query-v1.md). One query: emit a request with
 * `refresh: true`, a cancellation signal and an `offer` callback on `pi.events`; responders offer a
 * report (or a promise of one) synchronously during the emit. The first offer is awaited until a
 * deadline of at most 15 s; no offer, several offers, rejection, cancellation and timeout all
 * resolve to "no report". No poller, no retry, no refresh loop.
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { Timers } from "./wake.js";

/** The bus channel (public, DESIGN.md §3). */
export const USAGE_QUERY_CHANNEL = "usage:query:v1";
/** Longest time a query may take. */
export const USAGE_QUERY_DEADLINE_MS = 15_000;

/** The request object pi-goal emits (one fresh object per query). */
export interface UsageQueryRequest {
	/** Protocol version. */
	readonly version: 1;
	/** Always true: ask for a fresh measurement, not a cached one. */
	readonly refresh: true;
	/** Provider id of the selected model (a filter hint for responders). */
	readonly provider: string;
	/** Exact model id and name of the selected model. */
	readonly model: { readonly id: string; readonly name?: string };
	/** When the query was sent (epoch ms). */
	readonly requestedAt: number;
	/** Absolute deadline (epoch ms): answers after it are ignored. */
	readonly deadline: number;
	/** Aborted when pi-goal no longer needs the answer (cancelled, timed out, superseded). */
	readonly signal: AbortSignal;
	/** Responders call this synchronously during the emit with a report or a promise of one. */
	offer(response: unknown): void;
}

/** Why a query gave no report. */
export type QueryMiss = "missing" | "ambiguous" | "rejected" | "cancelled" | "timeout";

/** The outcome of one query. */
export type QueryResult =
	| { readonly ok: true; readonly report: unknown }
	| { readonly ok: false; readonly miss: QueryMiss };

/** What a query is about. */
export interface QueryTarget {
	readonly provider: string;
	readonly modelId: string;
	readonly modelName?: string;
}

/**
 * Sends one query. `signal` cancels it (the request's own signal is aborted too). Never throws;
 * a responder that throws is reported by Pi's bus, not here.
 */
export function queryUsage(
	events: Pick<ExtensionAPI["events"], "emit">,
	target: QueryTarget,
	deps: {
		readonly now: () => number;
		readonly timers: Timers;
		readonly signal: AbortSignal;
		readonly deadlineMs?: number;
	},
): Promise<QueryResult> {
	const own = new AbortController();
	const deadlineMs = Math.min(
		USAGE_QUERY_DEADLINE_MS,
		Math.max(0, deps.deadlineMs ?? USAGE_QUERY_DEADLINE_MS),
	);
	const requestedAt = deps.now();
	const offers: unknown[] = [];
	let open = true;
	const request: UsageQueryRequest = {
		version: 1,
		refresh: true,
		provider: target.provider,
		model: { id: target.modelId, ...(target.modelName ? { name: target.modelName } : {}) },
		requestedAt,
		deadline: requestedAt + deadlineMs,
		signal: own.signal,
		offer(response: unknown) {
			if (open) offers.push(response);
		},
	};
	if (deps.signal.aborted) return Promise.resolve({ ok: false, miss: "cancelled" });
	try {
		events.emit(USAGE_QUERY_CHANNEL, request);
	} catch {
		// A broken bus is a missing service.
	}
	open = false;
	if (offers.length === 0) {
		own.abort();
		return Promise.resolve({ ok: false, miss: "missing" });
	}
	if (offers.length > 1) {
		own.abort();
		return Promise.resolve({ ok: false, miss: "ambiguous" });
	}
	return new Promise<QueryResult>((resolve) => {
		let done = false;
		const finish = (result: QueryResult) => {
			if (done) return;
			done = true;
			deps.timers.clearTimeout(timer);
			deps.signal.removeEventListener("abort", onAbort);
			if (!result.ok) own.abort();
			resolve(result);
		};
		const onAbort = () => finish({ ok: false, miss: "cancelled" });
		const timer = deps.timers.setTimeout(() => finish({ ok: false, miss: "timeout" }), deadlineMs);
		deps.signal.addEventListener("abort", onAbort, { once: true });
		// Adopted inside a reaction: a hostile thenable (throwing `then` or `constructor` getter, a
		// `then` that throws) rejects instead of throwing here.
		const offered = offers[0];
		Promise.resolve()
			.then(() => offered)
			.then(
				(report) => finish({ ok: true, report }),
				() => finish({ ok: false, miss: "rejected" }),
			);
	});
}
