/** Small statistics and timing helpers (medians over repeats; absolute times are context only). */

/** Milliseconds from a monotonic clock. */
export function nowMs(): number {
	return Number(process.hrtime.bigint()) / 1e6;
}

/** The value at quantile `q` (0..1) of `values`, nearest-rank on a sorted copy. */
export function quantile(values: readonly number[], q: number): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
	return sorted[rank] as number;
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1
		? (sorted[mid] as number)
		: ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Rounds for reports. */
export function round(value: number, digits = 3): number {
	const factor = 10 ** digits;
	return Math.round(value * factor) / factor;
}

/** Median nanoseconds per call of `body`, over `repeats` batches of `ops` calls. */
export function medianNsPerOp(repeats: number, ops: number, body: () => void): number {
	const samples: number[] = [];
	for (let r = 0; r < repeats; r++) {
		const start = process.hrtime.bigint();
		for (let i = 0; i < ops; i++) body();
		samples.push(Number(process.hrtime.bigint() - start) / ops);
	}
	return median(samples);
}

/** Resolves after the current macrotask queue drained. */
export function tick(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}

/** Polls `check` every `everyMs` until it returns true or `timeoutMs` passes. */
export async function waitUntil(check: () => boolean, timeoutMs: number, everyMs = 5): Promise<boolean> {
	const end = nowMs() + timeoutMs;
	while (nowMs() < end) {
		if (check()) return true;
		await new Promise((resolve) => setTimeout(resolve, everyMs));
	}
	return check();
}
