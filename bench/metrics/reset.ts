/**
 * Model requests for one reset, pi-reset vs Pi's native compaction (a scripted summariser that
 * answers instantly), and the time from the request to the next provider call.
 *
 * - explicit: the model calls `new_context` (pi-reset) vs `/compact` at idle followed by the next
 *   prompt (native); request = the tool's end / the compact call; next call = the continuation /
 *   the next prompt's first request;
 * - automatic: a threshold compaction at the end of a run (usage rewritten above the threshold),
 *   with pi-reset loaded vs without; request = `compaction_start`, next call = the next prompt's
 *   first request (issued right after the run settles).
 *
 * Summarisation requests = provider calls Pi made between compaction_start and compaction_end (or,
 * for `new_context`, calls beyond the two model turns). Medians over repeats.
 */
import type { ScriptedSession } from "@pi-lifecycle/lifecycle-kit/testing";
import { createScriptedSession, reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import piReset from "@pi-lifecycle/pi-reset";
import { type Metric, metric } from "../lib/report.ts";
import { median, nowMs, round } from "../lib/stats.ts";

const SETTINGS = { compaction: { enabled: true, keepRecentTokens: 1 } };

interface Probe {
	calls: number[];
	compactionStart?: number;
	toolEnd?: number;
}

async function open(withReset: boolean): Promise<{ h: ScriptedSession; probe: Probe }> {
	const h = await createScriptedSession({
		extensions: withReset ? [{ name: "pi-reset", factory: piReset }] : [],
		settings: SETTINGS,
	});
	const probe: Probe = { calls: [] };
	h.session.subscribe((event) => {
		if (event.type === "compaction_start") probe.compactionStart = nowMs();
		else if (event.type === "tool_execution_end" && event.toolName === "new_context") probe.toolEnd = nowMs();
	});
	return { h, probe };
}

function queue(h: ScriptedSession, probe: Probe, ...steps: ReturnType<typeof reply>[]): void {
	h.faux.appendResponses(
		steps.map((step) => () => {
			probe.calls.push(nowMs());
			return step;
		}),
	);
}

async function warm(h: ScriptedSession, probe: Probe): Promise<void> {
	queue(h, probe, toolCall("read", { path: "missing.txt" }), reply("Looked at it."));
	await h.prompt("Start the task.");
}

/** pi-reset: new_context. */
async function explicitReset(): Promise<{ summaries: number; ms: number; calls: number }> {
	const { h, probe } = await open(true);
	try {
		await warm(h, probe);
		const before = h.faux.state.callCount;
		queue(h, probe, toolCall("new_context", { handoff: "Continue with step 2." }), reply("Fresh window."));
		await h.prompt("Reset when you are ready.");
		const calls = h.faux.state.callCount - before;
		const next = probe.calls.find((t) => t > (probe.toolEnd ?? Number.POSITIVE_INFINITY));
		return { summaries: calls - 2, ms: (next ?? Number.NaN) - (probe.toolEnd ?? Number.NaN), calls };
	} finally {
		await h.dispose();
	}
}

/** Native: /compact at idle with an instant summariser, then the next prompt. */
async function explicitNative(): Promise<{ summaries: number; ms: number; calls: number }> {
	const { h, probe } = await open(false);
	try {
		await warm(h, probe);
		const before = h.faux.state.callCount;
		queue(h, probe, reply("## Goal\nSummary of the task so far."), reply("Continuing."));
		const start = nowMs();
		await h.session.compact();
		const summaries = h.faux.state.callCount - before;
		await h.prompt("Continue.");
		const next = probe.calls.at(-1) as number;
		return { summaries, ms: next - start, calls: h.faux.state.callCount - before };
	} finally {
		await h.dispose();
	}
}

/** Threshold compaction at the end of a run; the next prompt follows at once. */
async function automatic(withReset: boolean): Promise<{ summaries: number; ms: number; calls: number }> {
	const { h, probe } = await open(withReset);
	let compacting = false;
	h.session.subscribe((event) => {
		if (event.type === "compaction_start") compacting = true;
		else if (event.type === "compaction_end") compacting = false;
	});
	try {
		await warm(h, probe);
		h.setUsage({ input: 120_000, totalTokens: 120_500 });
		const before = h.faux.state.callCount;
		let summaries = 0;
		const counted = (step: ReturnType<typeof reply>) => () => {
			probe.calls.push(nowMs());
			if (compacting) summaries++;
			return step;
		};
		h.faux.appendResponses([
			counted(reply("Big answer.")),
			counted(reply("## Goal\nSummary.")),
			counted(reply("## Turn\nPrefix summary.")),
			counted(reply("Next.")),
		]);
		await h.prompt("Produce the big answer.");
		h.setUsage(undefined);
		if (probe.compactionStart === undefined) throw new Error("no threshold compaction happened");
		await h.prompt("Continue.");
		// The next prompt's request is the last provider call (leftover scripted steps are unused).
		const next = probe.calls.at(-1) as number;
		return { summaries, ms: next - probe.compactionStart, calls: h.faux.state.callCount - before };
	} finally {
		await h.dispose();
	}
}

async function repeat<T extends { summaries: number; ms: number; calls: number }>(
	n: number,
	f: () => Promise<T>,
) {
	await f();
	const runs: T[] = [];
	for (let i = 0; i < n; i++) runs.push(await f());
	return {
		summaries: Math.max(...runs.map((r) => r.summaries)),
		ms: median(runs.map((r) => r.ms)),
		calls: runs[0]?.calls,
	};
}

/** See the module comment. */
export async function resetRequests(smoke: boolean): Promise<Metric[]> {
	const n = smoke ? 2 : 7;
	const reset = await repeat(n, explicitReset);
	const native = await repeat(n, explicitNative);
	const autoReset = await repeat(n, () => automatic(true));
	const autoNative = await repeat(n, () => automatic(false));
	return [
		metric(
			"reset-requests-explicit",
			"summarisation requests for one explicit reset: pi-reset new_context (native /compact: see context)",
			reset.summaries,
			"requests",
			"==",
			0,
			{
				nativeCompactSummaries: native.summaries,
				piResetRequestToNextCallMs: round(reset.ms, 2),
				nativeRequestToNextCallMs: round(native.ms, 2),
				repeats: n,
			},
		),
		metric(
			"reset-requests-automatic",
			"summarisation requests for one automatic (threshold) compaction with pi-reset (native: see context)",
			autoReset.summaries,
			"requests",
			"==",
			0,
			{
				nativeThresholdSummaries: autoNative.summaries,
				piResetCompactionStartToNextCallMs: round(autoReset.ms, 2),
				nativeCompactionStartToNextCallMs: round(autoNative.ms, 2),
				repeats: n,
			},
		),
		metric(
			"reset-requests-native",
			"summarisation requests for one native compaction (reference)",
			Math.min(native.summaries, autoNative.summaries),
			"requests",
			">=",
			1,
			{
				note: "threshold compaction that splits a turn also summarises the turn prefix (2 requests)",
				explicit: native.summaries,
				threshold: autoNative.summaries,
			},
		),
	];
}
