/** The report: metrics with value, target, pass/miss, and the machine, as JSON and Markdown. */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";

/** How a value is compared with its target. */
export type Comparison = "<" | "<=" | ">=" | "==";

/** One measured figure. */
export interface Metric {
	/** Stable identifier (also the README section). */
	id: string;
	/** What is measured. */
	name: string;
	/** The measured value. */
	value: number;
	/** Unit of value and target. */
	unit: string;
	/** How value must compare with target. */
	op: Comparison;
	/** The target. */
	target: number;
	/** Whether the target is met (undefined: informational). */
	pass: boolean;
	/** Side-by-side figures, repeats and absolute times (context only). */
	context?: Record<string, unknown>;
	/** Shown next to pass/miss: e.g. the measured floor that makes a target unreachable. */
	note?: string;
}

/** Builds a metric and decides pass/miss. */
export function metric(
	id: string,
	name: string,
	value: number,
	unit: string,
	op: Comparison,
	target: number,
	context?: Record<string, unknown>,
): Metric {
	const pass =
		op === "<"
			? value < target
			: op === "<="
				? value <= target
				: op === ">="
					? value >= target
					: value === target;
	return { id, name, value, unit, op, target, pass: Number.isFinite(value) && pass, context };
}

/** The machine the figures come from. */
export function machine() {
	return {
		cpus: cpus().length,
		cpu: cpus()[0]?.model ?? "unknown",
		memoryGiB: Math.round(totalmem() / 2 ** 30),
		node: process.version,
		platform: `${process.platform}-${process.arch}`,
		loadAverageAtStart: loadavg().map((v) => Math.round(v * 100) / 100),
	};
}

function formatValue(value: number): string {
	if (!Number.isFinite(value)) return String(value);
	if (Number.isInteger(value)) return String(value);
	return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(4);
}

function formatContext(context: Record<string, unknown> | undefined): string {
	if (!context) return "";
	return Object.entries(context)
		.map(
			([key, value]) => `${key}: ${typeof value === "number" ? formatValue(value) : JSON.stringify(value)}`,
		)
		.join("; ")
		.replaceAll("|", "\\|");
}

/** Writes results/latest.json and results/latest.md; returns the Markdown. */
export function writeReport(
	dir: string,
	report: {
		date: string;
		smoke: boolean;
		durationS: number;
		machine: ReturnType<typeof machine>;
		metrics: Metric[];
	},
): string {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "latest.json"), `${JSON.stringify(report, null, 2)}\n`);
	const m = report.machine;
	const lines = [
		"# Benchmark results",
		"",
		`${report.date} · ${m.cpu} × ${m.cpus} · ${m.memoryGiB} GiB · Node ${m.node} · ${m.platform} · load ${m.loadAverageAtStart.join(" ")}${report.smoke ? " · **smoke mode** (fewer repeats, smaller inputs)" : ""} · ${report.durationS} s`,
		"",
		"| metric | value | target | result |",
		"|---|---:|---:|---|",
		...report.metrics.map(
			(x) =>
				`| ${x.name} | ${formatValue(x.value)} ${x.unit} | ${x.op} ${formatValue(x.target)} ${x.unit} | ${x.pass ? "pass" : "**MISS**"}${x.note ? ` (${x.note})` : ""} |`,
		),
		"",
		"## Context (side-by-side figures, repeats, absolute times)",
		"",
		...report.metrics.map((x) => `- **${x.id}** — ${formatContext(x.context)}`),
		"",
	];
	const text = lines.join("\n");
	writeFileSync(join(dir, "latest.md"), text);
	return text;
}
