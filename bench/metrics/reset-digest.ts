/**
 * Size of the mechanical digest pi-reset puts in the boot text of a reset Pi starts (threshold,
 * overflow, `/compact`), on a heavy window: 60 files written on long paths, 40 read, a tool call
 * per turn and a 20,000-character last answer. The digest is built from session entries and Pi's
 * compaction preparation with zero model calls (provider calls during the compaction: context).
 * Budget: `DIGEST_BUDGET_CHARS` = 4000 characters (about 1,000 tokens by Pi's chars/4 estimate).
 */
import { createScriptedSession, reply, toolCalls } from "@pi-lifecycle/lifecycle-kit/testing";
import piReset from "@pi-lifecycle/pi-reset";
import { type Metric, metric } from "../lib/report.ts";

const DIGEST_HEADING = "What the previous window did (a mechanical digest):";

export async function resetDigest(smoke: boolean): Promise<Metric[]> {
	const files = smoke ? 30 : 60;
	const h = await createScriptedSession({
		extensions: [{ name: "pi-reset", factory: piReset }],
		settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
	});
	try {
		const path = (i: number) => `src/module-${i}/${"nested/".repeat(12)}file-${i}.ts`;
		const steps = [];
		for (let i = 0; i < files; i++)
			steps.push(toolCalls([{ name: "write", args: { path: path(i), content: `// ${i}` } }]));
		for (let i = 0; i < 40; i++) steps.push(toolCalls([{ name: "read", args: { path: path(i % files) } }]));
		steps.push(reply(`FINAL ${"answer text ".repeat(1700)}`));
		h.faux.appendResponses(steps);
		let callsAtCompaction = 0;
		let callsAfterCompaction = 0;
		h.session.subscribe((event) => {
			if (event.type === "compaction_start") callsAtCompaction = h.faux.state.callCount;
			if (event.type === "compaction_end") callsAfterCompaction = h.faux.state.callCount;
		});
		h.setUsage((m) => (m.stopReason === "stop" ? { totalTokens: 120_000, input: 120_000 } : undefined));
		await h.prompt("Write the modules.");
		const compaction = h.session.sessionManager.getBranch().findLast((entry) => entry.type === "compaction");
		const summary = compaction?.type === "compaction" ? compaction.summary : "";
		const start = summary.indexOf(DIGEST_HEADING);
		const rest = start < 0 ? "" : summary.slice(start + DIGEST_HEADING.length + 1);
		const digest = rest.split("\n\n")[0] ?? "";
		return [
			metric(
				"reset-digest",
				"mechanical digest in the boot text of an automatic reset (heavy window)",
				digest.length,
				"chars",
				"<=",
				4000,
				{
					estimatedTokens: Math.ceil(digest.length / 4),
					bootTextChars: summary.length,
					filesWritten: files,
					modelCallsDuringCompaction: callsAfterCompaction - callsAtCompaction,
				},
			),
		];
	} finally {
		await h.dispose();
	}
}
