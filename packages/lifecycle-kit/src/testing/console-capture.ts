/**
 * Captures console output during a test: extensions report to stderr in print mode (no UI), so
 * tests read what a user would have seen there.
 */
import { formatWithOptions } from "node:util";
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
	/** Captured lines per stream, one per call, formatted as the console prints them (an `Error` as its message). */
	readonly lines: Readonly<Record<ConsoleStream, readonly string[]>>;
	/** Every captured line of the given streams (default all), in order, joined with newlines. */
	text(...streams: ConsoleStream[]): string;
	/** Puts the original methods back. Idempotent. */
	restore(): void;
}

const ALL: readonly ConsoleStream[] = ["log", "info", "warn", "error"];

type ConsoleMethod = (...args: unknown[]) => void;
/** Each installed wrapper: what it replaced, and whether its capture was restored. */
const wrappers = new WeakMap<
	ConsoleMethod,
	{ readonly original: ConsoleMethod; readonly restored: () => boolean }
>();

/** `method`, skipping the wrappers of captures already restored (restored out of order). */
function live(method: ConsoleMethod): ConsoleMethod {
	let current = method;
	for (let entry = wrappers.get(current); entry?.restored(); entry = wrappers.get(current))
		current = entry.original;
	return current;
}

// As the console formats a call (format strings, objects inspected), without colours; an Error
// reads as its message, so a line does not depend on stack traces.
function format(args: readonly unknown[]): string {
	return formatWithOptions(
		{ colors: false },
		...args.map((arg) => (arg instanceof Error ? arg.message : arg)),
	);
}

/** Starts capturing console output. */
export function captureConsole(options: CaptureConsoleOptions = {}): ConsoleCapture {
	const streams = options.streams ?? ALL;
	const lines: Record<ConsoleStream, string[]> = { log: [], info: [], warn: [], error: [] };
	const ordered: { stream: ConsoleStream; line: string }[] = [];
	const installed = new Map<ConsoleStream, { original: ConsoleMethod; wrapper: ConsoleMethod }>();
	let restored = false;
	for (const stream of streams) {
		const original: ConsoleMethod = console[stream];
		const wrapper: ConsoleMethod = (...args) => {
			// Restored while a later capture still sits on top of it: forward, record nothing.
			if (restored) return original.apply(console, args);
			const line = format(args);
			lines[stream].push(line);
			ordered.push({ stream, line });
			if (options.passThrough) original.apply(console, args);
		};
		wrappers.set(wrapper, { original, restored: () => restored });
		installed.set(stream, { original, wrapper });
		console[stream] = wrapper;
	}
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
			// Only a capture that is still installed puts a method back, skipping restored ones under it;
			// one restored out of order stays under the later capture and forwards until that one ends.
			for (const [stream, { original, wrapper }] of installed)
				if (console[stream] === wrapper) console[stream] = live(original);
		},
	};
	registerTestCleanup(() => capture.restore());
	return capture;
}
