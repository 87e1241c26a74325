/**
 * Captures console output during a test: extensions report to stderr in print mode (no UI), so
 * tests read what a user would have seen there.
 */
import { registerTestCleanup } from "./cleanup.js";

/** The console methods a capture replaces. */
export type ConsoleStream = "log" | "info" | "warn" | "error";

/** Options for {@link captureConsole}. */
export interface CaptureConsoleOptions {
	/** Which methods to capture. Default all four. */
	readonly streams?: readonly ConsoleStream[];
	/** Also write to the original console. Default false. */
	readonly passThrough?: boolean;
}

/** A running capture. It is restored when the test finishes (see `setTestCleanup`), or by `restore()`. */
export interface ConsoleCapture {
	/** Captured lines per stream, each call's arguments joined with spaces. */
	readonly lines: Readonly<Record<ConsoleStream, readonly string[]>>;
	/** Every captured line of the given streams (default all), in order, joined with newlines. */
	text(...streams: ConsoleStream[]): string;
	/** Puts the original methods back. Idempotent. */
	restore(): void;
}

const ALL: readonly ConsoleStream[] = ["log", "info", "warn", "error"];

function format(args: readonly unknown[]): string {
	return args
		.map((arg) => (typeof arg === "string" ? arg : arg instanceof Error ? arg.message : String(arg)))
		.join(" ");
}

/** Starts capturing console output. */
export function captureConsole(options: CaptureConsoleOptions = {}): ConsoleCapture {
	const streams = options.streams ?? ALL;
	const lines: Record<ConsoleStream, string[]> = { log: [], info: [], warn: [], error: [] };
	const ordered: { stream: ConsoleStream; line: string }[] = [];
	const originals = new Map<ConsoleStream, (...args: unknown[]) => void>();
	for (const stream of streams) {
		const original = console[stream];
		originals.set(stream, original);
		console[stream] = (...args: unknown[]) => {
			const line = format(args);
			lines[stream].push(line);
			ordered.push({ stream, line });
			if (options.passThrough) original.apply(console, args);
		};
	}
	let restored = false;
	const capture: ConsoleCapture = {
		lines,
		text(...only) {
			const wanted = only.length > 0 ? only : ALL;
			return ordered
				.filter((entry) => wanted.includes(entry.stream))
				.map((entry) => entry.line)
				.join("\n");
		},
		restore() {
			if (restored) return;
			restored = true;
			for (const [stream, original] of originals) console[stream] = original;
		},
	};
	registerTestCleanup(() => capture.restore());
	return capture;
}
