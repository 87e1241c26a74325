/**
 * A 25-iteration goal run with all three extensions and a reset in the middle (the model calls
 * `new_context` at iteration 13), ended by `goal_complete`. Two figures:
 *
 * - prompt-cache stability: each provider request is serialised as a provider would send it
 *   (role, content, tool declarations; no timestamps or usage); for every request except the first
 *   and the first after the reset, the fraction of the previous request's bytes that the current
 *   request repeats as its prefix. The figure is the minimum (every request must reach 99%);
 * - tokens the extensions add per goal continuation: the contract and continuation messages on the
 *   branch, measured with Pi's `estimateTokens` (and chars/4), the largest of each type and the
 *   largest contract + continuation pair added at one boundary.
 *
 * pi-goal's response limit (25 by default) is raised to 100 and its repeated-reply rule is off in
 * the isolated settings so the run is not cut short.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@earendil-works/pi-ai";
import { estimateTokens, getAgentDir } from "@earendil-works/pi-coding-agent";
import { messageText, reply, toolCall } from "@pi-lifecycle/lifecycle-kit/testing";
import { allExtensions, type JscpdController, session } from "../lib/extensions.ts";
import { smallProject } from "../lib/project.ts";
import { type Metric, metric } from "../lib/report.ts";
import { median, round } from "../lib/stats.ts";

const ITERATIONS = 25;
const RESET_AT = 13;
const DROP = new Set([
	"timestamp",
	"usage",
	"api",
	"provider",
	"model",
	"responseId",
	"stopReason",
	"details",
]);

function serialise(messages: readonly Message[]): string {
	return messages
		.map((m) => JSON.stringify(m, (key, value) => (DROP.has(key) ? undefined : value)))
		.join("\n");
}

function commonPrefix(a: string, b: string): number {
	const n = Math.min(a.length, b.length);
	let i = 0;
	while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
	return i;
}

function goalId(messages: readonly Message[]): string {
	let id = "";
	for (const message of messages) {
		const match = /Goal id: (g-[0-9a-f]+)/.exec(messageText(message));
		if (match?.[1]) id = match[1];
	}
	return id;
}

/** See the module comment. */
export async function goalRun(_smoke: boolean): Promise<Metric[]> {
	const dir = join(getAgentDir(), "pi-lifecycle");
	mkdirSync(dir, { recursive: true });
	// Its tool-free replies differ only in the iteration number, which the stuck detector's reply
	// rule rightly treats as the same reply (issue 30): off, with the response limit raised.
	writeFileSync(join(dir, "pi-goal.json"), JSON.stringify({ automaticTurns: 100, noProgressTurns: null }));
	let controller: JscpdController | undefined;
	const h = await session(
		allExtensions((c) => (controller = c)),
		{ cwd: smallProject() },
	);
	const requests: { text: string; iteration: number; afterReset: boolean }[] = [];
	let resetDone = false;
	const record =
		(iteration: number, make: (messages: readonly Message[]) => ReturnType<typeof reply>) =>
		(context: { messages: Message[] }) => {
			requests.push({ text: serialise(context.messages), iteration, afterReset: resetDone });
			return make(context.messages);
		};
	try {
		await controller?.settled();
		const steps = [];
		for (let i = 1; i <= ITERATIONS; i++) {
			if (i === RESET_AT) {
				steps.push(
					record(i, () => {
						return toolCall("new_context", {
							handoff: `Iterations 1-${i - 1} done; continue with part ${i}.`,
						});
					}),
				);
			}
			if (i === ITERATIONS) {
				steps.push(
					record(i, (messages) =>
						toolCall("goal_complete", { goal_id: goalId(messages), summary: "All parts written." }),
					),
				);
			} else {
				steps.push(record(i, () => reply(`Iteration ${i}: wrote part ${i} of the report and checked it.`)));
			}
		}
		// Mark the first request after the reset (the continuation that follows new_context).
		h.faux.appendResponses(
			steps.map((step, index) => (context: { messages: Message[] }) => {
				if (index === RESET_AT) resetDone = true;
				const result = step(context);
				return result;
			}) as never,
		);
		await h.prompt("/goal Write the quarterly report in 25 parts, one per iteration.");
		for (let i = 0; i < 10 && h.faux.state.callCount < steps.length; i++) {
			await h.session.waitForIdle();
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		await h.session.waitForIdle();

		const fractions: { index: number; fraction: number }[] = [];
		for (let i = 1; i < requests.length; i++) {
			const prev = requests[i - 1] as (typeof requests)[number];
			const cur = requests[i] as (typeof requests)[number];
			if (cur.afterReset && !prev.afterReset) continue; // the first request after the reset
			const common = commonPrefix(prev.text, cur.text);
			fractions.push({ index: i + 1, fraction: common / prev.text.length });
			if (process.env.BENCH_DEBUG && common < prev.text.length)
				console.error(
					`#${i + 1} diverges at ${common}/${prev.text.length}\nPREV: ${prev.text.slice(common - 200, common + 300)}\nCUR:  ${cur.text.slice(common - 200, common + 300)}`,
				);
		}
		const minimum = Math.min(...fractions.map((f) => f.fraction));

		const branch = h.session.sessionManager.getBranch();
		const perType: Record<string, { count: number; maxTokens: number; maxChars4: number }> = {};
		const added: number[] = [];
		let pending = 0;
		for (const entry of branch) {
			if (entry.type !== "custom_message" || !entry.customType.startsWith("pi-goal/")) {
				if (pending > 0) added.push(pending);
				pending = 0;
				continue;
			}
			const text =
				typeof entry.content === "string"
					? entry.content
					: entry.content.map((c) => ("text" in c ? c.text : "")).join("");
			const tokens = estimateTokens({
				role: "custom",
				customType: entry.customType,
				content: entry.content,
				display: false,
				timestamp: 0,
			} as never);
			const slot = perType[entry.customType] ?? { count: 0, maxTokens: 0, maxChars4: 0 };
			slot.count++;
			slot.maxTokens = Math.max(slot.maxTokens, tokens);
			slot.maxChars4 = Math.max(slot.maxChars4, Math.ceil(text.length / 4));
			perType[entry.customType] = slot;
			pending += tokens;
		}
		if (pending > 0) added.push(pending);
		const continuations = perType["pi-goal/continuation"]?.count ?? 0;
		const goalState = branch.filter((e) => e.type === "custom" && e.customType === "pi-goal/state").at(-1) as
			| { data?: { state?: { goal?: { status?: string } } } }
			| undefined;
		const runInfo = {
			providerRequests: h.faux.state.callCount,
			scriptedSteps: steps.length,
			continuations,
			finalGoalStatus: goalState?.data?.state?.goal?.status,
			errors: h.errors.map((e) => `${e.event}: ${e.error}`).slice(0, 3),
		};
		return [
			metric(
				"cache-prefix",
				"prompt-cache stability: previous request reused as prefix (minimum over requests)",
				round(minimum * 100, 3),
				"%",
				">=",
				99,
				{
					...runInfo,
					comparedRequests: fractions.length,
					medianPercent: round(median(fractions.map((f) => f.fraction)) * 100, 3),
					below99: fractions
						.filter((f) => f.fraction < 0.99)
						.map((f) => `#${f.index}: ${round(f.fraction * 100, 2)}%`),
				},
			),
			metric(
				"goal-tokens",
				"tokens pi-goal adds at one continuation (contract + continuation, max)",
				Math.max(0, ...added),
				"tokens",
				"<=",
				300,
				{
					perType,
					boundaries: added.length,
					estimator: "Pi estimateTokens (maxChars4 = ceil(chars/4))",
				},
			),
		];
	} finally {
		await h.dispose();
	}
}
