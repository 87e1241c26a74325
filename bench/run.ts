/**
 * `pnpm bench`: benchmarks, written to bench/results/latest.json and latest.md.
 *
 * This first set measures the kit's per-event primitives (they run inside Pi's awaited handlers).
 * The extension-level targets of the benchmark issue (ratios against Pi without extensions) are
 * added to the same report as they land. Medians over repeats; absolute times are context only.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { IdleDispatcher, LifecycleIdentity, mergeBoundaryDrafts } from "@pi-lifecycle/lifecycle-kit";

interface Metric {
	name: string;
	value: number;
	unit: string;
	target: number;
	pass: boolean;
}

function medianNsPerOp(repeats: number, ops: number, body: () => void): number {
	const samples: number[] = [];
	for (let r = 0; r < repeats; r++) {
		const start = process.hrtime.bigint();
		for (let i = 0; i < ops; i++) body();
		samples.push(Number(process.hrtime.bigint() - start) / ops);
	}
	samples.sort((a, b) => a - b);
	return samples[Math.floor(samples.length / 2)] ?? 0;
}

const smoke = process.argv.includes("--smoke");
const repeats = smoke ? 3 : 15;
const ops = smoke ? 2_000 : 50_000;
const metrics: Metric[] = [];

const identity = new LifecycleIdentity("bench");
identity.apply({ type: "session_start", sessionId: "s" });
const guard = identity.guard("run");
const identityNs = medianNsPerOp(repeats, ops, () => {
	identity.apply({ type: "agent_start" });
	guard.isCurrent();
});
metrics.push({
	name: "identity: apply(agent_start) + guard check",
	value: identityNs,
	unit: "ns/op",
	target: 5_000,
	pass: identityNs < 5_000,
});

const dispatcher = new IdleDispatcher();
const busy = { isIdle: () => false, hasPendingMessages: () => false };
dispatcher.request({ key: "k", guard, send: () => undefined });
const flushNs = medianNsPerOp(repeats, ops, () => {
	void dispatcher.flush(busy);
});
metrics.push({
	name: "dispatcher: flush while busy (settle on a busy session)",
	value: flushNs,
	unit: "ns/op",
	target: 5_000,
	pass: flushNs < 5_000,
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
metrics.push({
	name: "boundary: merge a reset into 8 proposed drafts",
	value: mergeNs,
	unit: "ns/op",
	target: 20_000,
	pass: mergeNs < 20_000,
});

const machine = {
	cpus: cpus().length,
	cpu: cpus()[0]?.model ?? "unknown",
	memoryGiB: Math.round(totalmem() / 2 ** 30),
	node: process.version,
};
const report = { date: new Date().toISOString(), smoke, machine, metrics };
const dir = join(import.meta.dirname, "results");
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
const lines = [
	"# Benchmark results",
	"",
	`${report.date} · ${machine.cpu} × ${machine.cpus} · ${machine.memoryGiB} GiB · Node ${machine.node}${smoke ? " · smoke mode" : ""}`,
	"",
	"| metric | value | target | result |",
	"|---|---:|---:|---|",
	...metrics.map(
		(m) =>
			`| ${m.name} | ${m.value.toFixed(0)} ${m.unit} | < ${m.target} ${m.unit} | ${m.pass ? "pass" : "MISS"} |`,
	),
	"",
];
writeFileSync(join(dir, "latest.md"), lines.join("\n"));
console.log(lines.join("\n"));
if (metrics.some((m) => !m.pass)) process.exitCode = 1;
