/**
 * Reading a `usage:query:v1` report (pure). See docs/usage-query-v1.md for the protocol as
 * consumed. Only a fresh, valid report for the selected provider whose buckets are scoped to the
 * current model (exact `id` or `name` in `modelKeys`) can give a hint; the hint is the latest
 * future `resetsAt` among the confirmed exhausted buckets. Everything else falls back.
 */

import { cutText } from "@pi-lifecycle/lifecycle-kit/text";

/** The model a query is about. */
export interface QueryScope {
	/** Provider id of the selected model. */
	readonly provider: string;
	/** Exact model id. */
	readonly modelId: string;
	/** Model display name, if any. */
	readonly modelName?: string;
}

/** The outcome of reading one report. */
export type HintResult =
	| { readonly ok: true; readonly resumeAt: number }
	| { readonly ok: false; readonly reason: string };

/** Most buckets read from one report; a bigger report is not trusted. */
const MAX_BUCKETS = 1000;

/** Longest hint accepted (31 days); anything later is treated as unusable. */
export const MAX_HINT_MS = 31 * 24 * 60 * 60 * 1000;

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function finite(value: unknown): value is number {
	return typeof value === "number" && Number.isFinite(value);
}

function fail(reason: string): HintResult {
	return { ok: false, reason };
}

/** Whether a bucket is confirmed exhausted; undefined when measurements are missing or contradict. */
function exhausted(bucket: Record<string, unknown>): boolean | undefined {
	const { used, limit, remaining, exhausted: flag } = bucket;
	if (!finite(used) || !finite(limit) || used < 0 || limit <= 0) return undefined;
	const full = used >= limit;
	if (remaining !== undefined) {
		if (!finite(remaining) || remaining < 0) return undefined;
		if (remaining <= 0 !== full) return undefined;
	}
	if (flag !== undefined && flag !== full) return undefined;
	return full;
}

/**
 * Reads one report. `requestedAt` is when the refresh query was sent: a report fetched before it
 * is stale, as is one whose `expiresAt` (cache expiry, not a quota reset) has passed. Never throws:
 * a hostile report (throwing getters, proxies) is unreadable. Each field is read once.
 */
export function selectResetHint(
	report: unknown,
	scope: QueryScope,
	requestedAt: number,
	now: number,
): HintResult {
	try {
		return readHint(report, scope, requestedAt, now);
	} catch {
		return fail("unreadable report");
	}
}

function readHint(report: unknown, scope: QueryScope, requestedAt: number, now: number): HintResult {
	if (!isRecord(report)) return fail("malformed report");
	const { version, status, provider, fetchedAt, expiresAt, buckets } = report;
	if (version !== 1) return fail("malformed report");
	if (status !== "ok")
		return fail(typeof status === "string" ? `report status ${cutText(status, 40)}` : "report status not ok");
	if (provider !== scope.provider) return fail("report is for another provider");
	if (!finite(fetchedAt) || fetchedAt < requestedAt || fetchedAt > now) return fail("stale report");
	if (expiresAt !== undefined && (!finite(expiresAt) || expiresAt <= now)) return fail("stale report");
	if (!Array.isArray(buckets) || buckets.length === 0) return fail("no buckets");
	if (buckets.length > MAX_BUCKETS) return fail("too many buckets");
	const ids = new Set<string>();
	let latest: number | undefined;
	for (const bucket of buckets.slice()) {
		if (!isRecord(bucket)) return fail("malformed bucket");
		const { id, modelKeys: keys, resetsAt } = bucket;
		if (typeof id !== "string" || id === "") return fail("malformed bucket");
		if (ids.has(id)) return fail("duplicate bucket id");
		ids.add(id);
		if (!Array.isArray(keys) || keys.length === 0 || !keys.every((key) => typeof key === "string"))
			return fail("unscoped bucket");
		const applies = keys.includes(scope.modelId) || (!!scope.modelName && keys.includes(scope.modelName));
		if (!applies) continue;
		const full = exhausted(bucket);
		if (full === undefined) return fail("missing or contradictory measurements");
		if (!full) continue;
		if (!finite(resetsAt) || resetsAt <= now || resetsAt > now + MAX_HINT_MS) return fail("no usable reset");
		latest = latest === undefined ? resetsAt : Math.max(latest, resetsAt);
	}
	return latest === undefined
		? fail("no confirmed exhausted bucket for this model")
		: { ok: true, resumeAt: latest };
}
